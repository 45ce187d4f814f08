/**
 * The SDK's models are generated from the contract (npm run contract:sdk): the committed module
 * is what the generator makes now, and one change in the contract reaches the server's params
 * validation, the OpenAPI document and the SDK's models together.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import FastestValidator from "fastest-validator";
import { components, paramsFor, ROUTES, sdkModels, type JsonSchema } from "../../contract";
import { buildOpenApi } from "../../gateway/openapi";
import { VALIDATOR_OPTIONS } from "../../lib/params";
import { SDK_GENERATED_DIR, writeSdkModels } from "../../scripts/contract-sdk";

const ROOT = join(__dirname, "../..");
const committed = () => readFileSync(join(ROOT, SDK_GENERATED_DIR, "models.ts"), "utf8");
const validator = new FastestValidator(VALIDATOR_OPTIONS);
const refusals = (params: object, value: object) => {
  const r = validator.compile(params)(value);
  return r === true ? [] : (r as Array<{ field: string; type: string }>).map((e) => `${e.field}:${e.type}`);
};

/** The contract with one more result field (Balance) and one more required request field (WithdrawRequest). */
function changedContract(): Record<string, JsonSchema> {
  const schemas = structuredClone(components) as Record<string, { properties: Record<string, JsonSchema>; required: string[] }>;
  schemas.Balance.properties.reserved = { type: "string", pattern: "^(0|[1-9][0-9]*)$", description: "Micro-USDT held for fees" };
  schemas.Balance.required = [...schemas.Balance.required, "reserved"];
  schemas.WithdrawRequest.properties.memo = { type: "string", minLength: 1, maxLength: 120 };
  schemas.WithdrawRequest.required = [...schemas.WithdrawRequest.required, "memo"];
  return schemas as unknown as Record<string, JsonSchema>;
}

describe("SDK models from the contract", () => {
  test("the committed client/src/generated/models.ts is what the generator makes from the contract now", () => {
    const dir = mkdtempSync(join(tmpdir(), "pmx-sdk-"));
    try {
      const { file, written } = writeSdkModels(dir);
      expect(written).toBe(true);
      expect(readFileSync(file, "utf8")).toBe(committed());
      // Unchanged text is not written again (the build keeps the file's time).
      expect(writeSdkModels(dir).written).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the comparison can fail: a changed contract generates other models", () => {
    expect(sdkModels(changedContract(), ROUTES)).not.toBe(committed());
  });

  test("one field added in the contract reaches the params validation, the OpenAPI document and the SDK", () => {
    const schemas = changedContract();
    // The server's params: the withdrawal now wants a memo (and kept its other rules).
    const before = paramsFor(ROUTES["chain.withdraw"], components);
    const after = paramsFor(ROUTES["chain.withdraw"], schemas);
    expect(refusals(before, { amount: "1000000" })).toEqual([]);
    expect(refusals(after, { amount: "1000000" })).toEqual(["memo:required"]);
    expect(refusals(after, { amount: "01", memo: "rent" })).toEqual(["amount:stringPattern"]);
    expect(refusals(after, { amount: "1000000", memo: "rent" })).toEqual([]);

    // The OpenAPI document: the request body and the result schema carry the new fields.
    const doc = buildOpenApi(ROUTES, schemas);
    const balance = doc.components.schemas.Balance as { properties: Record<string, unknown>; required: string[] };
    expect(balance.properties.reserved).toEqual({ type: "string", pattern: "^(0|[1-9][0-9]*)$", description: "Micro-USDT held for fees" });
    expect(balance.required).toContain("reserved");
    const withdrawBody = doc.components.schemas.WithdrawRequest as { properties: Record<string, unknown>; required: string[] };
    expect(withdrawBody.required).toEqual(["amount", "memo"]);
    // ...and the routes that answer a Balance point at it.
    const getBalance = (
      doc.paths["/balance"] as {
        get: { responses: Record<string, { content: { "application/json": { schema: { properties: { data: unknown } } } } }> };
      }
    ).get;
    expect(getBalance.responses["200"].content["application/json"].schema.properties.data).toEqual({
      $ref: "#/components/schemas/Balance",
    });

    // The SDK's models.
    const sdk = sdkModels(schemas);
    expect(sdk).toMatch(/export interface Balance \{[^}]*\n {2}\/\*\* Micro-USDT held for fees \*\/\n {2}reserved: string;\n\}/);
    expect(sdk).toMatch(/export interface WithdrawRequest \{[^}]*\n {2}memo: string;\n\}/);
  });

  test("the generator writes what the schemas say: optional, nullable, enums, arrays, oneOf", () => {
    const sdk = sdkModels(components, ROUTES);
    expect(sdk).toMatch(/export interface Heartbeat \{\n {2}armed: boolean;\n {2}\/\*\*[^\n]*\*\/\n {2}expiresAt: string \| null;\n\}/);
    expect(sdk).toContain(
      "export type BatchOrderResult = {\n  ok: true;\n  order: PlacedOrder;\n} | {\n  ok: false;\n  error: ErrorDetail;\n};",
    );
    expect(sdk).toMatch(
      /export interface WithdrawResult \{\n {2}status: "accepted" \| "duplicate" \| "failed";\n {2}txHash\?: string;\n {2}message: string;\n\}/,
    );
    expect(sdk).not.toContain("x-fv");
    // Query parameters of the list routes, with their documented defaults left to the server.
    expect(sdk).toContain("/** Query parameters of GET /orders. */\nexport interface ListOrdersQuery {");
    expect(sdk).toMatch(/export interface SearchEventsQuery \{\n {2}\/\*\* Search words \*\/\n {2}q: string;/);
  });
});
