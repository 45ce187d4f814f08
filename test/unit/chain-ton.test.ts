/**
 * The `ton` adapter (TonClient over toncenter v2 JSON-RPC) against recorded responses served on
 * loopback (see test/support/chain-toncenter.ts for how they were recorded without a network).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { Address, Cell, loadMessage, loadMessageRelaxed } from "@ton/core";
import { signVerify } from "@ton/crypto";
import { KeyRing } from "../../chain/keys";
import { TonChain } from "../../chain/ton";
import { classifyDepositTx, refineNotification } from "../../chain/deposits";
import { parseTransfer, parseComment } from "../../chain/jetton";

/** The forward payload (by ref) of a TEP-74 transfer body. */
function parseTransferPayload(body: Cell): Cell {
  const s = body.beginParse();
  s.skip(32 + 64);
  s.loadCoins();
  s.loadAddress();
  s.loadMaybeAddress();
  s.loadMaybeRef();
  s.loadCoins();
  return s.loadBit() ? s.loadRef() : s.asCell();
}
import { jettonBalance, jettonTransferMessage, transferOutcome } from "../../chain/operations";
import {
  FIXTURE_FILE,
  recordToncenterFixture,
  serveToncenter,
  type ToncenterFixture,
  type ToncenterServer,
} from "../support/chain-toncenter";

let fx: ToncenterFixture;
let srv: ToncenterServer;
let keys: KeyRing;
let chain: TonChain;

beforeAll(async () => {
  if (process.env.RECORD_TON_FIXTURES === "1" || !existsSync(FIXTURE_FILE)) {
    mkdirSync(dirname(FIXTURE_FILE), { recursive: true });
    writeFileSync(FIXTURE_FILE, JSON.stringify(await recordToncenterFixture(), null, 1) + "\n");
  }
  fx = JSON.parse(readFileSync(FIXTURE_FILE, "utf8"));
  srv = await serveToncenter(fx);
  keys = new KeyRing(fx.meta.masterSecret);
  chain = new TonChain({
    keys,
    testnet: true,
    endpoint: srv.url,
    apiKey: fx.meta.apiKey,
    usdtMinter: Address.parseRaw(fx.meta.usdtMinter),
    confirmTimeoutMs: 2_000,
    pollMs: 20,
    now: () => fx.meta.now,
  });
  await chain.start();
});
afterAll(() => srv?.close());

test("every call carries the configured API key to the configured endpoint", async () => {
  await chain.jettonWalletAddress(Address.parseRaw(fx.meta.depositAddress));
  expect(srv.calls.length).toBeGreaterThan(0);
  expect(srv.calls.every((c) => c.apiKey === fx.meta.apiKey)).toBe(true);
  const anonymous = new TonChain({
    keys,
    testnet: true,
    endpoint: srv.url,
    usdtMinter: Address.parseRaw(fx.meta.usdtMinter),
    confirmTimeoutMs: 0,
  });
  await expect(anonymous.jettonWalletAddress(Address.parseRaw(fx.meta.user))).rejects.toThrow();
});

test("deposit addresses derive from the master secret alone, and the minter names their jetton wallets", async () => {
  const dep = await keys.deposit(fx.meta.depositIndex);
  expect(dep.address.toRawString()).toBe(fx.meta.depositAddress);
  expect((await keys.wallet("hot")).address.toRawString()).toBe(fx.meta.hotWallet);
  const jw = await chain.jettonWalletAddress(dep.address);
  const calls = srv.calls.length;
  expect((await chain.jettonWalletAddress(dep.address)).equals(jw)).toBe(true);
  expect(srv.calls.length).toBe(calls); // cached: a minter's answer never changes
  expect(await jettonBalance(chain, dep.address)).toBe(BigInt(fx.meta.amounts.deposit));
});

test("the watcher reading of a deposit address: one canonical credit; forgery, native TON and a look-alike jetton are incidents", async () => {
  const dep = Address.parseRaw(fx.meta.depositAddress);
  const txs = await chain.transactions(dep, 0n);
  expect(txs.length).toBe(4);
  expect(txs.map((t) => BigInt(t.lt))).toEqual([...txs.map((t) => BigInt(t.lt))].sort((a, b) => (a < b ? -1 : 1)));
  const ctx = {
    depositAddress: dep,
    canonicalJettonWallet: await chain.jettonWalletAddress(dep),
    hotWallet: Address.parseRaw(fx.meta.hotWallet),
  };
  const verdicts = [];
  for (const tx of txs) {
    let v = classifyDepositTx(tx, ctx);
    if (v.kind === "suspect") v = refineNotification(v, await chain.jettonWalletData(Address.parseRaw(v.src)), chain.usdtMinter(), dep);
    verdicts.push(v);
  }
  expect(verdicts.map((v) => (v.kind === "incident" ? v.incident : v.kind))).toEqual([
    "credit",
    "forged_notification",
    "native_ton",
    "foreign_jetton",
  ]);
  expect(verdicts[0]).toMatchObject({ kind: "credit", amount: BigInt(fx.meta.amounts.deposit) });
  expect(verdicts[1]).toMatchObject({ src: fx.meta.outsider, amount: BigInt(fx.meta.amounts.forged) });
  expect(verdicts[2]).toMatchObject({ amount: BigInt(fx.meta.amounts.nativeTon) });
  // The cursor: nothing after the last one seen.
  expect(await chain.transactions(dep, BigInt(txs[3].lt))).toEqual([]);
  expect((await chain.transactions(dep, BigInt(txs[1].lt))).map((t) => t.hash)).toEqual([txs[2].hash, txs[3].hash]);
});

