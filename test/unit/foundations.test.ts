import {
  checkFoundations,
  DERIVATION_SAMPLE,
  FINGERPRINT,
  ranHere,
  type ChainStateInfo,
  type FoundationFiles,
  type FoundationPorts,
  type MoneyFacts,
  type PieceReader,
} from "../../ledger/foundations";
import { StoreDamaged } from "../../ledger/store";

function reader<T extends { _id: string }>(where: string, docs: T[]): PieceReader<T> {
  const byId = new Map(docs.map((d) => [d._id, d]));
  return { where, byIds: async (ids) => new Map(ids.filter((id) => byId.has(id)).map((id) => [id, byId.get(id)!])) };
}

const addressAt = (index: number) => `0:dep${index}`;
const made: string[] = [];

/** Piece files per service: those that exist, those absent; `make` notes what it was asked to create. */
function files(existing: Record<string, string[]>, present: string[], missing: Record<string, string[]> = {}): FoundationFiles {
  const services = [...new Set([...Object.keys(existing), ...Object.keys(missing)])];
  return {
    services: services.map((service) => ({ service, existing: existing[service] ?? [], missing: missing[service] ?? [] })),
    present,
    damaged: [],
    make: async (paths) => void made.push(...paths),
  };
}

/** A data dir that has run, healthy: two users with money, one market, one depositor, a chain. */
function world(over: { facts?: Partial<MoneyFacts>; fingerprints?: Record<string, string>; state?: ChainStateInfo; hot?: string } = {}) {
  const recorded = new Map(Object.entries(over.fingerprints ?? {}));
  const derived: number[] = [];
  const facts: MoneyFacts = {
    fresh: false,
    users: ["usr_a", "usr_b"],
    markets: ["mkt_1"],
    depositors: ["usr_a"],
    chainUsed: true,
    ...over.facts,
  };
  const ports: FoundationPorts = {
    money: {
      location: "/d/money.db",
      facts: async () => facts,
      fingerprint: async (name) => recorded.get(name) ?? null,
      recordFingerprint: async (name, value) => void recorded.set(name, value),
    },
    files: files({ auth: ["/d/users.db"], catalog: ["/d/markets.db"] }, ["/d/users.db", "/d/markets.db"]),
    users: reader("/d/users.db", [{ _id: "usr_a" }, { _id: "usr_b" }]),
    markets: reader("/d/markets.db", [{ _id: "mkt_1", eventId: "evt_1" }]),
    events: reader("/d/events.db", [{ _id: "evt_1" }]),
    depositAddresses: reader("/d/depositAddresses.db", [{ _id: "usr_a", index: 0, address: addressAt(0) }]),
    chain: {
      where: "/d/chain",
      state: async () => over.state ?? { kind: "present", genesis: "2026-01-01T00:00:00.000Z" },
      hotWallet: async () => over.hot ?? "0:hot",
      depositAddress: async (i) => {
        derived.push(i);
        return addressAt(i);
      },
    },
  };
  made.length = 0;
  return { ports, recorded, derived, made };
}

async function refusal(ports: FoundationPorts): Promise<string> {
  const err = await checkFoundations(ports).then(
    () => null,
    (e: Error) => e,
  );
  expect(err).toBeInstanceOf(StoreDamaged);
  return err!.message;
}

