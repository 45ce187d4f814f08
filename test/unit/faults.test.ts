/**
 * gateway/faults.ts: the one mapping between domain refusals (kind + code, no status) and the
 * broker's errors (status + code), both ways.
 */
import { Errors } from "moleculer";
import { FAULT_STATUS, faultFromWire, wireError } from "../../gateway/faults";
import { errorAnswer } from "../../gateway/answers";
import { Fault, FAULT_KINDS, conflicting, invalid, isFault, notFoundFault, refused } from "../../lib/fault";

describe("wireError", () => {
  test("every kind has a status; a Fault leaves as a MoleculerClientError with its code and fields", () => {
    for (const kind of FAULT_KINDS) expect(FAULT_STATUS[kind]).toBeGreaterThanOrEqual(400);
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
    const e = wireError(new Fault("unavailable", "SERVICE_UNAVAILABLE", "nothing was executed; retry later", { retryAfter: 5 }));
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

  test("anything that is not a Fault passes unchanged", () => {
    const plain = new Error("disk full");
    expect(wireError(plain)).toBe(plain);
  });
});

describe("faultFromWire", () => {
  test("a refusal that came back through the broker is the Fault it was (400, 404, 409)", () => {
    for (const f of [
      refused("INSUFFICIENT_BALANCE", "Insufficient balance"),
      conflicting("REFUND_PENDING", "later"),
      notFoundFault("Trade"),
    ]) {
      const back = faultFromWire(wireError(f));
      expect(isFault(back)).toBe(true);
      expect(back).toMatchObject({ kind: f.kind, code: f.code, message: f.message });
    }
    const withFields = faultFromWire(wireError(invalid("bad", [{ field: "price", rule: "tick" }])));
    expect(withFields).toMatchObject({ kind: "rejected", code: "VALIDATION_ERROR", data: { fields: [{ field: "price", rule: "tick" }] } });
  });

  test("other errors stay as they are: a 5xx, a timeout, a plain error", () => {
    const unavailable = new Errors.MoleculerRetryableError("down", 503, "SERVICE_UNAVAILABLE");
    const timeout = new Errors.RequestTimeoutError({ action: "ledger.post", nodeID: "node-1" });
    const plain = new Error("boom");
    for (const e of [unavailable, timeout, plain]) expect(faultFromWire(e)).toBe(e);
    expect(new Fault("rejected", "X", "y")).toBeInstanceOf(Error);
  });
});
