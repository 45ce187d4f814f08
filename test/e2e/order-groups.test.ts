import { startServer, type TestServer } from "../support/server";
import { ADMIN_KEY, createMarket, expectConserved, fund, SHARE } from "../support/trading";
import { until } from "../support/until";

describe("order groups over HTTP", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({ ADMIN_KEY, RATE_LIMIT_TRADE: "1000", RATE_LIMIT_READ: "1000" });
  });
  afterAll(() => srv.stop());

  test("a burst of fills reaching the limit cancels every open order of the group at once and refuses new ones until reset", async () => {
    const [m1, m2] = [await createMarket(srv, "Group one?"), await createMarket(srv, "Group two?")];
    const [maker, taker] = [await srv.login(), await srv.login()];
    for (const u of [maker, taker]) await fund(srv.broker, u.userId, 1000 * SHARE);
    const created = await srv.http("POST", "/api/v1/order-groups", {
      token: maker.token,
      body: { fillLimit: String(10 * SHARE), windowSeconds: 60 },
    });
    expect(created.status).toBe(200);
    const group = created.body.data.orderGroupId as string;
    expect(created.body.data).toEqual({ orderGroupId: group, fillLimit: String(10 * SHARE), windowSeconds: 60, triggered: false });
    const place = (u: { token: string }, body: Record<string, unknown>) =>
      srv.http("POST", "/api/v1/orders", { token: u.token, body: { orderType: "GTC", ...body } });
    const quotes = [
      await place(maker, { marketId: m1, side: "BUY", outcome: "YES", price: 0.45, quantity: 8 * SHARE, orderGroupId: group }),
      await place(maker, { marketId: m1, side: "BUY", outcome: "YES", price: 0.44, quantity: 8 * SHARE, orderGroupId: group }),
      await place(maker, { marketId: m2, side: "BUY", outcome: "NO", price: 0.4, quantity: 8 * SHARE, orderGroupId: group }),
    ];
    expect(quotes.map((q) => q.status)).toEqual([200, 200, 200]);
    const outside = await place(maker, { marketId: m2, side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE });

    // 6 then 6 shares hit the group's bids: 12 >= 10 within the window.
    expect((await place(taker, { marketId: m1, side: "BUY", outcome: "NO", price: 0.55, quantity: 6 * SHARE })).body.data.status).toBe(
      "filled",
    );
    expect((await place(taker, { marketId: m1, side: "BUY", outcome: "NO", price: 0.56, quantity: 6 * SHARE })).body.data.status).toBe(
      "filled",
    );

    const open = async () =>
      (await srv.http("GET", "/api/v1/orders", { token: maker.token })).body.data as Array<{
        orderId: string;
        cancelReason: string | null;
      }>;
    await until("the group's orders cancelled", async () => (await open()).length === 1);
    expect((await open()).map((o) => o.orderId)).toEqual([outside.body.data.orderId]);
    const closed = (await srv.http("GET", "/api/v1/orders?status=closed", { token: maker.token })).body.data as Array<{
      orderId: string;
      cancelReason: string | null;
    }>;
    // The first bid filled; the second (4 of 8 filled) and the bid in the other market are cancelled.
    expect(
      closed
        .filter((o) => o.cancelReason === "order_group")
        .map((o) => o.orderId)
        .sort(),
    ).toEqual([quotes[1].body.data.orderId, quotes[2].body.data.orderId].sort());
    expect((await srv.http("GET", "/api/v1/order-groups", { token: maker.token })).body.data).toEqual([
      { ...created.body.data, triggered: true },
    ]);
    await until("the notification", async () =>
      (
        (await srv.http("GET", "/api/v1/notifications", { token: maker.token })).body.data as Array<{
          type: string;
          metadata: { reason?: string };
        }>
      ).some((n) => n.type === "ORDER_CANCELLED" && n.metadata.reason === "ORDER_GROUP"),
    );

    const refused = await place(maker, { marketId: m1, side: "BUY", outcome: "YES", price: 0.4, quantity: SHARE, orderGroupId: group });
    expect([refused.status, refused.body.error.code]).toEqual([409, "ORDER_GROUP_TRIGGERED"]);
    expect((await srv.http("POST", `/api/v1/order-groups/${group}/reset`, { token: maker.token })).body.data.triggered).toBe(false);
    const again = await place(maker, { marketId: m1, side: "BUY", outcome: "YES", price: 0.4, quantity: SHARE, orderGroupId: group });
    expect(again.status).toBe(200);

    // Another user's group is not theirs to name; deleting the group cancels its open orders.
    const foreign = await place(taker, { marketId: m1, side: "BUY", outcome: "YES", price: 0.3, quantity: SHARE, orderGroupId: group });
    expect([foreign.status, foreign.body.error.code]).toEqual([404, "ORDER_GROUP_NOT_FOUND"]);
    const deleted = await srv.http("DELETE", `/api/v1/order-groups/${group}`, { token: maker.token });
    expect(deleted.body.data).toEqual({ orderGroupId: group, cancelled: [again.body.data.orderId] });
    expect((await open()).map((o) => o.orderId)).toEqual([outside.body.data.orderId]);
    await expectConserved(srv.broker);
  });
});
