/**
 * The one schema form of the contract: JSON-Schema objects (the OpenAPI 3.0 subset), written
 * `as const` so that TypeScript derives each shape's type from its literal (`FromSchema`).
 * Why this form: results have to be JSON Schema anyway (the OpenAPI document, the SDK generator),
 * and request shapes written the same way keep their literal types for the services, the typed
 * `call` helper and the document. The broker's fastest-validator rules are converted from them
 * (`toValidator`); where the validator must do what JSON Schema cannot say (convert a query
 * string to a number, trim, a custom message), the node carries its exact rule in `x-fv`.
 * Framework-free: no Moleculer import.
 */

/** A node of the JSON Schema subset the contract uses, with the validator hint. */
export interface JsonSchema {
  readonly type?: "string" | "integer" | "number" | "boolean" | "array" | "object";
  readonly $ref?: string;
  readonly oneOf?: readonly JsonSchema[];
  readonly enum?: readonly unknown[];
  readonly nullable?: boolean;
  readonly pattern?: string;
  readonly format?: string;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly minProperties?: number;
  readonly items?: JsonSchema;
  readonly properties?: { readonly [name: string]: JsonSchema };
  readonly required?: readonly string[];
  readonly additionalProperties?: boolean;
  readonly default?: unknown;
  readonly description?: string;
  /**
   * The broker's fastest-validator rule for this node where conversion would not say it: with a
   * `type` it replaces the converted rule, without one it is merged into it. Never published.
   */
  readonly "x-fv"?: FvRule;
}

/** A fastest-validator rule (its own schema language). */
export type FvRule = { readonly [option: string]: unknown };

// ---------------------------------------------------------------------------------------------
// Building blocks

export const ref = <const N extends string>(name: N) => ({ $ref: `#/components/schemas/${name}` }) as const;
export const str = { type: "string" } as const;
export const nullableStr = { type: "string", nullable: true } as const;
export const int = { type: "integer" } as const;
export const num = { type: "number" } as const;
export const bool = { type: "boolean" } as const;
export const time = { type: "string", format: "date-time" } as const;

/** Closed object with the given required keys (an undocumented field fails the document's checks). */
export const obj = <const P extends Record<string, object>, const R extends readonly (keyof P & string)[]>(properties: P, required: R) =>
  ({ type: "object", additionalProperties: false, required, properties }) as const;

/** Open request object: unknown fields are removed by the validator, not refused. */
export const req = <const P extends Record<string, object>, const R extends readonly (keyof P & string)[]>(properties: P, required: R) =>
  ({ type: "object", required, properties }) as const;

/**
 * The one id rule (path parameters, market and event ids in bodies): 1 to 64 of A-Z a-z 0-9 _ : -.
 * The spec leaves ids as strings; every id the server mints (`mkt_…`, `ord_…`) fits, and the
 * socket protocol and the published document already used this alphabet (the `_-` copy was
 * a narrower duplicate). A plain alphabet keeps objects and operators away from the stores.
 */
const ID_CHARS = "A-Za-z0-9_:-";
export const ID_PATTERN = `^[${ID_CHARS}]+$`;
export const ID_MAX = 64;
export const ID = { type: "string", minLength: 1, maxLength: ID_MAX, pattern: ID_PATTERN } as const;
/** A calendar date or date-time as the catalog accepts it (ISO 8601, optional time and zone). */
export const ISO_DATE_PATTERN = "^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}(:\\d{2}(\\.\\d{1,9})?)?(Z|[+-]\\d{2}:?\\d{2})?)?$";
/** The same rule as one RegExp (socket subscriptions check ids outside the broker's validator). */
export const ID_RE = new RegExp(`^[${ID_CHARS}]{1,${ID_MAX}}$`);

// ---------------------------------------------------------------------------------------------
// Types derived from schemas

type Simplify<T> = { [K in keyof T]: T[K] } & {};

/** The TypeScript type a schema describes; `$ref`s resolve in `C` (the components). */
export type FromSchema<S, C = Record<string, never>> = S extends { $ref: `#/components/schemas/${infer N}` }
  ? N extends keyof C
    ? FromSchema<C[N], C>
    : never
  : S extends { oneOf: readonly (infer U)[] }
    ? FromSchema<U, C>
    : S extends { nullable: true }
      ? Base<S, C> | null
      : Base<S, C>;
type Base<S, C> = S extends { enum: readonly (infer E)[] }
  ? E
  : S extends { type: "string" }
    ? string
    : S extends { type: "integer" | "number" }
      ? number
      : S extends { type: "boolean" }
        ? boolean
        : S extends { type: "array"; items: infer I }
          ? FromSchema<I, C>[]
          : S extends { type: "object"; properties: infer P }
            ? ObjectOf<P, S extends { required: readonly (infer R)[] } ? R : never, C>
            : S extends { type: "object" }
              ? Record<string, unknown>
              : unknown;
