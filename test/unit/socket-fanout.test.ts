/**
 * The socket fan-out without socket.io (gateway/socket-fanout.ts): a market's book and price
 * changes coalesced and written once per socket with the frames of all its rooms, each message
 * encoded once, snapshot floors honoured, unchanged prices not pushed, users' updates to their room.
 */
import { SocketFanout, type FanoutPorts } from "../../gateway/socket-fanout";
import { encodedMessage, type Batch } from "../../gateway/socket-direct";
import { rooms, type ServerMessage } from "../../gateway/socket-protocol";

function fanout(extra: Partial<FanoutPorts> = {}) {
  const members = new Map<string, Set<string>>();
  const writes: Array<{ id: string; frames: any[] }> = [];
  const toRoom: Array<{ room: string; msg: ServerMessage }> = [];
  let encoded = 0;

  const ports: FanoutPorts = {
    members: (room) => members.get(room),
    encode: (msg) => {
      encoded++;
      return encodedMessage(JSON.stringify(msg));
    },
    write: (id, batch: Batch) => {
      writes.push({ id, frames: batch.msgs.map((m) => JSON.parse(m.packet)) });
      return "websocket";
    },
    toRoom: (room, msg) => toRoom.push({ room, msg }),
    counted: () => undefined,
    coalesceMs: 5,
    ...extra,
  };
  const f = new SocketFanout(ports);
  const join = (id: string, ...names: string[]) => {
    for (const r of names) {
      if (!members.has(r)) members.set(r, new Set());
      members.get(r)!.add(id);
    }
  };
  const settle = () => new Promise((r) => setTimeout(r, 30));

  return { f, join, writes, toRoom, encodedCount: () => encoded, settle };
}

const book = (seq: number, bid: string) => ({
  marketId: "mkt",
  seq,
  yes: { bids: [{ price: bid, quantity: "1000000", numOrders: 1 }], asks: [] },
});
const prices = (yesBid: number | null) => ({ marketId: "mkt", yesBid, yesAsk: null, ammYes: null });

