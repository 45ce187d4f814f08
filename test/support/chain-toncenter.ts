/**
 * Recorded toncenter v2 responses for the `ton` adapter, served on loopback.
 *
 * No network is reachable where these tests run, so the responses were not captured from testnet:
 * `recordToncenterFixture()` plays a scenario on @ton/sandbox (real TVM execution of the real
 * jetton contracts, deterministic keys and clock) and writes every answer the adapter needs in
 * toncenter's JSON-RPC shapes (getAddressInformation, runGetMethod, getTransactions, sendBoc,
 * tryLocateResultTx) to test/fixtures/ton/toncenter.json. `serveToncenter()` answers from that file
 * the way toncenter does, over real HTTP. Re-record with `RECORD_TON_FIXTURES=1 npx jest test/unit/chain-ton`.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Address, beginCell, Cell, external, internal, SendMode, storeMessage, type Transaction, type TupleItem } from "@ton/core";
import { Blockchain, type BlockchainTransaction, type SandboxContract, type TreasuryContract } from "@ton/sandbox";
import { KeyRing } from "../../chain/keys";
import { contentCell, minterAddress, minterInit, mintBody, OP } from "../../chain/jetton";
import { jettonTransferMessage } from "../../chain/operations";
import { MESSAGE_TTL_SEC } from "../../chain/keys";

export const FIXTURE_FILE = "test/fixtures/ton/toncenter.json";

export interface ToncenterFixture {
  recordedWith: string;
  meta: {
    masterSecret: string;
    apiKey: string;
    /** Clock of the recording (unix s): the adapter must sign with it to reproduce the same message. */
    now: number;
    usdtMinter: string;
    foreignMinter: string;
    outsider: string;
    hotWallet: string;
    depositIndex: number;
    depositAddress: string;
    user: string;
    withdrawal: { queryId: string; amount: string; comment: string };
    amounts: { deposit: string; forged: string; nativeTon: string; foreign: string; hotFloat: string };
  };
  accounts: Record<string, unknown>;
  getMethods: Array<{ address: string; method: string; stack: string; result: unknown; afterSend?: string }>;
  transactions: Array<{ account: string; lt: string; tx: unknown; afterSend?: string }>;
  locate: Array<{ source: string; destination: string; createdLt: string; result: unknown; afterSend?: string }>;
  /** Externals the node accepts (base64 BOC): anything else is refused as toncenter refuses it. */
  sendBoc: string[];
}

const raw = (a: string) => Address.parse(a).toRawString();

/** Key of a runGetMethod call: address, method, and stack with slices reduced to cell hashes. */
export function getMethodKey(address: string, method: string, stack: unknown[]): string {
  const norm = (stack ?? []).map((e) => {
    const [t, v] = e as [string, string];
    if (t === "tvm.Slice" || t === "tvm.Cell") return [t, Cell.fromBase64(v).hash().toString("hex")];
    return [t, v];
  });
  return `${raw(address)}|${method}|${JSON.stringify(norm)}`;
}

// ---- rendering sandbox results in toncenter's shapes --------------------------------------------

function stackEntry(i: TupleItem): unknown {
  switch (i.type) {
    case "int":
      return ["num", i.value < 0n ? "-0x" + (-i.value).toString(16) : "0x" + i.value.toString(16)];
    case "cell":
    case "slice":
    case "builder":
      return ["cell", { bytes: i.cell.toBoc().toString("base64"), object: {} }];
    case "null":
      return ["null", null];
    default:
      return ["tuple", { "@type": "tvm.tuple", elements: [] }];
  }
}

function renderMessage(m: Transaction["inMessage"]): unknown {
  if (!m) return undefined;
  const info = m.info;
  const body = m.body;
  return {
    "@type": "raw.message",
    source: info.type === "internal" ? info.src.toString() : info.type === "external-out" ? info.src.toString() : "",
    destination: info.type === "external-out" ? "" : info.dest.toString(),
    value: info.type === "internal" ? info.value.coins.toString() : "0",
    fwd_fee: info.type === "internal" ? info.forwardFee.toString() : "0",
    ihr_fee: info.type === "internal" ? info.ihrFee.toString() : "0",
    created_lt: info.type === "external-in" ? "0" : info.createdLt.toString(),
    body_hash: body.hash().toString("base64"),
    msg_data: { "@type": "msg.dataRaw", body: body.toBoc().toString("base64"), init_state: "" },
    message: "",
  };
}

