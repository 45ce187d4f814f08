/**
 * POST /events/:id/convert's action on a real ServiceBroker: the ledger service with its real
 * embedded SQLite store under a temp dir, the catalog faked as a service answering the event, what
 * the ledger broadcasts heard by a listener. One entry per conversion; a refusal posts nothing; the
 * conversion and the books survive a restart of the service on the same dir.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type ServiceBroker, type Context, type ServiceSchema } from "moleculer";
import { AuthGuard } from "../../mixins/guard.middleware";
import type { SessionUser } from "../../mixins/context";
import LedgerService from "../../services/ledger.service";
import type { EventInternal, MarketInternal } from "../../models/catalog";
import type { MoneyCheck, VerifyReport } from "../../models/trading";
import type { Posting } from "../../engine/accounts";
import { until } from "../support/until";
import { serviceBroker } from "../support/service-broker";

const H: SessionUser = { id: "usr_h", wallet: "0:" + "h".repeat(64), sid: "ses_h", exp: 2e9 };
const as = (u: SessionUser) => ({ meta: { user: u } });
const SHARE = 1_000_000;

const market = (id: string, status: MarketInternal["status"] = "open"): MarketInternal => ({
  id,
  eventId: "evt_r",
  title: id,
  status,
  result: null,
  conditionId: "0x",
  ammLiquidity: "0",
});

describe("ledger.convert", () => {
  let broker: ServiceBroker;
  let dir: string;
  const heard: Array<{ name: string; params: any }> = [];
  let event: EventInternal;

  const listener: ServiceSchema = {
    name: "listener",
    events: {
      // A commit's changes arrive together, as the events of one broadcast.
      "ledger.committed"(ctx: Context<{ events: Array<{ name: string; payload: unknown }> }>) {
        for (const e of ctx.params.events) heard.push({ name: e.name, params: e.payload });
      },
    },
  };
  const fakeCatalog: ServiceSchema = {
    name: "catalog",
    actions: {
      getEventInternal: () => event,
      marketTitles: (ctx: Context<{ marketIds: string[] }>) =>
        Object.fromEntries(ctx.params.marketIds.map((id) => [id, { title: id, status: "open" }])),
    },
  };
  const start = async (env: Record<string, string> = {}) => {
    broker = serviceBroker({ DATA_DIR: dir, ...env }, [listener, fakeCatalog, LedgerService], { middlewares: [AuthGuard] });
    await broker.start();
  };
  const post = (key: string, postings: Posting[]) => broker.call("ledger.post", { key, postings });

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "pmx-convert-svc-"));
    event = { id: "evt_r", mutuallyExclusive: true, exhaustive: false, ammLiquidity: "0", markets: ["A", "B", "C"].map((m) => market(m)) };
    await start({ CONVERSION_FEE_BPS: "100" });
    await post("dep", [
      { kind: "cash", account: "usr_y", available: 100 * SHARE },
      { kind: "external", flow: "deposit", amount: 100 * SHARE },
    ]);
    for (const m of ["A", "B"])
      await post(`mint:${m}`, [
        { kind: "cash", account: "usr_y", available: -10 * SHARE },
        { kind: "collateral", marketId: m, amount: 10 * SHARE },
        { kind: "shares", account: "usr_y", marketId: m, outcome: "YES", quantity: 10 * SHARE },
        { kind: "shares", account: H.id, marketId: m, outcome: "NO", quantity: 10 * SHARE },
      ]);
  });
  afterAll(async () => {
    await broker?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test("NO of A and B become cash less the fee and YES of C; the user's balance and positions are broadcast", async () => {
    heard.length = 0;
    const r = await broker.call("ledger.convert", { id: "evt_r", marketIds: ["A", "B"], quantity: String(4 * SHARE) }, as(H));
    const fee = Math.ceil((4 * SHARE * 100) / 10_000);
    expect(r).toEqual({
      eventId: "evt_r",
      quantity: String(4 * SHARE),
      marketIds: ["A", "B"],
      cashCredited: String(4 * SHARE - fee),
      yesReceived: [{ marketId: "C", quantity: String(4 * SHARE) }],
    });
    expect(await broker.call("ledger.balance", {}, as(H))).toMatchObject({ available: String(4 * SHARE - fee) });
    // Told after the commit, which may come a moment after the answer.
    const balanceNote = await until("the balance change", () =>
      heard.find((h) => h.name === "ledger.balanceChanged" && h.params.userId === H.id),
    );
    expect(balanceNote?.params.balance.available).toBe(String(4 * SHARE - fee));
    await until(
      "the position changes",
      () => heard.filter((h) => h.name === "ledger.positionChanged" && h.params.userId === H.id).length >= 3,
    );
    const moved = heard
      .filter((h) => h.name === "ledger.positionChanged" && h.params.userId === H.id)
      .map((h) => h.params.position.marketId);
    expect(moved.sort()).toEqual(["A", "B", "C"]);
    expect((await broker.call<MoneyCheck>("ledger.conservation")).ok).toBe(true);
  });

  test("refusals: a market that is not open, a plan beyond the free NO; nothing posted", async () => {
    const before = await broker.call<MoneyCheck>("ledger.conservation");
    event = { ...event, markets: [market("A"), market("B", "closed"), market("C")] };
    await expect(broker.call("ledger.convert", { id: "evt_r", marketIds: ["A", "B"], quantity: "100" }, as(H))).rejects.toMatchObject({
      code: 409,
      type: "MARKET_NOT_OPEN",
    });
    event = { ...event, markets: ["A", "B", "C"].map((m) => market(m)) };
    await expect(
      broker.call("ledger.convert", { id: "evt_r", marketIds: ["A", "B"], quantity: String(7 * SHARE) }, as(H)),
    ).rejects.toMatchObject({ code: 400, type: "INSUFFICIENT_SHARES" });
    expect(await broker.call<MoneyCheck>("ledger.conservation")).toEqual(before);
  });

  test("after a restart on the same dir: the same books, and a replay of the journal agrees", async () => {
    const before = await broker.call("ledger.account", { account: "conversion:evt_r" });
    await broker.stop();
    await start({ CONVERSION_FEE_BPS: "100" });
    expect(await broker.call("ledger.account", { account: "conversion:evt_r" })).toEqual(before);
    const v = await broker.call<VerifyReport>("ledger.verify");
    expect(v.problems).toEqual([]);
  });
});
