/**
 * OpenAPI 3.0 description of every REST route the gateway serves, produced from the contract
 * (contract/routes.ts, contract/models.ts): one operation per route, its parameters from the
 * route's ids, query and body, its answer from the route's result in the success envelope. Only
 * what is about HTTP itself is written here: the envelopes, the error responses, the headers and
 * the two meta routes (/health, this document). Served at GET /api/v1/openapi.json.
 *
 * The document's type follows the contract's literal types (`OpenApiDocument`), so a test can
 * derive TypeScript types from it and compare them with the SDK's models.
 */

import { MAX_IDEMPOTENCY_KEY } from "../mixins/idempotency.middleware";
import {
  ID,
  publicSchema,
  ref,
  ROUTES,
  SCHEMAS,
  type ErrorStatus,
  type JsonSchema,
  type Public,
  type RouteDef,
  type RoutedAction,
  type Routes,
} from "../contract";

const str = { type: "string" } as const;
const int = { type: "integer" } as const;

const json = <const S extends object>(schema: S) => ({ "application/json": { schema } }) as const;
const envelope = <const D extends object>(data: D) =>
  ({ type: "object", additionalProperties: false, required: ["data", "requestId"], properties: { data, requestId: str } }) as const;
const pagedEnvelope = <const D extends object>(items: D) =>
  ({
    type: "object",
    additionalProperties: false,
    required: ["data", "pagination", "requestId"],
    properties: { data: { type: "array", items }, pagination: ref("Pagination"), requestId: str },
  }) as const;

type AnyStatus = ErrorStatus | "429" | "500" | "503";
const ERROR_RESPONSES: Record<AnyStatus, string> = {
  "400": "BadRequest",
  "401": "Unauthorized",
  "403": "Forbidden",
  "404": "NotFound",
  "409": "Conflict",
  "413": "PayloadTooLarge",
  "429": "TooManyRequests",
  "500": "InternalError",
  "503": "ServiceUnavailable",
};
/** The errors every route can answer (limits and failures), plus the route's own. */
function failures(statuses: readonly ErrorStatus[]): Record<string, { $ref: string }> {
  const out: Record<string, { $ref: string }> = {};
  for (const s of [...statuses, "429", "500", "503"] as const) out[s] = { $ref: `#/components/responses/${ERROR_RESPONSES[s]}` };
  return out;
}

/** Moleculer-web's `:name` path parameters in OpenAPI's `{name}` form. */
export const openPath = (path: string) => path.replace(/:([A-Za-z]+)/g, "{$1}");

const SECURITY = { public: undefined, user: [{ bearerAuth: [] }], admin: [{ adminKey: [] }] } as const;

function operation(route: RouteDef): Record<string, unknown> {
  const ids = Object.entries(route.ids ?? {}).map(([name, description]) => ({
    name,
    in: "path",
    required: true,
    description,
    schema: publicSchema(ID),
  }));
  const required = new Set(route.query?.required ?? []);
  const query = Object.entries(route.query?.properties ?? {}).map(([name, prop]) => {
    const { description, ...schema } = publicSchema(prop);
    return { name, in: "query", required: required.has(name), description, schema };
  });
  const parameters = [...ids, ...(route.idempotent ? [{ $ref: "#/components/parameters/IdempotencyKey" }] : []), ...query];
  const data = route.result && (route.paged ? pagedEnvelope(publicSchema(route.result)) : envelope(publicSchema(route.result)));
  const answer = {
    description: route.resultDescription,
    ...(data ? { content: json(data) } : {}),
    // The trade writes that take an Idempotency-Key say so on their answer (a replay).
    ...(route.idempotent ? { headers: { "Idempotent-Replayed": { $ref: "#/components/headers/IdempotentReplayed" } } } : {}),
  };
  return {
    operationId: route.operationId,
    tags: route.tags,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    ...(SECURITY[route.auth] ? { security: SECURITY[route.auth] } : {}),
    ...(parameters.length ? { parameters } : {}),
    ...(route.body ? { requestBody: { required: !route.bodyOptional, content: json(publicSchema(route.body)) } } : {}),
    responses: { [String(route.status)]: answer, ...failures(route.errors) },
  };
}

const META_PATHS = {
  "/health": {
    servers: [{ url: "/" }],
    get: {
      operationId: "health",
      tags: ["meta"],
      summary: "Health check (outside /api/v1)",
      responses: { "200": { description: "Up", content: json(ref("Health")) } },
    },
  },
  "/openapi.json": {
    get: {
      operationId: "openapi",
      tags: ["meta"],
      summary: "This document",
      responses: { "200": { description: "OpenAPI 3 document", content: json({ type: "object" }) } },
    },
  },
} as const;

/** Every route's operation under its path, in the contract's order. */
function paths(routes: Record<string, RouteDef>): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = { ...META_PATHS };
  for (const route of Object.values(routes)) (out[openPath(route.path)] ??= {})[route.method.toLowerCase()] = operation(route);
  return out;
}

const errorResponse = (description: string) => ({ description, content: json(ref("ErrorEnvelope")) }) as const;