export function renderTransaction(tx: Transaction): unknown {
  const d = tx.description;
  const storage = d.type === "generic" && d.storagePhase ? d.storagePhase.storageFeesCollected : 0n;
  return {
    "@type": "raw.transaction",
    address: {
      "@type": "accountAddress",
      account_address: tx.inMessage && tx.inMessage.info.type !== "external-out" ? tx.inMessage.info.dest.toString() : "",
    },
    utime: tx.now,
    data: tx.raw.toBoc().toString("base64"),
    transaction_id: { "@type": "internal.transactionId", lt: tx.lt.toString(), hash: tx.hash().toString("base64") },
    fee: tx.totalFees.coins.toString(),
    storage_fee: storage.toString(),
    other_fee: (tx.totalFees.coins - storage).toString(),
    in_msg: renderMessage(tx.inMessage),
    out_msgs: tx.outMessages.values().map((m) => renderMessage(m)),
  };
}

// ---- recording ------------------------------------------------------------------------------------

export async function recordToncenterFixture(): Promise<ToncenterFixture> {
  const now = 1_767_225_600; // 2026-01-01T00:00:00Z
  const masterSecret = "5e".repeat(32);
  const keys = new KeyRing(masterSecret);
  const bc = await Blockchain.create();
  bc.verbosity = { print: false, blockchainLogs: false, vmLogs: "none", debugLogs: false };
  bc.now = now;
  const faucet: SandboxContract<TreasuryContract> = await bc.treasury("recording-faucet");
  const outsider = await bc.treasury("recording-outsider");
  const usdtContent = contentCell("recording:USDT");
  const foreignContent = contentCell("recording:FOREIGN_USDT");
  const usdt = minterAddress(faucet.address, usdtContent);
  const foreign = minterAddress(faucet.address, foreignContent);
  await faucet.send({ to: usdt, value: 500_000_000n, init: minterInit(faucet.address, usdtContent), bounce: false });
  await faucet.send({ to: foreign, value: 500_000_000n, init: minterInit(faucet.address, foreignContent), bounce: false });
  const hot = await keys.wallet("hot");
  const registry = await keys.wallet("registry");
  const deposit = await keys.deposit(3);
  const user = Address.parseRaw("0:" + "a1".repeat(32));
  const txs: Array<{ tx: BlockchainTransaction; afterSend?: string }> = [];
  const keep = (list: BlockchainTransaction[], afterSend?: string) => list.forEach((tx) => txs.push({ tx, afterSend }));
  let q = 1000n;
  const mint = async (minter: Address, to: Address, amount: bigint, forwardTon: bigint) =>
    keep(
      (
        await faucet.send({
          to: minter,
          value: 200_000_000n,
          body: mintBody({ queryId: q++, to, amount, responseTo: faucet.address, forwardTon, walletTon: 100_000_000n }, minter),
        })
      ).transactions,
    );

  // Hot wallet: TON float, deployed by a first transfer (seqno 0 -> 1), 100 USDT.
  keep((await faucet.send({ to: hot.address, value: 10_000_000_000n, bounce: false })).transactions);
  const first = hot.contract.createTransfer({
    seqno: 0,
    secretKey: hot.keyPair.secretKey,
    messages: [internal({ to: registry.address, value: 10_000_000n, bounce: false })],
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    timeout: now + MESSAGE_TTL_SEC,
  });
  keep((await bc.sendMessage(external({ to: hot.address, init: hot.contract.init, body: first }))).transactions);
  await mint(usdt, hot.address, 100_000_000n, 0n);

  // The deposit address: a real USDT deposit, a forgery, native TON, a look-alike jetton.
  await mint(usdt, deposit.address, 5_000_000n, 1n);
  const forged = beginCell()
    .storeUint(OP.transferNotification, 32)
    .storeUint(0, 64)
    .storeCoins(1_000_000_000n)
    .storeAddress(outsider.address)
    .storeBit(false)
    .endCell();
  keep((await outsider.send({ to: deposit.address, value: 50_000_000n, body: forged, bounce: false })).transactions);
  keep((await faucet.send({ to: deposit.address, value: 2_000_000_000n, bounce: false })).transactions);
  await mint(foreign, deposit.address, 7_000_000n, 1n);

  const getMethods: ToncenterFixture["getMethods"] = [];
  const addGet = async (address: Address, method: string, args: TupleItem[], afterSend?: string) => {
    const res = await bc
      .runGetMethod(address, method, args)
      .catch((err: { exitCode?: number }) => ({ exitCode: err?.exitCode ?? 11, stack: [] as TupleItem[], gasUsed: 0n }));
    const wire = args.map((a) =>
      a.type === "slice"
        ? ["tvm.Slice", a.cell.toBoc().toString("base64")]
        : a.type === "int"
          ? ["num", a.value.toString()]
          : ["tvm.Cell", (a as { cell: Cell }).cell.toBoc().toString("base64")],
    );
    getMethods.push({
      address: address.toRawString(),
      method,
      stack: getMethodKey(address.toRawString(), method, wire),
      result: {
        "@type": "smc.runResult",
        gas_used: Number(res.gasUsed ?? 0),
        stack: res.exitCode === 0 || res.exitCode === 1 ? res.stack.map(stackEntry) : [],
        exit_code: res.exitCode,
      },
      ...(afterSend ? { afterSend } : {}),
    });
  };
  const slice = (a: Address): TupleItem => ({ type: "slice", cell: beginCell().storeAddress(a).endCell() });
  const walletOf = async (owner: Address, minter = usdt) =>
    (await bc.runGetMethod(minter, "get_wallet_address", [slice(owner)])).stackReader.readAddress();
  for (const owner of [deposit.address, hot.address, user]) await addGet(usdt, "get_wallet_address", [slice(owner)]);
  await addGet(await walletOf(deposit.address, foreign), "get_wallet_data", []);
  await addGet(outsider.address, "get_wallet_data", []);
  await addGet(await walletOf(deposit.address), "get_wallet_data", []);
  await addGet(hot.address, "seqno", []);

  const info = async (a: Address) => {
    const c = await bc.getContract(a);
    const st = c.accountState;
    const last =
      c.lastTransactionLt > 0n
        ? {
            lt: c.lastTransactionLt.toString(),
            hash: Buffer.from(c.lastTransactionHash.toString(16).padStart(64, "0"), "hex").toString("base64"),
          }
        : { lt: "0", hash: "" };
    return {
      "@type": "raw.fullAccountState",
      balance: c.balance.toString(),
      code: st?.type === "active" && st.state.code ? st.state.code.toBoc().toString("base64") : "",
      data: st?.type === "active" && st.state.data ? st.state.data.toBoc().toString("base64") : "",
      last_transaction_id: { "@type": "internal.transactionId", ...last },
      block_id: {
        "@type": "ton.blockIdExt",
        workchain: -1,
        shard: "-9223372036854775808",
        seqno: 1000,
        root_hash: Buffer.alloc(32).toString("base64"),
        file_hash: Buffer.alloc(32).toString("base64"),
      },
      frozen_hash: "",
      sync_utime: now,
      state: st?.type === "active" ? "active" : st?.type === "frozen" ? "frozen" : "uninitialized",
    };
  };
  const accounts: Record<string, unknown> = {
    [hot.address.toRawString()]: await info(hot.address),
    [deposit.address.toRawString()]: await info(deposit.address),
  };

  // The withdrawal exactly as TonChain.submit signs it at `now` (seqno 1): executed here, then served.
  const hotJw = await walletOf(hot.address);
  const userJw = await walletOf(user);
  const withdrawal = { queryId: "7", amount: "2000000", comment: "withdrawal wd_fixture" };
  const msg = jettonTransferMessage(hotJw, {
    queryId: BigInt(withdrawal.queryId),
    amount: BigInt(withdrawal.amount),
    destination: user,
    responseTo: hot.address,
    comment: withdrawal.comment,
  });
  const body = hot.contract.createTransfer({
    seqno: 1,
    secretKey: hot.keyPair.secretKey,
    messages: [msg],
    sendMode: SendMode.PAY_GAS_SEPARATELY,
    timeout: now + MESSAGE_TTL_SEC,
  });
  const ext = external({ to: hot.address, init: null, body });
  const boc = beginCell().store(storeMessage(ext)).endCell().toBoc().toString("base64");
  const sent = await bc.sendMessage(ext);
  keep(sent.transactions, boc);
  await addGet(userJw, "get_wallet_data", [], boc);

  const byHash = new Map(txs.map((t) => [t.tx.hash().toString("hex"), t]));
  const locate: ToncenterFixture["locate"] = [];
  for (const t of sent.transactions) {
    const parent = t.parent;
    if (!parent || t.inMessage?.info.type !== "internal") continue;
    locate.push({
      source: t.inMessage.info.src.toRawString(),
      destination: t.inMessage.info.dest.toRawString(),
      createdLt: t.inMessage.info.createdLt.toString(),
      result: renderTransaction(t),
      afterSend: byHash.get(t.hash().toString("hex"))?.afterSend,
    });
  }

  return {
    recordedWith: "@ton/sandbox emulation of the standard jetton contracts (no network); toncenter v2 JSON-RPC shapes",
    meta: {
      masterSecret,
      apiKey: "recorded-api-key",
      now,
      usdtMinter: usdt.toRawString(),
      foreignMinter: foreign.toRawString(),
      outsider: outsider.address.toRawString(),
      hotWallet: hot.address.toRawString(),
      depositIndex: 3,
      depositAddress: deposit.address.toRawString(),
      user: user.toRawString(),
      withdrawal,
      amounts: { deposit: "5000000", forged: "1000000000", nativeTon: "2000000000", foreign: "7000000", hotFloat: "100000000" },
    },
    accounts,
    getMethods,
    transactions: txs
      .filter((t) => t.tx.inMessage && t.tx.inMessage.info.type !== "external-out")
      .map((t) => ({
        account: (t.tx.inMessage!.info as { dest: Address }).dest.toRawString(),
        lt: t.tx.lt.toString(),
        tx: renderTransaction(t.tx),
        ...(t.afterSend ? { afterSend: t.afterSend } : {}),
      })),
    locate,
    sendBoc: [boc],
  };
}

