/**
 * The sandbox chain's persistence: state captured at each `persist` call, written off the event
 * loop in call order; a fresh sandbox on the same directory finds every transaction and balance.
 */
import { mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Address } from "@ton/core";
import { KeyRing } from "../../chain/keys";
import { SandboxChain } from "../../chain/sandbox";

const addr = (b: string) => Address.parseRaw("0:" + b.repeat(32));

describe("SandboxChain.persist", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "pmx-sandbox-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test("overlapping calls write in call order, and a reopened chain has every transaction", async () => {
    const keys = new KeyRing("0e".repeat(32));
    const sb = new SandboxChain({ keys, testnet: true, dir, operatorNano: 0n });
    await sb.start();
    const first = await sb.faucetSend("TON", addr("a1"), 3_000_000_000n);
    const p1 = sb.persist();
    // Executed while the first write is still in flight: it belongs to the second call's state.
    const second = await sb.faucetSend("USDT", addr("b2"), 7_000_000n);
    const p2 = sb.persist();
    await Promise.all([p1, p2]);
    const executed = sb.transactionCount();
    await sb.stop();

    const lts = readFileSync(join(dir, "sandbox-transactions.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => BigInt((JSON.parse(l) as { lt: string }).lt));
    expect(lts).toEqual([...lts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));

    const again = new SandboxChain({ keys, testnet: true, dir, operatorNano: 0n });
    await again.start();
    expect(again.transactionCount()).toBe(executed);
    expect(await again.findTransaction(first.txHash)).not.toBeNull();
    expect(await again.findTransaction(second.txHash)).not.toBeNull();
    expect(await again.tonBalance(addr("a1"))).toBeGreaterThan(2_000_000_000n);
    const jw = await again.jettonWalletAddress(addr("b2"));
    expect((await again.jettonWalletData(jw))?.balance).toBe(7_000_000n);
    await again.stop();
  });

  test("a write that fails (a full disk) loses nothing: its transactions are written, in order, by the next one", async () => {
    const keys = new KeyRing("0e".repeat(32));
    const sb = new SandboxChain({ keys, testnet: true, dir, operatorNano: 0n });
    await sb.start();
    const txFile = join(dir, "sandbox-transactions.jsonl");
    // The transaction log cannot be written for a while.
    renameSync(txFile, `${txFile}.aside`);
    mkdirSync(txFile);
    const first = await sb.faucetSend("TON", addr("c3"), 3_000_000_000n);
    await expect(sb.persist()).rejects.toThrow();
    rmSync(txFile, { recursive: true });
    renameSync(`${txFile}.aside`, txFile);
    const second = await sb.faucetSend("USDT", addr("d4"), 5_000_000n);
    await sb.persist();
    const executed = sb.transactionCount();
    await sb.stop();

    const lts = readFileSync(txFile, "utf8")
      .trim()
      .split("\n")
      .map((l) => BigInt((JSON.parse(l) as { lt: string }).lt));
    expect(lts).toEqual([...lts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
    expect(new Set(lts).size).toBe(lts.length);
    const again = new SandboxChain({ keys, testnet: true, dir, operatorNano: 0n });
    await again.start();
    expect(again.transactionCount()).toBe(executed);
    expect(await again.findTransaction(first.txHash)).not.toBeNull();
    expect(await again.findTransaction(second.txHash)).not.toBeNull();
    await again.stop();
  });
});
