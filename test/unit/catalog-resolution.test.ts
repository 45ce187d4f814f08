/**
 * The resolution process (catalog/resolution.ts rules, catalog/process.ts over the store) with
 * in-memory fakes: every transition and refusal, and the clock's deadlines (close times, dispute
 * windows) on a fake clock, with a restart (new cores on the same stored documents) in between.
 */
import { Catalog, resolutionView, type CatalogEvent, type CatalogOut, type CatalogPorts } from "../../catalog/catalog";
import { ResolutionProcess, type ProcessPorts } from "../../catalog/process";
import {
  ALREADY_DISPUTED,
  DISPUTE_WINDOW_CLOSED,
  NO_PROPOSAL,
  PROPOSAL_PENDING,
  closeDue,
  finalizationDue,
  holdsShares,
  planProposal,
  yesPayoutOfResult,
} from "../../catalog/resolution";
import { renderDispute } from "../../catalog/views";
import type { DisputeDoc, MarketDoc, ResolutionDoc } from "../../models/catalog";
import { Refusal } from "../../engine/refusal";

const T0 = Date.parse("2026-05-01T10:00:00.000Z");
const WINDOW = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();

/** The stored state survives a "restart": only the cores are made again. */
function storage() {
  return { markets: new Map<string, MarketDoc>(), disputes: new Map<string, DisputeDoc>(), clock: { ms: T0 } };
}
type Storage = ReturnType<typeof storage>;

function matches(m: MarketDoc, resolution: Partial<ResolutionDoc> | null | undefined): boolean {
  if (resolution === undefined) return true;
  if (resolution === null) return !m.resolution;
  return !!m.resolution && Object.entries(resolution).every(([k, v]) => m.resolution![k as keyof ResolutionDoc] === v);
}

function cores(st: Storage, holders: Set<string> = new Set(["usr_holder", "usr_other"])) {
  const { markets, disputes, clock } = st;
  const marketPorts: CatalogPorts["markets"] = {
    get: async (id) => markets.get(id) ?? null,
    ofEvent: async (eventId) => [...markets.values()].filter((m) => m.eventId === eventId),
    insertOnce: async (doc) => !markets.has(doc._id) && (markets.set(doc._id, doc), true),
    removeMany: async (ids) => ids.forEach((id) => markets.delete(id)),
    retitle: async () => undefined,
    edit: async (id, _e, set) => void markets.set(id, { ...markets.get(id)!, ...set }),
    setIfStatus: async (id, from, set, resolution) => {
      const m = markets.get(id);
      if (!m || m.status !== from || !matches(m, resolution)) return false;
      markets.set(id, { ...m, ...set });
      return true;
    },
    due: async (nowIso) =>
      [...markets.values()].filter(
        (m) =>
          (m.status === "open" && m.closeTime && m.closeTime <= nowIso) ||
          (m.status === "closed" &&
            m.resolution &&
            m.resolution.finalizedAt === null &&
            !m.resolution.disputed &&
            m.resolution.disputeEndsAt <= nowIso),
      ),
    traded: async () => undefined,
  };
  const log = { info: () => undefined, warn: () => undefined };
  const catalog = new Catalog({
    events: {
      get: async () => null,
      insertOnce: async () => true,
      update: async () => undefined,
      addVolume: async () => undefined,
      decide: async () => true,
    },
    markets: marketPorts,
    prints: { storedIds: async () => [], insertMany: async () => undefined },
    meta: { get: async () => null, insertOnce: async () => true, markDone: async () => undefined },
    newId: (p) => `${p}_x`,
    nodeID: "n",
    now: () => clock.ms,
    log,
  });
  const ports: ProcessPorts = {
    markets: marketPorts,
    events: { update: async () => undefined, decide: async () => true },
    disputes: {
      insertOnce: async (doc) => !disputes.has(doc._id) && (disputes.set(doc._id, doc), true),
      count: async (marketId, proposedAt) =>
        [...disputes.values()].filter((d) => d.marketId === marketId && d.proposedAt === proposedAt).length,
    },
    holds: async (userId) => holders.has(userId),
    windowMs: WINDOW,
    now: () => clock.ms,
    log,
  };
  const told: Array<CatalogEvent | { name: "lifecycle"; status: string; disputes: number | null }> = [];
  const out: CatalogOut = {
    changed: async () => undefined,
    emit: (e) => void told.push(e),
    lifecycle: (p) => void told.push({ name: "lifecycle", status: p.status, disputes: p.resolution?.disputes ?? null }),
  };
  return { catalog, process: new ResolutionProcess(catalog, ports), out, told };
}

