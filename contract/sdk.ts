/**
 * The SDK's model types as TypeScript source, generated from the contract's shapes: one
 * declaration per component schema (an interface for an object, a type otherwise), descriptions
 * as doc comments. `npm run contract:sdk` writes it to client/src/generated/models.ts, so the SDK
 * package keeps no import from outside client/ and stays installable on its own.
 */
import { publicSchema, type JsonSchema } from "./schema";

const HEADER = `/**
 * GENERATED from the server's contract (contract/models.ts) by \`npm run contract:sdk\`; do not edit.
 * Request and response models of every REST route; quantities and money are strings of digits in
 * micro-units, prices decimal strings (see ../money.ts).
 */
`;

const NAME = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const key = (k: string) => (NAME.test(k) ? k : JSON.stringify(k));
const doc = (s: JsonSchema, indent: string) => (s.description ? `${indent}/** ${s.description.replace(/\*\//g, "*\\/")} */\n` : "");

function typeOf(s: JsonSchema, indent: string): string {
  if (s.$ref) return s.$ref.replace("#/components/schemas/", "");
  let t: string;
  if (s.oneOf) t = s.oneOf.map((b) => typeOf(b, indent)).join(" | ");
  else if (s.enum) t = s.enum.map((v) => JSON.stringify(v)).join(" | ");
  else if (s.type === "string") t = "string";
  else if (s.type === "integer" || s.type === "number") t = "number";
  else if (s.type === "boolean") t = "boolean";
  else if (s.type === "array") {
    const item = s.items ? typeOf(s.items, indent) : "unknown";
    t = /[|&{]/.test(item) ? `Array<${item}>` : `${item}[]`;
  } else if (s.type === "object" && s.properties) t = objectBody(s, indent);
  else if (s.type === "object") t = "Record<string, unknown>";
  else t = "unknown";
  return s.nullable ? `${t} | null` : t;
}

function objectBody(s: JsonSchema, indent: string): string {
  const required = new Set(s.required ?? []);
  const inner = indent + "  ";
  const lines = Object.entries(s.properties ?? {}).map(
    ([k, p]) => `${doc(p, inner)}${inner}${key(k)}${required.has(k) ? "" : "?"}: ${typeOf(p, inner)};`,
  );
  return `{\n${lines.join("\n")}\n${indent}}`;
}

/** One declaration per schema: an interface for an object, a type otherwise. */
function declarations(schemasIn: Record<string, JsonSchema>): string[] {
  const schemas = publicSchema(schemasIn) as Record<string, JsonSchema>;
  return Object.entries(schemas).map(([name, s]) => {
    const isObject = s.type === "object" && s.properties && !s.nullable;
    return `${doc(s, "")}${isObject ? `export interface ${name} ${objectBody(s, "")}` : `export type ${name} = ${typeOf(s, "")};`}\n`;
  });
}

const SOCKET_HEADER = `/**
 * GENERATED from the server's contract (contract/events.ts) by \`npm run contract:sdk\`; do not edit.
 * The Socket.IO payloads at /ws: what a client emits and every \`message\` the server sends.
 */
`;

/**
 * The SDK's socket payload types as TypeScript source (client/src/generated/socket.ts): one
 * declaration per socket schema; the REST shapes they point at are imported from ./models.
 */
export function sdkSocket(socketSchemas: Record<string, JsonSchema>): string {
  const refs = JSON.stringify(socketSchemas).match(/#\/components\/schemas\/\w+/g) ?? [];
  const rest = [...new Set(refs.map((r) => r.slice("#/components/schemas/".length)))].filter((n) => !(n in socketSchemas)).sort();
  const imports = rest.length ? `import type { ${rest.join(", ")} } from "./models";\n` : "";
  return [SOCKET_HEADER + imports, ...declarations(socketSchemas)].join("\n");
}

/** A route as the generator needs it: its operation and its query parameters. */
interface QueryRoute {
  readonly operationId: string;
  readonly method: string;
  readonly path: string;
  readonly query?: JsonSchema;
}

/** The SDK's name of a route's query parameters (`listOrders` -> `ListOrdersQuery`). */
const queryName = (r: { operationId: string }) => r.operationId[0].toUpperCase() + r.operationId.slice(1) + "Query";

/**
 * The generated module's text: one declaration per component schema, then one `<Operation>Query`
 * interface per route with query parameters (the SDK's list and filter options).
 */
export function sdkModels(schemasIn: Record<string, JsonSchema>, routes: Record<string, QueryRoute> = {}): string {
  const out = [HEADER, ...declarations(schemasIn)];
  for (const r of Object.values(routes)) {
    if (!r.query) continue;
    const name = queryName(r);
    out.push(
      `/** Query parameters of ${r.method} ${r.path}. */\nexport interface ${name} ${objectBody(publicSchema(r.query) as JsonSchema, "")}\n`,
    );
  }
  return out.join("\n");
}

/** A route as the SDK's route table needs it (contract/routes.ts RouteDef). */
interface SdkRoute extends QueryRoute {
  readonly auth: string;
  readonly idempotent?: boolean;
  readonly ids?: { readonly [name: string]: string };
  readonly body?: JsonSchema;
  readonly bodyOptional?: boolean;
  readonly result?: JsonSchema;
  readonly paged?: boolean;
  readonly summary: string;
}

const ROUTES_HEADER = `/**
 * GENERATED from the server's contract (contract/routes.ts) by \`npm run contract:sdk\`; do not edit.
 * Every REST route by its operation: method, path under /api/v1 (\`{name}\` path parameters, as
 * the OpenAPI document writes them), who may call it (public, user, admin), whether it takes an
 * Idempotency-Key and whether it answers a page; and what each one takes and answers.
 */
`;

/**
 * The SDK's route table as TypeScript source (client/src/generated/routes.ts): `ROUTES` (the
 * values the client sends by) and `RouteTypes` (path parameters, query, body and result per
 * operation; a paged route's result is one item), types from ./models.
 */
export function sdkRoutes(routes: Record<string, SdkRoute>): string {
  const used = new Set<string>();
  const typeText = (x: JsonSchema) => {
    const t = typeOf(publicSchema(x) as JsonSchema, "  ");
    for (const m of JSON.stringify(x).match(/#\/components\/schemas\/\w+/g) ?? []) used.add(m.slice("#/components/schemas/".length));
    return t;
  };
  const table: string[] = [];
  const types: string[] = [];
  for (const r of Object.values(routes)) {
    const path = r.path.replace(/:([A-Za-z_]\w*)/g, "{$1}");
    const flags = `${r.idempotent ? ", idempotent: true" : ""}${r.paged ? ", paged: true" : ""}`;
    table.push(
      `  /** ${r.summary.replace(/\*\//g, "*\\/")} */\n  ${key(r.operationId)}: { method: "${r.method}", path: "${path}", auth: "${r.auth}"${flags} },`,
    );
    const ids = Object.keys(r.ids ?? {});
    const params = ids.length ? `{ ${ids.map((n) => `${key(n)}: string`).join("; ")} }` : "Record<string, never>";
    let query = "Record<string, never>";
    if (r.query) {
      query = queryName(r);
      used.add(query);
    }
    const body = r.body ? (r.bodyOptional ? `Partial<${typeText(r.body)}>` : typeText(r.body)) : "undefined";
    const result = r.result ? typeText(r.result) : "null";
    types.push(`  ${key(r.operationId)}: { params: ${params}; query: ${query}; body: ${body}; result: ${result} };`);
  }
  const imports = used.size ? `import type { ${[...used].sort().join(", ")} } from "./models";\n` : "";
  return [
    ROUTES_HEADER + imports,
    `export const ROUTES = {\n${table.join("\n")}\n} as const;\n`,
    `export type OperationId = keyof typeof ROUTES;\n`,
    `/** What each operation takes (path parameters, query, body) and answers (a page's item for a paged route). */\nexport interface RouteTypes {\n${types.join("\n")}\n}\n`,
  ].join("\n");
}
