import { Accounts } from "../../engine/accounts";
import { conversionAccount } from "../../engine/conversion";
import { convertPositions, type ConversionPorts } from "../../ledger/conversions";
import type { EventInternal, MarketInternal } from "../../models/catalog";
import type { PostInput } from "../../models/trading";

const U = "usr_h";
const market = (id: string, status: MarketInternal["status"] = "open"): MarketInternal => ({
  id,
  eventId: "evt",
  title: id,
  status,
  result: null,
  conditionId: "0x",
  ammLiquidity: "0",
});

function setup(event: Partial<EventInternal> = {}) {
  const a = new Accounts();
  a.apply([
    { kind: "external", flow: "deposit", amount: 100 },
    { kind: "cash", account: "usr_y", available: 100 },
  ]);
  for (const m of ["A", "B", "C"])
    a.apply([
      { kind: "cash", account: "usr_y", available: -10 },
      { kind: "collateral", marketId: m, amount: 10 },
      { kind: "shares", account: "usr_y", marketId: m, outcome: "YES", quantity: 10 },
      { kind: "shares", account: U, marketId: m, outcome: "NO", quantity: 10 },
    ]);
  const posted: PostInput[] = [];
  const ports: ConversionPorts = {
    event: async () => ({
      id: "evt",
      mutuallyExclusive: true,
      exhaustive: false,
      ammLiquidity: "0",
      markets: [market("A"), market("B"), market("C"), market("D"), market("E", "resolved")],
      ...event,
    }),
    positionsOf: (account) => a.positionsOf(account),
    post: async (entry) => {
      posted.push(entry);
      a.apply(entry.postings);
      return { applied: true, seq: posted.length, instance: "i" };
    },
    feeBps: 0,
    newId: () => `n${posted.length}`,
  };
  return { a, posted, ports };
}

describe("conversion requests", () => {
  test("one entry with its record and the key's answer; YES of the other open markets only", async () => {
    const { a, posted, ports } = setup();
    const idem = { scope: U, key: "k", fingerprint: "f", status: 200 };
    const answer = await convertPositions(ports, { userId: U, eventId: "evt", marketIds: ["A", "B", "C"], quantity: "4" }, idem);
    expect(answer).toEqual({
      eventId: "evt",
      quantity: "4",
      marketIds: ["A", "B", "C"],
      cashCredited: "8",
      yesReceived: [{ marketId: "D", quantity: "4" }],
    });
    expect(posted).toHaveLength(1);
    expect(posted[0].conversion).toEqual({
      eventId: "evt",
      userId: U,
      marketIds: ["A", "B", "C"],
      otherOpen: ["D"],
      quantity: 4,
      feeBps: 0,
    });
    expect(posted[0].idem).toEqual({ ...idem, response: answer });
    expect(a.balance(U).available).toBe(8);
    expect(a.balance(conversionAccount("evt")).available).toBe(-12);
    expect(a.conservation().ok).toBe(true);
  });

  test("refusals name the rule and post nothing", async () => {
    const cases: Array<[Partial<EventInternal>, string[], string, string]> = [
      [{ mutuallyExclusive: false }, ["A"], "4", "EVENT_NOT_MUTUALLY_EXCLUSIVE"],
      [{}, ["A", "E"], "4", "MARKET_NOT_OPEN"],
      [{}, ["A", "Z"], "4", "VALIDATION_ERROR"],
      [{}, ["A", "A"], "4", "VALIDATION_ERROR"],
      [{}, [], "4", "VALIDATION_ERROR"],
      [{}, ["A", "B"], "11", "INSUFFICIENT_SHARES"],
      [{}, ["A", "D"], "1", "INSUFFICIENT_SHARES"],
    ];
    for (const [event, marketIds, quantity, code] of cases) {
      const { posted, ports } = setup(event);
      await expect(convertPositions(ports, { userId: U, eventId: "evt", marketIds, quantity })).rejects.toMatchObject({ code });
      expect(posted).toEqual([]);
    }
  });
});