function market(over: Partial<MarketDoc> = {}): MarketDoc {
  return {
    _id: "mkt_1",
    eventId: "evt_1",
    position: 0,
    title: "Will it rain?",
    status: "open",
    result: null,
    outcomes: ["YES", "NO"],
    volume: 0,
    conditionId: "0x" + "ab".repeat(32),
    ammLiquidity: "0",
    rules: "YES if it rains",
    settlementSources: [],
    closeTime: null,
    resolution: null,
    createdAt: iso(T0),
    updatedAt: iso(T0),
    ...over,
  };
}

async function refusal(p: Promise<unknown>): Promise<Refusal> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof Refusal)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err;
}

const names = (told: Array<{ name: string }>) => told.map((t) => t.name);

describe("resolution rules", () => {
  test("each result pays YES in full, nothing or half", () => {
    expect([yesPayoutOfResult("YES"), yesPayoutOfResult("NO"), yesPayoutOfResult("SPLIT")]).toEqual([1_000_000, 0, 500_000]);
  });

  test("a proposal on an open market closes it first; on a resolved or cancelled one it is refused", () => {
    const p = planProposal(market(), "YES", null, T0, WINDOW);
    expect(p).toMatchObject({ ok: true, closeFirst: true, resolution: { disputeEndsAt: iso(T0 + WINDOW), disputed: false, disputes: 0 } });
    for (const status of ["resolved", "cancelled", "resolution_failed"] as const)
      expect(planProposal(market({ status }), "YES", null, T0, WINDOW)).toMatchObject({ ok: false, code: "ILLEGAL_TRANSITION" });
  });

  test("a holder has YES or NO shares of that market; none, or shares of another market only, is not one", () => {
    expect(holdsShares([{ marketId: "mkt_1", quantity: 1 }], "mkt_1")).toBe(true);
    expect(
      holdsShares(
        [
          { marketId: "mkt_2", quantity: 5_000_000 },
          { marketId: "mkt_1", quantity: 0 },
        ],
        "mkt_1",
      ),
    ).toBe(false);
    expect(holdsShares([], "mkt_1")).toBe(false);
  });

  test("close and finalization are due at their moment, not before", () => {
    const m = market({ closeTime: iso(T0 + 1000) });
    expect([closeDue(m, T0 + 999), closeDue(m, T0 + 1000)]).toEqual([false, true]);
    expect(closeDue(market({ status: "closed", closeTime: iso(T0) }), T0 + 5000)).toBe(false);
    const r = planProposal(market({ status: "closed" }), "NO", null, T0, WINDOW);
    if (!r.ok) throw new Error("refused");
    const pending = market({ status: "closed", resolution: r.resolution });
    expect([finalizationDue(pending, T0 + WINDOW - 1), finalizationDue(pending, T0 + WINDOW)]).toEqual([false, true]);
    expect(finalizationDue(market({ status: "closed", resolution: { ...r.resolution, disputed: true } }), T0 + 10 * WINDOW)).toBe(false);
  });
});