/** The document for a contract: the served one is `openApiDocument`; a test builds it from a changed contract. */
export function buildOpenApi(routes: Record<string, RouteDef>, schemas: Record<string, JsonSchema>) {
  const tradeRoutes = Object.values(routes)
    .filter((r) => r.rate === "trade")
    .map((r) => `${r.method} ${openPath(r.path)}`);
  return {
    openapi: "3.0.3",
    info: {
      title: "Prediction-market exchange API",
      version: "1.0.0",
      description: `REST API of the exchange. Quantities and money are strings of micro-units unless noted; prices are decimals. Every response carries \`requestId\`; errors use the error envelope. Rate limits: trade category (${tradeRoutes.join(", ")}) 10 per sliding 60 s, other contract routes 100 per 60 s, the faucet 5 per 60 s; 429 answers carry Retry-After (seconds); every response carries X-RateLimit-Limit and X-RateLimit-Remaining (/health, this document and the operator API show the read budget without spending it).`,
    },
    servers: [{ url: "/api/v1" }],
    tags: [
      { name: "auth" },
      { name: "catalog" },
      { name: "trading" },
      { name: "portfolio" },
      { name: "chain" },
      { name: "notifications" },
      { name: "operator", description: "X-Admin-Key; disabled when the server has no ADMIN_KEY" },
      { name: "meta" },
    ],
    paths: paths(routes),
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
        adminKey: { type: "apiKey", in: "header", name: "X-Admin-Key" },
      },
      parameters: {
        IdempotencyKey: {
          name: "Idempotency-Key",
          in: "header",
          required: false,
          description:
            "IETF httpapi Idempotency-Key, scoped to the caller: the same key with the same body answers the first answer again (status and data; fresh requestId) with Idempotent-Replayed: true, and nothing executes twice, also while the first is in flight; another body is 409 IDEMPOTENCY_KEY_REUSED; a refused request does not keep its key. Kept with the ledger's journal.",
          schema: { type: "string", minLength: 1, maxLength: MAX_IDEMPOTENCY_KEY },
        },
      },
      headers: {
        "X-RateLimit-Limit": { schema: int },
        "X-RateLimit-Remaining": { schema: int },
        "X-Request-ID": { schema: str },
        IdempotentReplayed: {
          description: "true when this is the stored answer of an earlier request with the same Idempotency-Key",
          schema: { type: "string", enum: ["true"] },
        },
        RetryAfter: { description: "Seconds to wait before trying again", schema: int },
      },
      responses: {
        BadRequest: errorResponse(
          "VALIDATION_ERROR (with fields) or a business refusal such as INSUFFICIENT_BALANCE, FOK_NOT_FILLED, POST_ONLY_WOULD_CROSS",
        ),
        Unauthorized: errorResponse("UNAUTHORIZED"),
        Forbidden: errorResponse("FORBIDDEN"),
        NotFound: errorResponse("RESOURCE_NOT_FOUND, ORDER_NOT_FOUND"),
        Conflict: errorResponse(
          "The resource's state forbids it (ILLEGAL_TRANSITION, SHARES_LOCKED, DUPLICATE_CLIENT_ORDER_ID, ...), or IDEMPOTENCY_KEY_REUSED",
        ),
        PayloadTooLarge: errorResponse("PAYLOAD_TOO_LARGE (over 64 KiB)"),
        TooManyRequests: {
          description: "RATE_LIMIT_EXCEEDED",
          headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
          content: json(ref("ErrorEnvelope")),
        },
        InternalError: errorResponse("INTERNAL_ERROR"),
        ServiceUnavailable: {
          description: "SERVICE_UNAVAILABLE, MARKET_MOVED (nothing executed): retry after Retry-After",
          headers: { "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
          content: json(ref("ErrorEnvelope")),
        },
      },
      schemas: publicSchema(schemas),
    },
  };
}

// ---------------------------------------------------------------------------------------------
// The document's type, from the contract's literal types (what `buildOpenApi` builds at run time).

type OpenPath<P extends string> = P extends `${infer A}:${infer N}/${infer R}`
  ? `${A}{${N}}/${OpenPath<R>}`
  : P extends `${infer A}:${infer N}`
    ? `${A}{${N}}`
    : P;
type DataSchema<R> = R extends { result: infer S } ? (R extends { paged: true } ? { type: "array"; items: Public<S> } : Public<S>) : never;
type Answer<R> = R extends { result: unknown }
  ? { description: string; content: { "application/json": { schema: { type: "object"; properties: { data: DataSchema<R> } } } } }
  : { description: string };
type Operation<R extends RouteDef> = {
  operationId: R["operationId"];
  security?: readonly object[];
  parameters?: readonly object[];
  responses: { [S in `${R["status"]}`]: Answer<R> } & { [S in AnyStatus]?: { $ref: string } };
};
type RoutePath<A extends RoutedAction> = OpenPath<Routes[A]["path"]>;
type Paths = typeof META_PATHS & {
  [P in RoutePath<RoutedAction>]: {
    [A in RoutedAction as RoutePath<A> extends P ? Lowercase<Routes[A]["method"]> : never]: Operation<Routes[A]>;
  };
};

export type OpenApiDocument = Omit<ReturnType<typeof buildOpenApi>, "paths" | "components"> & {
  paths: Paths;
  components: Omit<ReturnType<typeof buildOpenApi>["components"], "schemas"> & { schemas: Public<typeof SCHEMAS> };
};

export const openApiDocument = buildOpenApi(ROUTES, SCHEMAS) as unknown as OpenApiDocument;

/** Serialized once: the route answers these bytes. */
export const OPENAPI_JSON = JSON.stringify(openApiDocument);
