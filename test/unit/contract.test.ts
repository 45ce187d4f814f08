/**
 * The contract module (contract/): its route table yields the gateway's groups, each routed
 * action's params/auth/idempotent options, and fastest-validator rules converted from the JSON
 * Schema form (with `x-fv` hints where the validator must do more).
 */
import FastestValidator from "fastest-validator";
import {
  aliasesOf,
  ID_RE,
  paramsOf,
  paramsWithDefaults,
  routeAction,
  ROUTED_ACTIONS,
  ROUTES,
  rulesOf,
  toProps,
  type RouteGroup,
} from "../../contract";
import { VALIDATOR_OPTIONS } from "../../lib/params";

const v = new FastestValidator(VALIDATOR_OPTIONS);
const check = (schema: object, value: object) => {
  const r = v.compile(schema)(value);
  return r === true ? [] : (r as Array<{ field: string; type: string }>).map((e) => `${e.field}:${e.type}`);
};

describe("contract", () => {
  test("every route is in exactly one gateway group, under that group's mount", () => {
    const groups: RouteGroup[] = ["trade", "read", "sandbox", "admin"];
    const seen = groups.flatMap((g) => Object.values(aliasesOf(g)));
    expect([...seen].sort()).toEqual([...ROUTED_ACTIONS].sort());
    expect(aliasesOf("sandbox")).toEqual({ "POST /faucet": "chain.faucet" });
    expect(aliasesOf("admin")["POST /markets/:id/resolve"]).toBe("catalog.resolveMarket");
    // A static path stays before the parametric one it would otherwise shadow.
    const read = Object.keys(aliasesOf("read"));
    expect(read.indexOf("GET /events/search")).toBeLessThan(read.indexOf("GET /events/:id"));
  });

  test("a routed action's options come from its route", () => {
    expect(routeAction("book.place")).toMatchObject({ auth: "user", idempotent: true });
    expect(routeAction("catalog.createEvent")).toMatchObject({ auth: "admin" });
    expect(routeAction("catalog.listEvents")).not.toHaveProperty("auth");
    expect(routeAction("book.amend")).not.toHaveProperty("idempotent");
    for (const a of ROUTED_ACTIONS) expect(paramsOf(a).$$strict).toBe("remove");
  });

  test("a field whose rule is a hint keeps the schema's default (post-only orders are false unless asked)", () => {
    expect(paramsOf("book.place").postOnly).toEqual({ type: "boolean", optional: true, default: false });
    const params = { marketId: "mkt_1", side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: 100 };
    const checked: Record<string, unknown> = { ...params };
    expect(v.compile(paramsOf("book.place"))(checked)).toBe(true);
    expect(checked.postOnly).toBe(false);
  });

  test("paramsWithDefaults: the request as its handler sees it, batch items too; what is given stays", () => {
    const o = { marketId: "mkt_1", side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: 100 };
    expect(paramsWithDefaults("book.place", o)).toEqual({ ...o, postOnly: false });
    expect(paramsWithDefaults("book.place", { ...o, postOnly: null })).toEqual({ ...o, postOnly: false });
    expect(paramsWithDefaults("book.place", { ...o, postOnly: true })).toEqual({ ...o, postOnly: true });
    expect(paramsWithDefaults("book.placeBatch", { orders: [o, { ...o, postOnly: true }, "junk"] })).toEqual({
      orders: [{ ...o, postOnly: false }, { ...o, postOnly: true }, "junk"],
    });
    expect(paramsWithDefaults("router.quote", { marketId: "mkt_1" })).toEqual({ marketId: "mkt_1", venue: "AUTO" });
    expect(paramsWithDefaults("no.such", { a: 1 })).toEqual({ a: 1 });
    expect(o).not.toHaveProperty("postOnly");
  });

  test("params merge path ids, query and body; defaults and optional follow the schema", () => {
    const p = paramsOf("router.quote");
    expect(Object.keys(p)).toEqual(["marketId", "side", "outcome", "quantity", "venue", "$$strict"]);
    expect(p.venue).toEqual({ type: "enum", values: ["AUTO", "AMM"], optional: true, default: "AUTO" });
    expect(check(p, { marketId: "mkt_1", side: "BUY", outcome: "YES", quantity: "100" })).toEqual([]);
    expect(check(p, { marketId: "mkt 1", side: "HOLD", outcome: "YES", quantity: "0100" })).toEqual([
      "marketId:stringPattern",
      "side:enumValue",
      "quantity:stringPattern",
    ]);
  });

  test("x-fv: a hint with a type replaces the converted rule, one without is merged", () => {
    const schemas = {
      Thing: {
        type: "object",
        properties: {
          a: { type: "string", "x-fv": { type: "any", optional: true } },
          b: { type: "string", maxLength: 3, "x-fv": { trim: true } },
        },
        required: ["a", "b"],
      },
    } as const;
    expect(toProps(schemas.Thing, schemas)).toEqual({ a: { type: "any", optional: true }, b: { type: "string", max: 3, trim: true } });
    // A batch checks each order with POST /orders' own rules.
    expect(
      check(rulesOf("PlaceOrderRequest"), { marketId: "m", side: "BUY", outcome: "YES", orderType: "GTC", price: 0.5, quantity: 1e308 }),
    ).toEqual(["quantity:numberMax"]);
  });

  test("one id rule: 1 to 64 of A-Z a-z 0-9 _ : -", () => {
    for (const ok of ["mkt_abc", "a:b-c_d", "x".repeat(64)]) expect(ID_RE.test(ok)).toBe(true);
    for (const bad of ["", "a b", "a.b", "x".repeat(65), "$gt"]) expect(ID_RE.test(bad)).toBe(false);
    const rule = paramsOf("catalog.getEvent");
    expect(check(rule, { id: "evt_1:2" })).toEqual([]);
    expect(check(rule, { id: "x".repeat(65) })).toEqual(["id:stringMax"]);
    expect(ROUTES["catalog.getEvent"].ids).toEqual({ id: "Event id" });
  });
});