describe("the resolution process", () => {
  test("propose on an open market: closed first (market.closed), then the proposal with its window", async () => {
    const st = storage();
    st.markets.set("mkt_1", market());
    const { process, out, told } = cores(st);
    const m = await process.propose("mkt_1", "YES", "Rain measured", out);
    expect(m.status).toBe("closed");
    expect(m.resolution).toEqual({
      proposedResult: "YES",
      note: "Rain measured",
      proposedAt: iso(T0),
      disputeEndsAt: iso(T0 + WINDOW),
      disputed: false,
      disputes: 0,
      finalizedAt: null,
    });
    expect(names(told)).toEqual(["lifecycle", "market.closed", "lifecycle", "market.resolutionProposed"]);
    expect(st.markets.get("mkt_1")).toEqual(m);
    // A second proposal while one is pending is refused; nothing changes.
    expect(await refusal(process.propose("mkt_1", "NO", null, out))).toMatchObject({ kind: "conflict", code: PROPOSAL_PENDING });
    expect(st.markets.get("mkt_1")).toEqual(m);
  });

  test("propose on an open market that the clock closes meanwhile still makes the proposal", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ closeTime: iso(T0) }));
    const { process, out } = cores(st);
    // The clock's close lands between the proposal's read and its own close.
    const get = st.markets.get.bind(st.markets);
    let raced = false;
    st.markets.get = (id: string) => {
      const m = get(id);
      if (!raced && m?.status === "open") {
        raced = true;
        st.markets.set(id, { ...m, status: "closed", closedAt: iso(T0) });
      }
      return m;
    };
    const m = await process.propose("mkt_1", "NO", null, out);
    expect(m).toMatchObject({ status: "closed", resolution: { proposedResult: "NO", finalizedAt: null } });
  });

  test("an undisputed proposal finalizes by itself at the window's end, after a restart too, exactly once", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ status: "closed" }));
    await cores(st).process.propose("mkt_1", "SPLIT", null, cores(st).out);
    st.clock.ms = T0 + WINDOW - 1;
    const before = cores(st);
    expect(await before.process.runDeadlines(before.out)).toBe(0);
    // Restart: new cores on the stored documents, the window ended while down.
    st.clock.ms = T0 + WINDOW + 5000;
    const after = cores(st);
    expect(await after.process.runDeadlines(after.out)).toBe(1);
    const m = st.markets.get("mkt_1")!;
    expect(m).toMatchObject({ status: "resolved", result: "SPLIT", yesPayout: 500_000, resolvedAt: iso(st.clock.ms) });
    expect(m.resolution).toMatchObject({ proposedResult: "SPLIT", finalizedAt: iso(st.clock.ms), disputed: false });
    expect(after.told.filter((t) => t.name === "market.resolved")).toEqual([
      { name: "market.resolved", payload: { marketId: "mkt_1", result: "SPLIT", conditionId: m.conditionId, yesPayout: 500_000 } },
    ]);
    // Again: nothing left to do.
    expect(await after.process.runDeadlines(after.out)).toBe(0);
    expect(await cores(st).process.runDeadlines(cores(st).out)).toBe(0);
  });

  test("two clocks on one store (two core nodes sharing MongoDB) close and finalize each market once", async () => {
    const st = storage();
    for (let i = 0; i < 6; i++) st.markets.set(`mkt_c${i}`, market({ _id: `mkt_c${i}`, closeTime: iso(T0 + 1000) }));
    for (let i = 0; i < 6; i++) st.markets.set(`mkt_f${i}`, market({ _id: `mkt_f${i}`, status: "closed" }));
    for (let i = 0; i < 6; i++) await cores(st).process.propose(`mkt_f${i}`, "YES", null, cores(st).out);
    st.clock.ms = T0 + WINDOW + 1;
    const [a, b] = [cores(st), cores(st)];
    await Promise.all([a.process.runDeadlines(a.out), b.process.runDeadlines(b.out), a.process.runDeadlines(a.out)]);
    await Promise.all([b.process.runDeadlines(b.out), a.process.runDeadlines(a.out)]);
    const told = [...a.told, ...b.told];
    const once = (name: string) =>
      told.filter((t) => t.name === name).map((t) => ("payload" in t && "marketId" in t.payload ? t.payload.marketId : ""));
    expect(once("market.closed").sort()).toEqual([0, 1, 2, 3, 4, 5].map((i) => `mkt_c${i}`));
    expect(once("market.resolved").sort()).toEqual([0, 1, 2, 3, 4, 5].map((i) => `mkt_f${i}`));
    for (let i = 0; i < 6; i++) expect(st.markets.get(`mkt_f${i}`)).toMatchObject({ status: "resolved", result: "YES" });
  });

  test("an open market closes by itself at its close time, once, also when the clock runs late (a restart)", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ closeTime: iso(T0 + 1000) }));
    st.markets.set("mkt_2", market({ _id: "mkt_2", closeTime: iso(T0 + 10_000) }));
    const a = cores(st);
    expect(await a.process.runDeadlines(a.out)).toBe(0);
    st.clock.ms = T0 + 3_600_000;
    const b = cores(st);
    expect(await b.process.runDeadlines(b.out)).toBe(2);
    expect(b.told.filter((t) => t.name === "market.closed")).toHaveLength(2);
    expect(st.markets.get("mkt_1")).toMatchObject({ status: "closed", closedAt: iso(T0 + 3_600_000) });
    expect(await b.process.runDeadlines(b.out)).toBe(0);
  });

  test("a holder's dispute stops the automatic finalization; the operator finalizes with an amended result", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ status: "closed" }));
    const { process, out, told } = cores(st);
    await process.propose("mkt_1", "YES", null, out);
    st.clock.ms = T0 + 1000;
    const m = await process.dispute("mkt_1", "usr_holder", "It did not rain at the station", out);
    expect(m.resolution).toMatchObject({ disputed: true, disputes: 1 });
    expect(renderDispute(m, "It did not rain at the station")).toEqual({
      marketId: "mkt_1",
      reason: "It did not rain at the station",
      createdAt: iso(T0 + 1000),
      resolution: resolutionView(m.resolution),
    });
    expect(st.disputes.get(`mkt_1:${iso(T0)}:usr_holder`)).toMatchObject({ reason: "It did not rain at the station", at: iso(T0 + 1000) });
    // A second holder counts too; only the first dispute is announced.
    await process.dispute("mkt_1", "usr_other", "The sensor was broken", out);
    expect(st.markets.get("mkt_1")!.resolution).toMatchObject({ disputed: true, disputes: 2 });
    expect(told.filter((t) => t.name === "market.resolutionDisputed")).toHaveLength(1);
    // The window passes: nothing happens by itself.
    st.clock.ms = T0 + 10 * WINDOW;
    expect(await process.runDeadlines(out)).toBe(0);
    expect(st.markets.get("mkt_1")!.status).toBe("closed");
    const done = await process.finalize("mkt_1", "NO", out);
    expect(done).toMatchObject({ status: "resolved", result: "NO", yesPayout: 0 });
    expect(done.resolution).toMatchObject({ proposedResult: "YES", finalizedAt: iso(st.clock.ms), disputes: 2 });
    expect(await refusal(process.finalize("mkt_1", "NO", out))).toMatchObject({ code: NO_PROPOSAL });
  });

  test("dispute refusals: no proposal, not a holder, window over, twice; none changes anything", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ status: "closed" }));
    const { process, out } = cores(st);
    expect(await refusal(process.dispute("mkt_1", "usr_holder", "wrong result here", out))).toMatchObject({
      kind: "conflict",
      code: NO_PROPOSAL,
    });
    await process.propose("mkt_1", "YES", null, out);
    const proposed = st.markets.get("mkt_1");
    expect(await refusal(process.dispute("mkt_1", "usr_stranger", "wrong result here", out))).toMatchObject({
      kind: "forbidden",
      code: "FORBIDDEN",
    });
    expect(st.markets.get("mkt_1")).toEqual(proposed);
    await process.dispute("mkt_1", "usr_holder", "wrong result here", out);
    const once = st.markets.get("mkt_1");
    expect(await refusal(process.dispute("mkt_1", "usr_holder", "wrong again, really", out))).toMatchObject({ code: ALREADY_DISPUTED });
    expect(st.markets.get("mkt_1")).toEqual(once);
    st.clock.ms = T0 + WINDOW;
    expect(await refusal(process.dispute("mkt_1", "usr_other", "too late for this one", out))).toMatchObject({
      code: DISPUTE_WINDOW_CLOSED,
    });
    expect(st.disputes.size).toBe(1);
    // After finalization the window is closed for everyone.
    await process.finalize("mkt_1", "YES", out);
    expect(await refusal(process.dispute("mkt_1", "usr_other", "too late for this one", out))).toMatchObject({
      code: DISPUTE_WINDOW_CLOSED,
    });
  });

  test("a dispute stored before a crash is counted by the retry, which then answers ALREADY_DISPUTED", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ status: "closed" }));
    const { process, out } = cores(st);
    await process.propose("mkt_1", "YES", null, out);
    // The dispute document was written, the market's count was not (the crash).
    st.disputes.set(`mkt_1:${iso(T0)}:usr_holder`, {
      _id: `mkt_1:${iso(T0)}:usr_holder`,
      marketId: "mkt_1",
      proposedAt: iso(T0),
      userId: "usr_holder",
      reason: "it did not rain",
      at: iso(T0),
    });
    const again = cores(st);
    expect(await refusal(again.process.dispute("mkt_1", "usr_holder", "it did not rain", again.out))).toMatchObject({
      code: ALREADY_DISPUTED,
    });
    expect(st.markets.get("mkt_1")!.resolution).toMatchObject({ disputed: true, disputes: 1 });
    st.clock.ms = T0 + WINDOW;
    expect(await again.process.runDeadlines(again.out)).toBe(0);
  });

  test("finalize without a proposal, and on an open market, is refused; resolve stays immediate and ends a pending proposal", async () => {
    const st = storage();
    st.markets.set("mkt_1", market());
    st.markets.set("mkt_2", market({ _id: "mkt_2", status: "closed" }));
    const { process, out } = cores(st);
    expect(await refusal(process.finalize("mkt_1", "YES", out))).toMatchObject({ code: NO_PROPOSAL });
    expect(st.markets.get("mkt_1")!.status).toBe("open");
    // Immediate resolution of an open market: no window, no proposal.
    expect(await process.resolve("mkt_1", "SPLIT", out)).toMatchObject({
      status: "resolved",
      result: "SPLIT",
      yesPayout: 500_000,
      resolution: null,
    });
    await process.propose("mkt_2", "YES", null, out);
    const m = await process.resolve("mkt_2", "NO", out);
    expect(m).toMatchObject({ status: "resolved", result: "NO", resolution: { proposedResult: "YES", finalizedAt: iso(T0) } });
    st.clock.ms = T0 + WINDOW;
    expect(await process.runDeadlines(out)).toBe(0);
  });

  test("a proposal whose market was marked resolution_failed ends with the operator's retry of resolve", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ status: "closed" }));
    const { process, out, catalog } = cores(st);
    await process.propose("mkt_1", "YES", null, out);
    await catalog.transition("mkt_1", "failResolution", out, { reason: "oracle down" });
    st.clock.ms = T0 + WINDOW;
    expect(await process.runDeadlines(out)).toBe(0);
    expect(await refusal(process.finalize("mkt_1", "YES", out))).toMatchObject({ code: NO_PROPOSAL });
    expect(await process.resolve("mkt_1", "YES", out)).toMatchObject({ status: "resolved", resolution: { finalizedAt: iso(T0 + WINDOW) } });
  });

  test("a dispute landing between the finalizer's read and its write wins: the market stays closed", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ status: "closed" }));
    const { process, out, catalog } = cores(st);
    await process.propose("mkt_1", "YES", null, out);
    st.clock.ms = T0 + WINDOW;
    const m = st.markets.get("mkt_1")!;
    // The dispute's write happens after the clock read the market as undisputed.
    st.markets.set("mkt_1", { ...m, resolution: { ...m.resolution!, disputed: true, disputes: 1 } });
    expect(
      await refusal(
        catalog.transition("mkt_1", "resolve", out, { result: "YES", expect: { proposedAt: m.resolution!.proposedAt, disputed: false } }),
      ),
    ).toMatchObject({ kind: "conflict" });
    expect(st.markets.get("mkt_1")!.status).toBe("closed");
  });

  test("cancel with a pending proposal ends the market without a result; the clock leaves it", async () => {
    const st = storage();
    st.markets.set("mkt_1", market({ status: "closed" }));
    const { process, out, catalog } = cores(st);
    await process.propose("mkt_1", "YES", null, out);
    await catalog.transition("mkt_1", "cancel", out, { price: "0.30" });
    st.clock.ms = T0 + WINDOW;
    expect(await process.runDeadlines(out)).toBe(0);
    expect(st.markets.get("mkt_1")).toMatchObject({ status: "cancelled", result: null, yesPayout: 300_000 });
    expect(await refusal(process.finalize("mkt_1", "YES", out))).toMatchObject({ code: NO_PROPOSAL });
  });
});