type ObjectOf<P, R, C> = Simplify<
  { -readonly [K in keyof P as K extends R ? K : never]: FromSchema<P[K], C> } & {
    -readonly [K in keyof P as K extends R ? never : K]?: FromSchema<P[K], C>;
  }
>;

/** What a handler sees: like the wire type, but a field with a default is always there. */
export type Defaulted<S, C = Record<string, never>> = S extends { type: "object"; properties: infer P }
  ? Simplify<FromSchema<S, C> & { -readonly [K in keyof P as P[K] extends { default: unknown } ? K : never]-?: FromSchema<P[K], C> }>
  : FromSchema<S, C>;

// ---------------------------------------------------------------------------------------------
// Conversions

/** A schema's type without the validator hints. */
export type Public<S> = S extends readonly unknown[]
  ? { readonly [K in keyof S]: Public<S[K]> }
  : S extends object
    ? { readonly [K in keyof S as K extends "x-fv" ? never : K]: Public<S[K]> }
    : S;

/** The schema without the validator hints: what the OpenAPI document and the SDK see. */
export function publicSchema<S>(schema: S): Public<S> {
  if (Array.isArray(schema)) return schema.map(publicSchema) as Public<S>;
  if (schema === null || typeof schema !== "object") return schema as Public<S>;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) if (k !== "x-fv") out[k] = publicSchema(v);
  return out as Public<S>;
}

type Components = { readonly [name: string]: JsonSchema };

function resolve(s: JsonSchema, components: Components): JsonSchema {
  if (!s.$ref) return s;
  const name = s.$ref.replace("#/components/schemas/", "");
  const target = components[name];
  if (!target) throw new Error(`contract: unresolved $ref ${s.$ref}`);
  return resolve(target, components);
}

/** One property's fastest-validator rule; `optional` when the object does not require it. */
export function toRule(schemaIn: JsonSchema, components: Components, optional = false): FvRule {
  const s = resolve(schemaIn, components);
  // A hint on a $ref node (a batch's items) is about that use, not the referenced schema.
  const hint = schemaIn["x-fv"] ?? s["x-fv"];
  const opt = optional ? { optional: true, ...(s.default !== undefined ? { default: s.default } : {}) } : {};
  if (hint && "type" in hint)
    return {
      ...hint,
      ...(optional && hint.optional === undefined ? opt : {}),
      ...(optional && hint.default === undefined && "default" in opt ? { default: opt.default } : {}),
    };
  let rule: Record<string, unknown>;
  if (s.enum && s.type !== "boolean") rule = { type: "enum", values: [...s.enum] };
  else
    switch (s.type) {
      case "string":
        rule = {
          type: "string",
          ...(s.minLength !== undefined ? { min: s.minLength } : {}),
          ...(s.maxLength !== undefined ? { max: s.maxLength } : {}),
          ...(s.pattern !== undefined ? { pattern: new RegExp(s.pattern) } : {}),
        };
        break;
      case "integer":
      case "number":
        rule = {
          type: "number",
          ...(s.type === "integer" ? { integer: true } : {}),
          ...(s.minimum !== undefined ? { min: s.minimum } : {}),
          ...(s.maximum !== undefined ? { max: s.maximum } : {}),
        };
        break;
      case "boolean":
        rule = { type: "boolean" };
        break;
      case "array":
        rule = {
          type: "array",
          ...(s.minItems !== undefined ? { min: s.minItems } : {}),
          ...(s.maxItems !== undefined ? { max: s.maxItems } : {}),
          ...(s.items ? { items: toRule(s.items, components) } : {}),
        };
        break;
      case "object":
        rule = s.properties ? { type: "object", props: toProps(s, components) } : { type: "object" };
        break;
      default:
        rule = { type: "any" };
    }
  return { ...rule, ...opt, ...(hint ?? {}) };
}

/** An object schema's properties as fastest-validator rules (the params of an action). */
export function toProps(schemaIn: JsonSchema, components: Components): Record<string, FvRule> {
  const s = resolve(schemaIn, components);
  const required = new Set(s.required ?? []);
  const out: Record<string, FvRule> = {};
  for (const [name, prop] of Object.entries(s.properties ?? {})) out[name] = toRule(prop, components, !required.has(name));
  return out;
}

/**
 * `value` with the schema's defaults where a field is absent (or null and not nullable), through
 * objects, array items and $refs: the request as its handler sees it. A copy; the rest as it is.
 */
export function withDefaults(schemaIn: JsonSchema, value: unknown, components: Components): unknown {
  const s = resolve(schemaIn, components);
  if (Array.isArray(value)) return s.items ? value.map((v) => withDefaults(s.items as JsonSchema, v, components)) : value;
  if (value === null || typeof value !== "object" || !s.properties) return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [name, prop] of Object.entries(s.properties)) {
    const p = resolve(prop, components);
    const v = out[name];
    if ((v === undefined || (v === null && !p.nullable)) && p.default !== undefined) out[name] = p.default;
    else if (v !== undefined) out[name] = withDefaults(prop, v, components);
  }
  return out;
}