// ---- serving ------------------------------------------------------------------------------------

export interface ToncenterServer {
  url: string;
  /** Every JSON-RPC call received, in order. */
  calls: Array<{ method: string; params: Record<string, unknown>; apiKey: string | undefined }>;
  /** Externals received (base64), accepted or not. */
  received: string[];
  close(): Promise<void>;
}

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let s = "";
    req.setEncoding("utf8");
    req.on("data", (c) => (s += c));
    req.on("end", () => resolve(s));
    req.on("error", reject);
  });
}

export async function serveToncenter(fx: ToncenterFixture, opts: { dropSendBoc?: boolean } = {}): Promise<ToncenterServer> {
  const calls: ToncenterServer["calls"] = [];
  const received: string[] = [];
  const accepted = new Set<string>();
  const visible = (afterSend?: string) => !afterSend || accepted.has(afterSend);
  const server: Server = createServer(async (req, res) => {
    const reply = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    if (req.method !== "POST") return reply(405, { ok: false, error: "Method not allowed", code: 405 });
    const apiKey = req.headers["x-api-key"] as string | undefined;
    let rpc: { method: string; params: Record<string, unknown> };
    try {
      rpc = JSON.parse(await body(req));
    } catch {
      return reply(422, { ok: false, error: "invalid JSON", code: 422 });
    }
    calls.push({ method: rpc.method, params: rpc.params, apiKey });
    if (apiKey !== fx.meta.apiKey) return reply(401, { ok: false, error: "API key does not exist", code: 401 });
    const p = rpc.params ?? {};
    const ok = (result: unknown) => reply(200, { ok: true, result, "@extra": `${Date.now()}:0:0.1` });
    switch (rpc.method) {
      case "getAddressInformation": {
        const a = fx.accounts[raw(String(p.address))];
        if (a) return ok(a);
        return ok({
          "@type": "raw.fullAccountState",
          balance: "0",
          code: "",
          data: "",
          last_transaction_id: { "@type": "internal.transactionId", lt: "0", hash: Buffer.alloc(32).toString("base64") },
          block_id: { "@type": "ton.blockIdExt", workchain: -1, shard: "-9223372036854775808", seqno: 1000, root_hash: "", file_hash: "" },
          frozen_hash: "",
          sync_utime: fx.meta.now,
          state: "uninitialized",
        });
      }
      case "runGetMethod": {
        const key = getMethodKey(String(p.address), String(p.method), (p.stack as unknown[]) ?? []);
        const hit = fx.getMethods.filter((g) => g.stack === key && visible(g.afterSend)).pop();
        if (hit) return ok(hit.result);
        return ok({ "@type": "smc.runResult", gas_used: 0, stack: [], exit_code: -13 });
      }
      case "getTransactions": {
        const account = raw(String(p.address));
        let list = fx.transactions
          .filter((t) => t.account === account && visible(t.afterSend))
          .sort((a, b) => (BigInt(b.lt) > BigInt(a.lt) ? 1 : -1));
        if (p.lt) list = list.filter((t) => BigInt(t.lt) <= BigInt(String(p.lt)));
        return ok(list.slice(0, Number(p.limit ?? 10)).map((t) => t.tx));
      }
      case "tryLocateResultTx": {
        const hit = fx.locate.find(
          (l) =>
            l.source === raw(String(p.source)) &&
            l.destination === raw(String(p.destination)) &&
            l.createdLt === String(p.created_lt) &&
            visible(l.afterSend),
        );
        if (hit) return ok(hit.result);
        return reply(500, { ok: false, error: "LITE_SERVER_UNKNOWN: transaction not found", code: 500 });
      }
      case "sendBoc": {
        const boc = String(p.boc);
        received.push(boc);
        // A connection that dies without an answer: the client cannot know whether it went through.
        if (opts.dropSendBoc) return void req.socket.destroy();
        if (fx.sendBoc.includes(boc)) {
          accepted.add(boc);
          return ok({ "@type": "ok" });
        }
        return reply(500, {
          ok: false,
          error: "LITE_SERVER_UNKNOWN: cannot apply external message to current state : External message was not accepted",
          code: 500,
        });
      }
      default:
        return reply(404, { ok: false, error: `method ${rpc.method} not recorded`, code: 404 });
    }
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v2/jsonRPC`,
    calls,
    received,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