describe("socket fan-out", () => {
  test("a market's latest book and prices go out together: one write per socket with its rooms' frames, each frame encoded once", async () => {
    const t = fanout();
    t.join("s1", rooms.book("mkt", "YES"), rooms.market("mkt"));
    t.join("s2", rooms.book("mkt", "NO"));
    t.f.book(book(1, "0.40"));
    t.f.book(book(2, "0.41"));
    t.f.prices(prices(41));
    await t.settle();
    expect(t.encodedCount()).toBe(3);
    const byId = Object.fromEntries(t.writes.map((w) => [w.id, w.frames]));
    expect(t.writes).toHaveLength(2);
    expect((byId.s1 as Array<{ channel: string; seq?: number }>).map((m) => [m.channel, m.seq])).toEqual([
      ["book", 2],
      ["market", undefined],
    ]);
    expect((byId.s2 as Array<{ outcome: string; data: { asks: Array<{ price: string }> } }>)[0]).toMatchObject({
      outcome: "NO",
      data: { asks: [{ price: "0.59" }] },
    });
    // The same best prices again: nothing to push.
    t.writes.length = 0;
    t.f.prices(prices(41));
    await t.settle();
    expect(t.writes).toEqual([]);
  });

  test("a market whose pool is its event's: a book change after a pool trade pushes the pool's last price with the book", async () => {
    const t = fanout();
    t.join("s1", rooms.market("mkt"));
    t.f.prices({ marketId: "mkt", yesBid: 37, yesAsk: 39, ammYes: { num: "380000", den: "1000000" } });
    await t.settle();
    t.f.prices({ marketId: "mkt", yesBid: 36, yesAsk: 39, ammYes: null });
    await t.settle();
    const pushed = t.writes.flatMap((w) => w.frames.map((f) => f.data));
    expect(pushed.map((d) => [d.buyYesPrice, d.sellYesPrice])).toEqual([["0.38", "0.38"]]);
    // Only the pool moves the price here; a book level behind it changes nothing that is shown.
    t.f.prices({ marketId: "mkt", yesBid: 36, yesAsk: 37, ammYes: null });
    await t.settle();
    const after = t.writes.flatMap((w) => w.frames.map((f) => f.data));
    expect(after.map((d) => [d.buyYesPrice, d.sellYesPrice])).toEqual([
      ["0.38", "0.38"],
      ["0.37", "0.38"],
    ]);
  });

  test("a gateway that heard no pool trade yet asks the pool's price once, and pushes it with the book (as REST shows it)", async () => {
    const asked: string[] = [];
    let answer: (v: { num: string; den: string } | null) => void = () => undefined;
    const t = fanout({
      poolPrice: (marketId) => {
        asked.push(marketId);
        return new Promise((r) => (answer = r));
      },
    });
    t.join("s1", rooms.market("mkt"));
    t.f.prices({ marketId: "mkt", yesBid: 36, yesAsk: 39, ammYes: null });
    t.f.prices({ marketId: "mkt", yesBid: 35, yesAsk: 39, ammYes: null });
    await t.settle();
    // Nothing pushed before the pool's price is known: a book-only price would not be the market's.
    expect(t.writes).toEqual([]);
    answer({ num: "380000", den: "1000000" });
    await t.settle();
    expect(asked).toEqual(["mkt"]);
    const pushed = t.writes.flatMap((w) => w.frames).map((m) => m.data);
    expect(pushed).toEqual([{ marketId: "mkt", buyYesPrice: "0.38", buyNoPrice: "0.62", sellYesPrice: "0.38", sellNoPrice: "0.62" }]);
    // Known from now on: no second question.
    t.f.prices({ marketId: "mkt", yesBid: 34, yesAsk: 39, ammYes: null });
    await t.settle();
    expect(asked).toEqual(["mkt"]);

    // A market without an event pool: asked once, book-only prices from then on.
    t.join("s1", rooms.market("plain"));
    t.f.prices({ marketId: "plain", yesBid: 40, yesAsk: 45, ammYes: null });
    answer(null);
    await t.settle();
    t.f.prices({ marketId: "plain", yesBid: 41, yesAsk: 45, ammYes: null });
    await t.settle();
    expect(asked).toEqual(["mkt", "plain"]);
    expect(
      t.writes
        .flatMap((w) => w.frames)
        .filter((m) => m.data.marketId === "plain")
        .map((m) => m.data.sellYesPrice),
    ).toEqual(["0.40", "0.41"]);
  });

  test("a pool trade heard while the pool's price is asked for is newer: the answer does not replace it", async () => {
    let answer: (v: { num: string; den: string } | null) => void = () => undefined;
    const t = fanout({ poolPrice: () => new Promise((r) => (answer = r)) });
    t.join("s1", rooms.market("mkt"));
    t.f.prices({ marketId: "mkt", yesBid: 36, yesAsk: 39, ammYes: null });
    t.f.prices({ marketId: "mkt", yesBid: 36, yesAsk: 39, ammYes: { num: "420000", den: "1000000" } });
    answer({ num: "380000", den: "1000000" });
    await t.settle();
    t.f.prices({ marketId: "mkt", yesBid: 30, yesAsk: 39, ammYes: null });
    await t.settle();
    const pushed = t.writes.flatMap((w) => w.frames).map((m) => m.data.buyYesPrice);
    expect(pushed).toEqual(["0.39"]);
    expect(t.writes.flatMap((w) => w.frames).every((m) => m.data.sellYesPrice === "0.42")).toBe(true);
  });

  test("a socket's snapshot floor: updates up to it are not sent again, the first newer one is and lifts it", async () => {
    const t = fanout();
    t.join("s1", rooms.book("mkt", "YES"));
    t.f.setFloor(rooms.book("mkt", "YES"), "s1", 5);
    t.f.book(book(5, "0.40"));
    await t.settle();
    expect(t.writes).toEqual([]);
    t.f.book(book(6, "0.42"));
    await t.settle();
    expect(t.writes.map((w) => w.id)).toEqual(["s1"]);
    expect(t.f.floorRooms).toBe(0);
    // An older seq than the newest heard is dropped.
    t.f.book(book(4, "0.10"));
    expect(t.f.lastBook.get("mkt")?.seq).toBe(6);
  });

  test("users: balances coalesced (latest wins), orders as they come, nothing for a user nobody listens to", async () => {
    const t = fanout();
    t.join("s1", rooms.user("usr_a"));
    const balance = (available: string) => ({ userId: "usr_a", balance: { available, locked: "0", total: available } });
    t.f.balance(balance("1"));
    t.f.balance(balance("2"));
    t.f.balance({ ...balance("3"), userId: "usr_b" });
    t.f.order({
      orderId: "ord_1",
      userId: "usr_a",
      marketId: "mkt",
      status: "open",
      remainingQuantity: "1",
      filledDelta: "0",
      clientOrderId: null,
      cancelReason: null,
    });
    expect(t.toRoom.map((x) => Object.keys((x.msg as { data: object }).data))).toEqual([["order"]]);
    await t.settle();
    expect(t.toRoom.map((x) => x.room)).toEqual([rooms.user("usr_a"), rooms.user("usr_a")]);
    expect(t.toRoom[1].msg).toEqual({ type: "update", channel: "user", data: { balance: { available: "2", locked: "0", total: "2" } } });
    t.f.clear();
  });
});

