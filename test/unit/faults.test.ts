/**
 * lib/errors.ts: the one mapping between refusals (engine/refusal.ts: kind + code, no status) and
 * the broker's errors (status + code), both ways; mixins/port-call.ts: the ports' way back.
 */
import { Errors } from "moleculer";
import { REFUSAL_STATUS, refusalFromWire, wireError } from "../../lib/errors";
import { errorAnswer } from "../../gateway/answers";
import { portCall } from "../../mixins/port-call";
import { Refusal, REFUSAL_KINDS, conflicting, invalid, isRefusal, notFoundFault, refused } from "../../engine/refusal";

describe("wireError", () => {
  test("every kind has a status; a Refusal leaves as a MoleculerClientError with its code and fields", () => {
    for (const kind of REFUSAL_KINDS) expect(REFUSAL_STATUS[kind]).toBeGreaterThanOrEqual(400);
    const e = wireError(invalid("amount must be positive", [{ field: "amount", rule: "min" }]));
    expect(e).toBeInstanceOf(Errors.MoleculerClientError);
    expect(e).toMatchObject({
      code: 400,
      type: "VALIDATION_ERROR",
      message: "amount must be positive",
      data: { fields: [{ field: "amount" }] },
    });
    expect(wireError(conflicting("SHARES_LOCKED", "held"))).toMatchObject({ code: 409, type: "SHARES_LOCKED" });
    expect(wireError(notFoundFault("Market"))).toMatchObject({ code: 404, type: "RESOURCE_NOT_FOUND" });
  });

  test("a refusal's retry hint travels with it and becomes the answer's Retry-After", () => {
    const e = wireError(new Refusal("unavailable", "SERVICE_UNAVAILABLE", "nothing was executed; retry later", { retryAfter: 5 }));
    expect(e).toMatchObject({ code: 503, type: "SERVICE_UNAVAILABLE", data: { retryAfter: 5 } });
    expect(errorAnswer(e, "req_1", undefined)).toMatchObject({
      status: 503,
      retryAfter: 5,
      log: false,
      body: { error: { code: "SERVICE_UNAVAILABLE" }, requestId: "req_1" },
    });
  });

  test("a write that found the disk full anywhere behind a request is a logged 503 with Retry-After, not a 500", () => {
    for (const code of ["ENOSPC", "EDQUOT", "SQLITE_FULL"]) {
      const err = Object.assign(new Error(`${code}: no space left on device, write`), { code });
      const a = errorAnswer(err, "req_2", undefined);
      expect(a).toMatchObject({ status: 503, log: true, body: { error: { code: "SERVICE_UNAVAILABLE" } } });
      expect(a.retryAfter).toBeGreaterThan(0);
      expect(JSON.stringify(a.body)).not.toContain("no space left");
    }
    expect(errorAnswer(Object.assign(new Error("boom"), { code: "EIO" }), "req_3", undefined)).toMatchObject({ status: 500, log: true });
  });

  test("anything that is not a Refusal passes unchanged", () => {
    const plain = new Error("disk full");
    expect(wireError(plain)).toBe(plain);
  });
});

describe("refusalFromWire", () => {
  test("a refusal that came back through the broker is the Refusal it was (400, 401, 403, 404, 409, 503)", () => {
    for (const f of [
      refused("INSUFFICIENT_BALANCE", "Insufficient balance"),
      new Refusal("unauthorized", "UNAUTHORIZED", "Session not found"),
      new Refusal("forbidden", "FORBIDDEN", "Operator key required"),
      conflicting("REFUND_PENDING", "later"),
      notFoundFault("Trade"),
      new Refusal("moved", "MARKET_MOVED", "served elsewhere; retry"),
    ]) {
      const back = refusalFromWire(wireError(f));
      expect(isRefusal(back)).toBe(true);
      expect(back).toMatchObject({ kind: f.kind, code: f.code, message: f.message });
    }
    const withFields = refusalFromWire(wireError(invalid("bad", [{ field: "price", rule: "tick" }])));
    expect(withFields).toMatchObject({ kind: "rejected", code: "VALIDATION_ERROR", data: { fields: [{ field: "price", rule: "tick" }] } });
  });

  test("a 503 with a code is a refusal to retry, its hint kept (the routing's own MARKET_MOVED among them)", () => {
    const unavailable = new Errors.MoleculerRetryableError("down", 503, "SERVICE_UNAVAILABLE", { retryAfter: 5 });
    expect(refusalFromWire(unavailable)).toMatchObject({ kind: "unavailable", code: "SERVICE_UNAVAILABLE", data: { retryAfter: 5 } });
    const moved = new Errors.MoleculerError("moving", 503, "MARKET_MOVED", { retryAfter: 1 });
    expect(refusalFromWire(moved)).toMatchObject({ kind: "moved", code: "MARKET_MOVED", message: "moving" });
    expect(wireError(refusalFromWire(moved))).toMatchObject({ code: 503, type: "MARKET_MOVED", data: { retryAfter: 1 } });
  });

  test("other errors stay as they are: a 500, Moleculer's own, a timeout, a plain error", () => {
    const internal = new Errors.MoleculerError("boom", 500, "INTERNAL");
    const noService = new Errors.ServiceNotFoundError({ action: "ledger.post" });
    const timeout = new Errors.RequestTimeoutError({ action: "ledger.post", nodeID: "node-1" });
    const plain = new Error("boom");
    for (const e of [internal, noService, timeout, plain]) expect(refusalFromWire(e)).toBe(e);
    expect(new Refusal("rejected", "X", "y")).toBeInstanceOf(Error);
  });
});

describe("portCall", () => {
  test("a port's call answers as the action did, or rejects with the refusal the other service gave", async () => {
    const broker = {
      call: async (action: string) => {
        if (action === "ledger.lease") return { marketId: "mkt_1" };
        throw wireError(refused("INSUFFICIENT_BALANCE", "Insufficient balance"));
      },
    };
    await expect(portCall(broker, "ledger.lease", { marketId: "mkt_1" })).resolves.toEqual({ marketId: "mkt_1" });
    const err = await portCall(broker, "ledger.post", { key: "k", postings: [] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Refusal);
    expect(err).toMatchObject({ kind: "rejected", code: "INSUFFICIENT_BALANCE", message: "Insufficient balance" });
  });
});
