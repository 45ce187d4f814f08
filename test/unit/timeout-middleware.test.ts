/**
 * The request timeout with one timer per node (mixins/timeout.middleware.ts) in place of
 * Moleculer's own, on a broker composed as moleculer.config.ts composes it: a call past its
 * timeout is refused with Moleculer's RequestTimeoutError, a call's own `timeout` and an
 * action's win over the broker's, and Moleculer's other middlewares (the parameter check) still run.
 */
import { Errors, ServiceBroker } from "moleculer";
import { createSharedTimeout, internalMiddlewares } from "../../mixins/timeout.middleware";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("shared request timeout", () => {
  const broker = new ServiceBroker({
    logger: false,
    requestTimeout: 150,
    internalMiddlewares: false,
    middlewares: internalMiddlewares(createSharedTimeout(10)),
  });
  broker.createService({
    name: "slow",
    actions: {
      wait: { params: { ms: "number" }, handler: async (ctx) => (await sleep((ctx.params as { ms: number }).ms), "done") },
      patient: { timeout: 600, handler: async () => (await sleep(300), "patient") },
      fails: async () => {
        throw new Errors.MoleculerClientError("no", 409, "NO");
      },
    },
  });
  beforeAll(() => broker.start());
  afterAll(() => broker.stop());

  test("a call past the broker's timeout is refused with RequestTimeoutError; a quick one answers", async () => {
    const t0 = Date.now();
    const err = await broker.call("slow.wait", { ms: 500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Errors.RequestTimeoutError);
    expect((err as Errors.MoleculerError).code).toBe(504);
    expect(Date.now() - t0).toBeLessThan(450);
    expect(await broker.call("slow.wait", { ms: 1 })).toBe("done");
  });

  test("a call's own timeout and an action's timeout win over the broker's", async () => {
    expect(await broker.call("slow.wait", { ms: 300 }, { timeout: 1000 })).toBe("done");
    expect(await broker.call("slow.patient")).toBe("patient");
  });

  test("refusals pass through unchanged, and the parameter check still runs", async () => {
    await expect(broker.call("slow.fails")).rejects.toMatchObject({ code: 409, type: "NO" });
    await expect(broker.call("slow.wait", { ms: "soon" })).rejects.toBeInstanceOf(Errors.ValidationError);
  });

  test("many calls in flight at once each get their own outcome", async () => {
    const out = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        broker.call("slow.wait", { ms: i % 2 ? 400 : 5 }).then(
          () => "ok",
          (e: unknown) => (e instanceof Errors.RequestTimeoutError ? "timeout" : "other"),
        ),
      ),
    );
    expect(out).toEqual(Array.from({ length: 40 }, (_, i) => (i % 2 ? "timeout" : "ok")));
  });
});