test("a withdrawal: the signed external the node receives, its transaction found by message hash, the trace followed to the user's jetton wallet", async () => {
  const hot = await keys.wallet("hot");
  const user = Address.parseRaw(fx.meta.user);
  const hotJw = await chain.jettonWalletAddress(hot.address);
  const userJw = await chain.jettonWalletAddress(user);
  const w = fx.meta.withdrawal;
  const sub = await chain.submit(hot, [
    jettonTransferMessage(hotJw, {
      queryId: BigInt(w.queryId),
      amount: BigInt(w.amount),
      destination: user,
      responseTo: hot.address,
      comment: w.comment,
    }),
  ]);
  // What went over the wire: an external to the hot wallet, signed by the hot wallet's key, carrying the jetton transfer.
  const sentBoc = srv.received[srv.received.length - 1];
  const ext = loadMessage(Cell.fromBase64(sentBoc).beginParse());
  expect(ext.info.type).toBe("external-in");
  expect((ext.info as { dest: Address }).dest.equals(hot.address)).toBe(true);
  const s = ext.body.beginParse();
  const signature = s.loadBuffer(64);
  expect(signVerify(s.asCell().hash(), signature, hot.keyPair.publicKey)).toBe(true);
  s.skip(32 + 32); // subwallet id, valid_until
  expect(s.loadUint(32)).toBe(1); // seqno read from the chain
  s.skip(8); // op: simple send
  s.loadUint(8); // send mode
  const inner = loadMessageRelaxed(s.loadRef().beginParse());
  expect((inner.info as { dest: Address }).dest.equals(hotJw)).toBe(true);
  const t = parseTransfer(inner.body);
  expect(t).toMatchObject({ amount: BigInt(w.amount), queryId: BigInt(w.queryId) });
  expect(t!.destination.equals(user)).toBe(true);
  // Found on chain by the message's normalized hash, and delivered hop by hop.
  expect(sub.txHash).toMatch(/^[0-9a-f]{64}$/);
  expect(sub.trace).toBeNull();
  const outcome = await transferOutcome(chain, hot.address, sub, hotJw, userJw);
  expect(outcome).toEqual({ status: "delivered", txHash: sub.txHash });
  expect(await jettonBalance(chain, user)).toBe(BigInt(w.amount));
  const walletTx = await chain.findTransaction(sub.txHash!);
  expect(walletTx?.externalHash).toBe(sub.msgHash);
  expect(parseComment(parseTransferPayload(inner.body))).toBe(w.comment);
});

test("a message the node refuses is refused as CHAIN_REJECTED (certainly not sent)", async () => {
  const hot = await keys.wallet("hot");
  const other = new TonChain({
    keys,
    testnet: true,
    endpoint: srv.url,
    apiKey: fx.meta.apiKey,
    usdtMinter: Address.parseRaw(fx.meta.usdtMinter),
    confirmTimeoutMs: 0,
    now: () => fx.meta.now + 5,
  });
  const hotJw = await other.jettonWalletAddress(hot.address);
  await expect(
    other.submit(hot, [
      jettonTransferMessage(hotJw, { queryId: 8n, amount: 1n, destination: Address.parseRaw(fx.meta.user), responseTo: hot.address }),
    ]),
  ).rejects.toMatchObject({ kind: "rejected", code: "CHAIN_REJECTED" });
});

test("no answer to sendBoc: the outcome is unknown, not refused (the service reconciles by message hash)", async () => {
  const mute = await serveToncenter(fx, { dropSendBoc: true });
  try {
    const hot = await keys.wallet("hot");
    const c = new TonChain({
      keys,
      testnet: true,
      endpoint: mute.url,
      apiKey: fx.meta.apiKey,
      usdtMinter: Address.parseRaw(fx.meta.usdtMinter),
      confirmTimeoutMs: 0,
      now: () => fx.meta.now,
    });
    const hotJw = await c.jettonWalletAddress(hot.address);
    const w = fx.meta.withdrawal;
    const sub = await c.submit(hot, [
      jettonTransferMessage(hotJw, {
        queryId: BigInt(w.queryId),
        amount: BigInt(w.amount),
        destination: Address.parseRaw(fx.meta.user),
        responseTo: hot.address,
        comment: w.comment,
      }),
    ]);
    expect(sub).toMatchObject({ txHash: null, trace: null, validUntil: fx.meta.now + 60 });
    expect(sub.msgHash).toMatch(/^[0-9a-f]{64}$/);
    expect(mute.received).toHaveLength(1);
  } finally {
    await mute.close();
  }
});
