/**
 * Rules, schedule and the resolution process over real HTTP on the sandbox chain: a market with
 * rules and a close time closes by itself (its resting orders cancelled, reason market_closed); a
 * proposal finalizes by itself when its short window ends undisputed; a holder's dispute stops it
 * and the operator's amended result is what pays; a non-holder's dispute is 403; SPLIT pays half to
 * each side from the market's own collateral, and the money check holds after each test.
 */
import { conditionIdFor } from "../../catalog/condition";
import type { VerifyReport } from "../../models/trading";
import type { TestServer } from "../support/server";
import { ADMIN_KEY, SHARE } from "../support/trading";
import { balance, expectChainConserved, faucet, startChainServer, waitFor } from "../support/chain";
import { connectSocket } from "../support/socket";

jest.setTimeout(120_000);

type U = { token: string; userId: string };
/** Long enough for a dispute over HTTP on a busy machine, short enough to wait for. */
const WINDOW_MS = 3_000;
const admin = { "x-admin-key": ADMIN_KEY };

describe("rules, close time and the resolution process", () => {
  let srv: TestServer;

  beforeAll(async () => {
    srv = await startChainServer({ RESOLUTION_DISPUTE_WINDOW_MS: String(WINDOW_MS), RESOLUTION_CLOCK_MS: "100" });
  });
  afterAll(() => srv.stop());
  afterEach(async () => {
    await expectChainConserved(srv.broker);
    expect((await srv.broker.call<VerifyReport>("ledger.verify")).problems).toEqual([]);
  });

  const funded = async (usdt: number): Promise<U> => {
    const u = await srv.login();
    expect((await faucet(srv, u.token, String(usdt * SHARE))).status).toBe(202);
    await waitFor("deposit credit", async () => (await balance(srv, u.token)).available === String(usdt * SHARE));
    return u;
  };
  const create = async (market: Record<string, unknown>) => {
    const res = await srv.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: { title: "Weather", category: "Culture", markets: [market] },
    });
    return res;
  };
  const order = (u: U, marketId: string, body: Record<string, unknown>) =>
    srv.http("POST", "/api/v1/orders", { token: u.token, body: { marketId, orderType: "GTC", ...body } });
  const market = async (id: string) => (await srv.http("GET", `/api/v1/markets/${id}`)).body.data;
  const propose = (id: string, body: Record<string, unknown>) =>
    srv.http("POST", `/api/v1/admin/markets/${id}/propose`, { headers: admin, body });
  const finalize = (id: string, body: Record<string, unknown>) =>
    srv.http("POST", `/api/v1/admin/markets/${id}/finalize`, { headers: admin, body });
  const dispute = (u: U, id: string, reason = "The station reported no rain at all") =>
    srv.http("POST", `/api/v1/markets/${id}/disputes`, { token: u.token, body: { reason } });
  const redeem = (u: U, id: string, indexSets: string[]) =>
    srv.http("POST", `/api/v1/redeem/${id}`, { token: u.token, body: { conditionId: conditionIdFor(id), indexSets } });
  const available = async (u: U) => Number((await balance(srv, u.token)).available);
  const notifications = async (u: U) =>
    (await srv.http("GET", "/api/v1/notifications", { token: u.token })).body.data as Array<{ type: string }>;

  /** A market where `yes` holds 10 YES bought at 0.40 and `no` 10 NO at 0.60 (one trade, maker and taker). */
  const traded = async (title: string) => {
    const created = await create({ title });
    const id = created.body.data.markets[0].id as string;
    const [yes, no] = [await funded(20), await funded(20)];
    expect((await order(yes, id, { side: "BUY", outcome: "YES", price: 0.4, quantity: 10 * SHARE })).body.data.status).toBe("open");
    expect((await order(no, id, { side: "BUY", outcome: "NO", price: 0.6, quantity: 10 * SHARE })).body.data.status).toBe("filled");
    return { id, yes, no };
  };

  test("a market with rules and sources closes by itself at its close time; its resting orders are cancelled (market_closed)", async () => {
    const u = await funded(5);
    const closeTime = new Date(Date.now() + 4_000).toISOString();
    const sources = [{ name: "Met Office", url: "https://www.metoffice.gov.uk/" }];
    const res = await create({
      title: "Rain in London at noon?",
      rules: "YES if any rain is recorded at Heathrow 12:00-13:00 UTC.",
      settlementSources: sources,
      closeTime,
    });
    expect(res.status).toBe(201);
    const m = res.body.data.markets[0];
    expect(m).toMatchObject({
      status: "open",
      rules: "YES if any rain is recorded at Heathrow 12:00-13:00 UTC.",
      settlementSources: sources,
      closeTime,
      resolution: null,
    });
    const resting = await order(u, m.id, { side: "BUY", outcome: "YES", price: 0.3, quantity: 5 * SHARE });
    expect(resting.body.data.status).toBe("open");

    await waitFor("the close", async () => (await market(m.id)).status === "closed", 20_000);
    await waitFor("the order's cancel", async () => {
      const o = (await srv.http("GET", `/api/v1/orders?status=all`, { token: u.token })).body.data.find(
        (x: { id: string }) => x.id === resting.body.data.orderId,
      );
      return o?.status === "cancelled" && o.cancelReason === "market_closed";
    });
    await waitFor("the lock released", async () => (await available(u)) === 5 * SHARE);
    // Closed once: a new order is refused, the close is not repeated.
    expect((await order(u, m.id, { side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE })).status).toBeGreaterThanOrEqual(400);
    expect((await srv.http("POST", `/api/v1/admin/markets/${m.id}/close`, { headers: admin })).status).toBe(409);
  });

  test("bad rules, sources or close time are a 400 and create nothing", async () => {
    for (const bad of [
      { rules: "x".repeat(4001) },
      { closeTime: "tomorrow" },
      { settlementSources: [{ name: "No url" }] },
      { settlementSources: [{ name: "Bad url", url: "not a url" }] },
    ]) {
      const res = await create({ title: "Refused?", ...bad });
      expect([res.status, res.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    }
  });

  test("an undisputed proposal finalizes by itself when its window ends: resolved YES, the winner redeems", async () => {
    const { id, yes, no } = await traded("Will the proposal stand?");
    const before = await available(yes);
    const res = await propose(id, { result: "YES", note: "Rain recorded" });
    expect(res.status).toBe(200);
    const r = res.body.data.resolution;
    expect(res.body.data.status).toBe("closed");
    expect(r).toMatchObject({ proposedResult: "YES", note: "Rain recorded", disputed: false, disputes: 0, finalizedAt: null });
    expect(Date.parse(r.disputeEndsAt) - Date.parse(r.proposedAt)).toBe(WINDOW_MS);
    expect((await propose(id, { result: "NO" })).status).toBe(409);
    await waitFor("holders told", async () => (await notifications(no)).some((n) => n.type === "RESOLUTION_PROPOSED"));

    const done = await waitFor(
      "the finalization",
      async () => {
        const m = await market(id);
        return m.status === "resolved" ? m : null;
      },
      20_000,
    );
    expect(done).toMatchObject({ result: "YES", resolution: { proposedResult: "YES", disputed: false } });
    expect(Date.parse(done.resolution.finalizedAt)).toBeGreaterThanOrEqual(Date.parse(r.disputeEndsAt));
    expect((await redeem(yes, id, ["0x1"])).body.data).toMatchObject({ status: "accepted", payout: String(10 * SHARE) });
    expect(await available(yes)).toBe(before + 10 * SHARE);
    // Too late to dispute now.
    expect((await dispute(no, id)).body.error.code).toBe("DISPUTE_WINDOW_CLOSED");
    await waitFor("MARKET_RESOLVED", async () => (await notifications(no)).some((n) => n.type === "MARKET_RESOLVED"));
  });

  test("a holder's dispute stops the finalization; a non-holder's is 403; the operator's amended result is what pays", async () => {
    const { id, yes, no } = await traded("Will the dispute win?");
    const stranger = await srv.login();
    const ws = await connectSocket(srv.url, { autoPingMs: 3000 });
    ws.subscribe({ channel: "market", marketIds: [id] });
    await ws.waitFor((m) => m.type === "subscribed");
    expect((await propose(id, { result: "YES" })).status).toBe(200);

    const refused = await dispute(stranger, id);
    expect([refused.status, refused.body.error.code]).toEqual([403, "FORBIDDEN"]);
    const short = await dispute(no, id, "too short");
    expect([short.status, short.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    const ok = await dispute(no, id);
    expect(ok.status).toBe(201);
    expect(ok.body.data).toMatchObject({ marketId: id, resolution: { disputed: true, disputes: 1 } });
    expect((await dispute(no, id)).body.error.code).toBe("ALREADY_DISPUTED");
    await waitFor("holders told of the dispute", async () => (await notifications(yes)).some((n) => n.type === "RESOLUTION_DISPUTED"));

    // The window passes: the disputed proposal waits for the operator.
    const ends = Date.parse((await market(id)).resolution.disputeEndsAt);
    await waitFor("the window's end", async () => Date.now() > ends + 1_000, 20_000);
    expect((await market(id)).status).toBe("closed");

    const yesBefore = await available(yes);
    const noBefore = await available(no);
    const amended = await finalize(id, { result: "NO" });
    expect(amended.status).toBe(200);
    expect(amended.body.data).toMatchObject({
      status: "resolved",
      result: "NO",
      resolution: { proposedResult: "YES", disputed: true, disputes: 1 },
    });
    expect(amended.body.data.resolution.finalizedAt).not.toBeNull();
    // The market channel told each change: closed, proposed, disputed, resolved.
    await ws.waitFor((m) => m.type === "lifecycle" && m.data.status === "resolved");
    const lifecycle = ws.since(0, (m) => m.type === "lifecycle").map((m) => (m.type === "lifecycle" ? m.data : null));
    expect(
      lifecycle.map((d) => [d?.marketId, d?.status, d?.resolution?.disputes ?? null, d?.resolution?.finalizedAt ? "final" : null]),
    ).toEqual([
      [id, "closed", null, null],
      [id, "closed", 0, null],
      [id, "closed", 1, null],
      [id, "resolved", 1, "final"],
    ]);
    ws.close();
    expect((await finalize(id, { result: "YES" })).body.error.code).toBe("NO_PROPOSAL");
    expect((await redeem(no, id, ["0x2"])).body.data).toMatchObject({ status: "accepted", payout: String(10 * SHARE) });
    expect((await redeem(yes, id, ["0x1"])).body.error.code).toBe("LOSING_POSITION");
    expect([await available(no), await available(yes)]).toEqual([noBefore + 10 * SHARE, yesBefore]);
  });

  test("SPLIT pays 0.50 per YES and per NO share from the market's own collateral; fees and the house untouched", async () => {
    const { id, yes, no } = await traded("Will it be a tie?");
    const books = () => srv.broker.call<{ fees: number; house: number; ok: boolean }>("ledger.conservation");
    const start = await books();
    const [ay, an] = [await available(yes), await available(no)];
    expect((await propose(id, { result: "SPLIT" })).body.data.resolution.proposedResult).toBe("SPLIT");
    const res = await finalize(id, { result: "SPLIT" });
    expect(res.body.data).toMatchObject({ status: "resolved", result: "SPLIT" });
    await waitFor("the payout", async () => (await available(yes)) === ay + 5 * SHARE && (await available(no)) === an + 5 * SHARE);
    // Either index set acknowledges it; nothing is paid twice.
    expect((await redeem(yes, id, ["0x2"])).body.data).toMatchObject({ status: "accepted", payout: String(5 * SHARE) });
    expect((await redeem(no, id, ["0x1", "0x2"])).body.data).toMatchObject({ status: "accepted", payout: String(5 * SHARE) });
    expect((await redeem(no, id, ["0x2"])).body.data.status).toBe("duplicate");
    expect(await available(no)).toBe(an + 5 * SHARE);
    const end = await books();
    expect([end.fees, end.house, end.ok]).toEqual([start.fees, start.house, true]);
  });
});