describe("the start check of what the money store vouches for", () => {
  test("a healthy data dir passes and records the fingerprints it sees first; later ones are kept, not overwritten", async () => {
    const w = world();
    await checkFoundations(w.ports);
    expect(Object.fromEntries(w.recorded)).toEqual({
      [FINGERPRINT.hotWallet]: "0:hot",
      [FINGERPRINT.genesis]: "2026-01-01T00:00:00.000Z",
      [ranHere("auth")]: "1",
      [ranHere("catalog")]: "1",
    });
    expect(w.derived).toEqual([0]);
    await checkFoundations(w.ports);
    expect(w.recorded.size).toBe(4);
  });

  test("a fresh data dir with nothing in it starts; no chain yet records only the master secret's fingerprint", async () => {
    const w = world({ facts: { fresh: true, users: [], markets: [], depositors: [], chainUsed: false }, state: { kind: "absent" } });
    // An empty piece file (made by an earlier start that stopped before its services ran) is not data.
    w.ports.files = files({ auth: ["/d/sessions.db"] }, [], { auth: ["/d/users.db"] });
    expect((await checkFoundations(w.ports)).fresh).toBe(true);
    expect(w.made).toEqual(["/d/users.db"]);
    expect(Object.fromEntries(w.recorded)).toEqual({ [FINGERPRINT.hotWallet]: "0:hot", [ranHere("auth")]: "1" });
  });

  test("a fresh money store beside files of an earlier run is a lost money store", async () => {
    const w = world({ facts: { fresh: true, users: [], markets: [], depositors: [], chainUsed: false }, state: { kind: "absent" } });
    expect(await refusal(w.ports)).toMatch(
      /the money store \/d\/money\.db is missing while the data dir holds \/d\/users\.db, \/d\/markets\.db/,
    );
    expect(w.recorded.size).toBe(0);
  });

  test("a piece file missing or damaged in a data dir that has run", async () => {
    const w = world();
    w.ports.files = files({ auth: ["/d/users.db"] }, [], { auth: ["/d/sessions.db"] });
    w.ports.files.damaged.push({ file: "/d/users.db", why: "line 3 is not a document" });
    const m = await refusal(w.ports);
    expect(m).toMatch(/^2 problems: \(1\) \/d\/sessions\.db is missing from a data dir that has run/);
    expect(m).toMatch(/\(2\) \/d\/users\.db is damaged \(line 3 is not a document\)/);
    expect(w.recorded.size).toBe(0);
  });

  test("a service new to a data dir that has run gets its pieces; once recorded, a missing one stops the start", async () => {
    const w = world();
    w.ports.files = files({ auth: ["/d/users.db"] }, ["/d/users.db"], { chain: ["/d/depositAddresses.db", "/d/withdrawals.db"] });
    await checkFoundations(w.ports);
    expect(w.made).toEqual(["/d/depositAddresses.db", "/d/withdrawals.db"]);
    expect(w.recorded.get(ranHere("chain"))).toBe("1");
    w.ports.files = files({ auth: ["/d/users.db"] }, ["/d/users.db"], { chain: ["/d/withdrawals.db"] });
    expect(await refusal(w.ports)).toMatch(/^\/d\/withdrawals\.db is missing from a data dir that has run/);
    // Some of a service's files without the rest, never recorded: it ran here before the record existed.
    const older = world();
    older.ports.files = files({ chain: ["/d/depositAddresses.db"] }, [], { chain: ["/d/withdrawals.db"] });
    expect(await refusal(older.ports)).toMatch(/^\/d\/withdrawals\.db is missing/);
  });

  test("users the money store holds money for are missing: named (the first three, then a count)", async () => {
    const w = world({ facts: { users: ["usr_a", "usr_b", "usr_c", "usr_d", "usr_e", "usr_f"] } });
    expect(await refusal(w.ports)).toMatch(
      /\/d\/users\.db lacks 4 user\(s\) the money store holds balances or orders for \(usr_c, usr_d, usr_e and 1 more\)/,
    );
  });

  test("markets with money missing, and the events of the markets found", async () => {
    let w = world({ facts: { markets: ["mkt_1", "mkt_2"] } });
    expect(await refusal(w.ports)).toMatch(/\/d\/markets\.db lacks 1 market\(s\) .*\(mkt_2\): their orders could not be cancelled/);
    w = world();
    w.ports.events = reader("/d/events.db", []);
    expect(await refusal(w.ports)).toMatch(/\/d\/events\.db lacks 1 event\(s\) of markets with money in them \(evt_1\)/);
  });

  test("a depositor without a deposit address; an address the master secret does not derive", async () => {
    let w = world({ facts: { depositors: ["usr_a", "usr_b"] } });
    expect(await refusal(w.ports)).toMatch(
      /depositAddresses\.db lacks the deposit address of 1 user\(s\) credited by on-chain deposits \(usr_b\)/,
    );
    w = world();
    w.ports.depositAddresses = reader("/d/depositAddresses.db", [{ _id: "usr_a", index: 0, address: "0:elsewhere" }]);
    expect(await refusal(w.ports)).toMatch(
      /deposit addresses in \/d\/depositAddresses\.db do not derive from the configured chain master secret \(users usr_a\)/,
    );
  });

  test("only a sample of the deposit addresses is derived at start", async () => {
    const ids = Array.from({ length: DERIVATION_SAMPLE + 10 }, (_, i) => `usr_${i}`);
    const w = world({ facts: { depositors: ids } });
    w.ports.depositAddresses = reader(
      "/d/depositAddresses.db",
      ids.map((id, i) => ({ _id: id, index: i, address: addressAt(i) })),
    );
    await checkFoundations(w.ports);
    expect(w.derived.length).toBe(DERIVATION_SAMPLE);
  });

  test("another master secret than the recorded one: one message, the addresses are not re-derived under it", async () => {
    const w = world({ fingerprints: { [FINGERPRINT.hotWallet]: "0:hot" }, hot: "0:other" });
    const m = await refusal(w.ports);
    expect(m).toMatch(
      /^the chain master secret is not the one this data was created with: its hot wallet is 0:other, the money store knows 0:hot/,
    );
    expect(w.derived).toEqual([]);
    expect(w.recorded.get(FINGERPRINT.hotWallet)).toBe("0:hot");
  });

  test("the chain state: damaged; missing after money moved through it or after it was recorded; another genesis", async () => {
    expect(await refusal(world({ state: { kind: "damaged", why: "sandbox-state.json is not readable" } }).ports)).toMatch(
      /the sandbox chain state \/d\/chain is damaged \(sandbox-state\.json is not readable\)/,
    );
    expect(await refusal(world({ state: { kind: "absent" } }).ports)).toMatch(
      /\/d\/chain is missing while the money store holds money that came through it/,
    );
    const recorded = world({
      facts: { chainUsed: false, depositors: [] },
      state: { kind: "absent" },
      fingerprints: { [FINGERPRINT.genesis]: "g1" },
    });
    expect(await refusal(recorded.ports)).toMatch(/\/d\/chain is missing/);
    expect(
      await refusal(world({ state: { kind: "present", genesis: "g2" }, fingerprints: { [FINGERPRINT.genesis]: "g1" } }).ports),
    ).toMatch(/\/d\/chain is another chain \(created g2\) than the one the money store knows \(created g1\)/);
    // Nothing moved through a chain never recorded: a new one is no loss.
    await checkFoundations(world({ facts: { chainUsed: false, depositors: [] }, state: { kind: "absent" } }).ports);
  });

  test("pieces this node does not keep are not checked (a cluster node without them)", async () => {
    const w = world();
    delete w.ports.users;
    delete w.ports.markets;
    delete w.ports.depositAddresses;
    delete w.ports.chain;
    w.ports.files = files({}, []);
    await checkFoundations(w.ports);
    expect(w.recorded.size).toBe(0);
  });
});
