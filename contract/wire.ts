/**
 * What follows from the shapes (models.ts) and the REST routes (routes.ts) for the server: each
 * routed action's fastest-validator params, auth and idempotency options, the gateway's alias
 * tables per route group, and the TypeScript types of requests, params and results.
 * Framework-free.
 */
import type { FieldError } from "../engine/refusal";
import type { Page, Pagination } from "../lib/paging";
import { SCHEMAS } from "./models";
import { ROUTES, type RateCategory, type RouteDef, type RoutedAction, type Routes } from "./routes";
import { ID, toProps, toRule, withDefaults, type Defaulted, type FromSchema, type FvRule, type JsonSchema } from "./schema";

export type Schemas = typeof SCHEMAS;
/** The TypeScript type of a component schema. */
export type Model<N extends keyof Schemas> = FromSchema<Schemas[N], Schemas>;

/** true when A and B are the same type, else never. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : never) : never;
// lib/ sits below the contract and spells these shapes out; this stops compiling when either side drifts.
const _libShapes: [Same<Model<"FieldError">, FieldError>, Same<Model<"Pagination">, Pagination>] = [true, true];

type Simplify<T> = { [K in keyof T]: T[K] } & {};
type Resolve<S> = S extends { $ref: `#/components/schemas/${infer N}` } ? (N extends keyof Schemas ? Resolve<Schemas[N]> : never) : S;
type IdsOf<R> = R extends { ids: infer I } ? { -readonly [K in keyof I]: string } : unknown;
type Part<S, D extends boolean> = D extends true ? Defaulted<Resolve<S>, Schemas> : FromSchema<S, Schemas>;
type QueryOf<R, D extends boolean> = R extends { query: infer Q } ? Part<Q, D> : unknown;
type BodyOf<R, D extends boolean> = R extends { body: infer B }
  ? R extends { bodyOptional: true }
    ? Partial<Part<B, D>>
    : Part<B, D>
  : unknown;

/** What a client sends to a routed action (path ids, query and body merged, as moleculer-web does). */
export type RequestOf<A extends RoutedAction> = Simplify<IdsOf<Routes[A]> & QueryOf<Routes[A], false> & BodyOf<Routes[A], false>>;
/** What the action's handler sees after validation (defaults filled in). */
export type ParamsOf<A extends RoutedAction> = Simplify<IdsOf<Routes[A]> & QueryOf<Routes[A], true> & BodyOf<Routes[A], true>>;
/** One page of a list, as the paged routes' actions return it (the gateway moves `pagination` up). */
export type Paged<T> = Page<T>;
/** What the action returns (the envelope's `data`; a page for a paged route). */
export type ResultOf<A extends RoutedAction> = Routes[A] extends { result: infer S }
  ? Routes[A] extends { paged: true }
    ? Paged<FromSchema<S, Schemas>>
    : FromSchema<S, Schemas>
  : null;

/** The shapes as plain JSON Schema (what the converters and generators take). */
export const components = SCHEMAS as unknown as Record<string, JsonSchema>;

/** A route's fastest-validator params: its path ids, query and body; unknown fields are removed. */
export function paramsFor(route: RouteDef, schemas: Record<string, JsonSchema>): Record<string, FvRule | string> {
  const ids = Object.fromEntries(Object.keys(route.ids ?? {}).map((name) => [name, toRule(ID, schemas)]));
  const query = route.query ? toProps(route.query, schemas) : {};
  const body = route.body ? toProps(route.body, schemas) : {};
  return { ...ids, ...query, ...body, $$strict: "remove" };
}

/** A routed action's params, as its service declares them. */
export function paramsOf(action: RoutedAction): Record<string, FvRule | string> {
  return paramsFor(ROUTES[action], components);
}

/** The options of a routed action that come from its route: params, who may call it, Idempotency-Key. */
export function routeAction(action: RoutedAction): { params: Record<string, FvRule | string>; auth?: "user" | "admin"; idempotent?: true } {
  const route: RouteDef = ROUTES[action];
  return {
    params: paramsOf(action),
    ...(route.auth !== "public" ? { auth: route.auth } : {}),
    ...(route.idempotent ? { idempotent: true as const } : {}),
  };
}

/**
 * A routed action's params with the contract's defaults applied to its body and query (batch items
 * too): an omitted field and the same field sent with its default name the same request.
 */
export function paramsWithDefaults(action: string, params: unknown): unknown {
  const route = (ROUTES as Record<string, RouteDef>)[action];
  if (!route) return params;
  let out = params;
  for (const part of [route.query, route.body]) if (part) out = withDefaults(part, out, components);
  return out;
}

/** The gateway's route groups: one moleculer-web route each (rate category, mount point, operator key). */
export type RouteGroup = "trade" | "read" | "sandbox" | "admin";
export const GROUP_MOUNT: Record<RouteGroup, string> = { trade: "", read: "", sandbox: "/sandbox", admin: "/admin" };
export const GROUP_RATE = { trade: "trade", read: "read", sandbox: "faucet", admin: null } as const satisfies Record<
  RouteGroup,
  RateCategory | null
>;

export function groupOf(route: RouteDef): RouteGroup {
  if (route.auth === "admin") return "admin";
  if (route.rate === "faucet") return "sandbox";
  if (route.rate === "trade" || route.rate === "read") return route.rate;
  throw new Error(`contract: ${route.method} ${route.path} has no route group`);
}

/** A group's moleculer-web aliases ("POST /orders" -> "book.place"), in the contract's order. */
export function aliasesOf(group: RouteGroup): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [action, route] of Object.entries(ROUTES) as Array<[string, RouteDef]>) {
    if (groupOf(route) !== group) continue;
    const mount = GROUP_MOUNT[group];
    if (!route.path.startsWith(mount + "/")) throw new Error(`contract: ${route.path} is not under ${mount}`);
    out[`${route.method} ${route.path.slice(mount.length)}`] = action;
  }
  return out;
}

/** The id rule as a fastest-validator rule, for internal actions' params. */
export const ID_PARAM = toRule(ID, components);

/** A component's properties as fastest-validator params (a batch checks each order with PlaceOrderRequest's). */
export function rulesOf(name: keyof Schemas): Record<string, FvRule | string> {
  return { ...toProps(SCHEMAS[name], components), $$strict: "remove" };
}

/** Every routed action (what the gateway's readiness checks). */
export const ROUTED_ACTIONS = Object.keys(ROUTES) as RoutedAction[];