describe("the public tape on the market channel", () => {
  type Rec = Parameters<SocketFanout["tape"]>[0][number];
  const at = "2026-01-02T03:04:05.000Z";
  const rec = (r: Partial<Rec> & Pick<Rec, "role" | "side" | "outcome" | "filledQuantity" | "totalCost" | "fillIds">): Rec => ({
    tradeId: `trd_${r.role}_${r.fillIds.join("_")}`,
    userId: `usr_${r.role}`,
    marketId: "mkt",
    orderId: `ord_${r.role}`,
    venue: "CLOB",
    fee: 0,
    totalCostDecimal: "0",
    at,
    ...r,
  });
  const tradesTo = (t: ReturnType<typeof fanout>, room: string) =>
    t.toRoom.filter((x) => x.room === room && x.msg.type === "trade").map((x) => (x.msg as { data: unknown }).data);

  test("a taker crossing two makers: two executions, each once (not once per party), on the taker's side, to the market's subscribers only", () => {
    const t = fanout();
    t.join("s1", rooms.market("mkt"));
    t.join("s2", rooms.market("other"));
    t.f.tape([
      rec({ role: "maker", side: "SELL", outcome: "YES", filledQuantity: 10_000_000, totalCost: 5_200_000, fillIds: ["fil_1"] }),
      rec({ role: "maker", side: "SELL", outcome: "YES", filledQuantity: 4_000_000, totalCost: 2_120_000, fillIds: ["fil_2"] }),
      rec({ role: "taker", side: "BUY", outcome: "YES", filledQuantity: 14_000_000, totalCost: 7_320_000, fillIds: ["fil_1", "fil_2"] }),
    ]);
    expect(tradesTo(t, rooms.market("mkt"))).toEqual([
      { marketId: "mkt", tradeId: "fil_1", outcome: "YES", side: "BUY", price: "0.52", quantity: "10000000", yesPrice: "0.52", at },
      { marketId: "mkt", tradeId: "fil_2", outcome: "YES", side: "BUY", price: "0.53", quantity: "4000000", yesPrice: "0.53", at },
    ]);
    expect(t.toRoom.filter((x) => x.room !== rooms.market("mkt"))).toEqual([]);
  });

  test("a mint (BUY NO against a YES bid) is told in the taker's outcome, its YES price the maker's", () => {
    const t = fanout();
    t.join("s1", rooms.market("mkt"));
    t.f.tape([
      rec({ role: "maker", side: "BUY", outcome: "YES", filledQuantity: 2_000_000, totalCost: 800_000, fillIds: ["fil_1"] }),
      rec({ role: "taker", side: "BUY", outcome: "NO", filledQuantity: 2_000_000, totalCost: 1_200_000, fillIds: ["fil_1"] }),
    ]);
    expect(tradesTo(t, rooms.market("mkt"))).toMatchObject([
      { tradeId: "fil_1", outcome: "NO", side: "BUY", price: "0.60", yesPrice: "0.40" },
    ]);
  });

  test("a market order through book and pool: the book fill, then the pool's leg at its exact average; a race pool's trade alone", () => {
    const t = fanout();
    t.join("s1", rooms.market("mkt"));
    t.f.tape([
      rec({ role: "maker", side: "SELL", outcome: "YES", filledQuantity: 10_000_000, totalCost: 5_200_000, fillIds: ["fil_1"] }),
      rec({
        role: "taker",
        venue: "HYBRID",
        side: "BUY",
        outcome: "YES",
        filledQuantity: 16_000_000,
        totalCost: 5_200_000 + 3_011_250,
        fillIds: ["fil_1", "fil_amm"],
      }),
    ]);
    t.f.tape([
      rec({ role: "taker", venue: "AMM", side: "SELL", outcome: "NO", filledQuantity: 1_000_000, totalCost: 300_000, fillIds: ["trd_9"] }),
    ]);
    expect(tradesTo(t, rooms.market("mkt"))).toMatchObject([
      { tradeId: "fil_1", price: "0.52", quantity: "10000000" },
      { tradeId: "fil_amm", side: "BUY", outcome: "YES", price: "0.501875", quantity: "6000000", yesPrice: "0.501875" },
      { tradeId: "trd_9", side: "SELL", outcome: "NO", price: "0.30", quantity: "1000000", yesPrice: "0.70" },
    ]);
  });

  test("nobody following the market: nothing is derived or sent", () => {
    const t = fanout();
    t.join("s1", rooms.user("usr_maker"));
    t.f.tape([
      rec({ role: "taker", venue: "AMM", side: "BUY", outcome: "YES", filledQuantity: 1_000_000, totalCost: 500_000, fillIds: ["fil_a"] }),
    ]);
    expect(t.toRoom).toEqual([]);
  });
});
