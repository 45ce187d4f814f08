/**
 * A mutually exclusive event (a race) end to end on a real server process, over HTTP and
 * Socket.IO: created by the operator, traded on its markets' books, an outcome added, one outcome
 * resolved NO early, a crash in the middle, the winner resolved as one step (one journal entry
 * settles the step), a second YES refused with nothing changed; the money check after each step.
 */
import { conditionIdFor } from "../../catalog/condition";
import type { ConservationReport } from "../../engine/accounts";
import type { LedgerEntryDoc } from "../../models/trading";
import { ExchangeNode, type User as U } from "../support/exchange-node";
import { connectSocket, type TestSocket } from "../support/socket";

jest.setTimeout(180_000);

const DOMAIN = "race.exchange.test";
const ADMIN_KEY = "race-admin";
const SHARE = 1_000_000;
const admin = { "x-admin-key": ADMIN_KEY };

describe("a race (mutually exclusive event) end to end", () => {
  let ex: ExchangeNode;
  let ws: TestSocket | null = null;

  const until = <T>(what: string, fn: () => Promise<T | null | false>) => ex.until(what, fn);
  const user = () => ex.user();
  const order = (u: U, marketId: string, body: Record<string, unknown>) => ex.order(u, marketId, body);
  /** a buys YES at `price`, b buys NO against it: `q` shares change hands on the book. */
  const trade = async (a: U, b: U, marketId: string, price: number, q: number) => {
    expect((await order(a, marketId, { side: "BUY", outcome: "YES", price, quantity: q * SHARE })).body.data.status).toBe("open");
    const fill = await order(b, marketId, { side: "BUY", outcome: "NO", price: Math.round((1 - price) * 100) / 100, quantity: q * SHARE });
    expect(fill.body.data.status).toBe("filled");
  };
  const event = async (id: string) => (await ex.node.http("GET", `/api/v1/events/${id}`)).body.data;
  /** A user's holdings (marks aside: they follow live prices), in one order whatever order the server lists them in. */
  const positions = async (u: U) =>
    ((await ex.node.http("GET", "/api/v1/positions", { token: u.token })).body.data as Array<Record<string, string>>)
      .map(({ id, quantity, totalCost, lockedQuantity }) => ({ id, quantity, totalCost, lockedQuantity }))
      .sort((x, y) => (x.id < y.id ? -1 : 1));
  const available = async (u: U) => Number((await ex.node.http("GET", "/api/v1/balance", { token: u.token })).body.data.available);
  /** The money check: conservation, locks, complete sets, and the journal's own verification. */
  const moneyChecked = async () => {
    const books = await ex.node.ctl<ConservationReport>({ cmd: "conservation" });
    expect(books).toMatchObject({ ok: true, unbalancedMarkets: [] });
    const verify = await ex.node.call<{ ok: boolean; problems: string[] }>("ledger.verify");
    expect(verify.problems).toEqual([]);
  };
  const journal = async (): Promise<LedgerEntryDoc[]> => {
    const out: LedgerEntryDoc[] = [];
    for (let seq = 0; ;) {
      const page = await ex.node.call<LedgerEntryDoc[]>("ledger.entriesAfter", { seq, limit: 1000 });
      if (!page.length) return out;
      out.push(...page);
      seq = page[page.length - 1].seq;
    }
  };

  beforeAll(async () => {
    ex = await ExchangeNode.start("race", DOMAIN, ADMIN_KEY);
  });
  afterAll(async () => {
    ws?.close();
    await ex?.close();
  });

  test("create, trade, add an outcome, a NO early, a crash, the winner as one step, a second YES refused", async () => {
    // Created: three outcomes, exhaustive ("Other" listed).
    const created = await ex.node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: {
        title: "Club chess championship",
        category: "Culture",
        mutuallyExclusive: true,
        exhaustive: true,
        markets: [
          { title: "Will Anna win the championship?", outcomeLabel: "Anna" },
          { title: "Will Boris win the championship?", outcomeLabel: "Boris" },
          { title: "Will another player win the championship?", outcomeLabel: "Other" },
        ],
      },
    });
    expect(created.status).toBe(201);
    const eventId: string = created.body.data.id;
    const [anna, boris, other] = created.body.data.markets.map((m: { id: string }) => m.id) as string[];
    expect(created.body.data).toMatchObject({ mutuallyExclusive: true, exhaustive: true });
    const refused = await ex.node.http("POST", "/api/v1/admin/events", {
      headers: admin,
      body: { title: "Bad", category: "Culture", mutuallyExclusive: true, markets: [{ title: "A", outcomeLabel: "A" }, { title: "B" }] },
    });
    expect([refused.status, refused.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);

    ws = await connectSocket(ex.node.url, { autoPingMs: 3000 });
    ws.subscribe({ channel: "market", marketIds: [anna, boris, other] });
    await ws.waitFor((m) => m.type === "subscribed");

    // Traded on the books.
    const [a, b] = [await user(), await user()];
    await trade(a, b, anna, 0.6, 10);
    await trade(b, a, boris, 0.3, 10);
    await trade(a, b, other, 0.1, 5);
    await moneyChecked();
    const listed = await until("the prints in the list", async () => {
      const list = (await ex.node.http("GET", "/api/v1/events?category=Culture&pageSize=100")).body.data as Array<Record<string, any>>;
      const row = list.find((e) => e.id === eventId);
      return row && row.outcomes.every((o: { chance: string | null }) => o.chance !== null) && row;
    });
    expect(listed.markets).toEqual([]);
    expect(listed.outcomes.map((o: Record<string, unknown>) => [o.label, o.status, o.chance])).toEqual([
      ["Anna", "open", "0.60"],
      ["Boris", "open", "0.30"],
      ["Other", "open", "0.10"],
    ]);

    // An outcome added while it is open; traded too.
    const added = await ex.node.http("POST", `/api/v1/admin/events/${eventId}/markets`, {
      headers: admin,
      body: { title: "Will Carla win the championship?", outcomeLabel: "Carla" },
    });
    expect(added.status).toBe(201);
    expect(added.body.data).toMatchObject({ eventId, outcomeLabel: "Carla", status: "open" });
    const carla: string = added.body.data.id;
    const first = await order(a, carla, { side: "BUY", outcome: "YES", price: 0.2, quantity: 2 * SHARE });
    expect(first.body.data.status).toBe("open");
    expect((await order(b, carla, { side: "BUY", outcome: "NO", price: 0.8, quantity: 2 * SHARE })).body.data.status).toBe("filled");
    expect((await event(eventId)).outcomes.map((o: { label: string }) => o.label)).toEqual(["Anna", "Boris", "Other", "Carla"]);
    await moneyChecked();

    // Boris drops out: resolved NO alone, the others trade on.
    const early = await ex.node.http("POST", `/api/v1/admin/markets/${boris}/resolve`, { headers: admin, body: { result: "NO" } });
    expect(early.body.data).toMatchObject({ status: "resolved", result: "NO" });
    expect((await event(eventId)).markets.map((m: { status: string }) => m.status)).toEqual(["open", "resolved", "open", "open"]);
    await ws.waitFor((m) => m.type === "lifecycle" && m.data.marketId === boris && m.data.status === "resolved");
    await trade(a, b, anna, 0.7, 1);
    await moneyChecked();

    // A crash in the middle: nothing lost.
    const before = await event(eventId);
    const held = { a: await positions(a), b: await positions(b) };
    ws.close();
    await ex.restart("SIGKILL");
    const after = await event(eventId);
    expect(after.markets.map((m: Record<string, unknown>) => [m.id, m.status, m.result, m.outcomeLabel])).toEqual(
      before.markets.map((m: Record<string, unknown>) => [m.id, m.status, m.result, m.outcomeLabel]),
    );
    expect(await positions(a)).toEqual(held.a);
    expect(await positions(b)).toEqual(held.b);
    await moneyChecked();
    ws = await connectSocket(ex.node.url, { autoPingMs: 3000 });
    ws.subscribe({ channel: "market", marketIds: [anna, other, carla] });
    await ws.waitFor((m) => m.type === "subscribed");

    // The winner: Anna YES, every other undecided market NO, as one step.
    const aBefore = await available(a);
    const won = await ex.node.http("POST", `/api/v1/admin/events/${eventId}/resolve`, { headers: admin, body: { winnerMarketId: anna } });
    expect(won.status).toBe(200);
    expect(won.body.data.markets.map((m: Record<string, unknown>) => [m.outcomeLabel, m.status, m.result])).toEqual([
      ["Anna", "resolved", "YES"],
      ["Boris", "resolved", "NO"],
      ["Other", "resolved", "NO"],
      ["Carla", "resolved", "NO"],
    ]);
    for (const id of [anna, other, carla])
      await ws.waitFor((m) => m.type === "lifecycle" && m.data.marketId === id && m.data.status === "resolved");
    // One journal entry settled the step: the losers of Other and Carla and Anna's NO side, together.
    const step = await until("the step's settlement", async () => {
      const found = (await journal()).filter((e) => e._id === `resolve-event:${eventId}`);
      return found.length > 0 && found;
    });
    expect(step).toHaveLength(1);
    const touched = new Set(step[0].postings.flatMap((p) => ("marketId" in p ? [p.marketId] : [])));
    expect([...touched].sort()).toEqual([anna, other, carla].sort());
    await moneyChecked();

    // A second YES: 409 EVENT_ALREADY_DECIDED, nothing changes.
    const snapshot = JSON.stringify(await event(eventId));
    for (const [path, body] of [
      [`/api/v1/admin/markets/${carla}/resolve`, { result: "YES" }],
      [`/api/v1/admin/events/${eventId}/resolve`, { winnerMarketId: other }],
    ] as const) {
      const second = await ex.node.http("POST", path, { headers: admin, body });
      expect([second.status, second.body.error.code]).toEqual([409, "EVENT_ALREADY_DECIDED"]);
    }
    expect(JSON.stringify(await event(eventId))).toBe(snapshot);
    const none = await ex.node.http("POST", `/api/v1/admin/events/${eventId}/resolve`, { headers: admin, body: { winnerMarketId: null } });
    expect([none.status, none.body.error.code]).toEqual([400, "VALIDATION_ERROR"]);
    await moneyChecked();

    // The winner is paid 1 per share; the losers nothing.
    const redeem = await ex.node.http("POST", `/api/v1/redeem/${anna}`, {
      token: a.token,
      body: { conditionId: conditionIdFor(anna), indexSets: ["0x1"] },
    });
    expect(redeem.body.data).toMatchObject({ status: "accepted", payout: String(11 * SHARE) });
    expect(await available(a)).toBe(aBefore + 11 * SHARE);
    await moneyChecked();

    // Every operator action above is in the audit log.
    const audit = (await ex.node.http("GET", "/api/v1/admin/audit?pageSize=100", { headers: admin })).body.data as Array<{
      action: string;
    }>;
    for (const action of ["adminCreateEvent", "adminAddOutcome", "adminResolveMarket", "adminResolveEvent"])
      expect(audit.some((r) => r.action === action)).toBe(true);
  });
});
