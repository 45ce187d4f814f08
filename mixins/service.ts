import type { Context, Service, ServiceSchema } from "moleculer";
import type { EventName, EventPayload } from "../contract/broker-events";
import type { RequestMeta } from "./context";

/** The named members of T (Moleculer's Service and ServiceSchema also take any key). */
type KnownKeys<T> = keyof { [K in keyof T as string extends K ? never : number extends K ? never : symbol extends K ? never : K]: T[K] };

/** Members the service adds to Moleculer's Service, less those its mixins provide (`Provided`). */
type Own<This, Provided extends PropertyKey> = Pick<This, Exclude<KnownKeys<This>, KnownKeys<Service> | Provided>>;

type MethodKeys<T> = { [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => unknown ? K : never }[keyof T];

/**
 * What `methods` must be: every method member the service declares on its `This` type (and no
 * other), each with the declared parameters and result, run with the service as `this`.
 */
export type MethodsOf<This, Provided extends PropertyKey = never> = {
  [K in MethodKeys<Own<This, Provided>>]: NonNullable<Own<This, Provided>[K]> extends (...args: infer A) => infer R
    ? (this: This, ...args: A) => R
    : never;
};

type MethodsField<This, Provided extends PropertyKey> = [MethodKeys<Own<This, Provided>>] extends [never]
  ? { methods?: Record<string, never> }
  : { methods: MethodsOf<This, Provided> };

/** An event handler: `ctx.params` is what the event carries; the service is `this`. */
export type EventHandler<This, P> = (this: This, ctx: Context<P, RequestMeta>) => unknown;
type EventDef<This, P> = EventHandler<This, P> | { handler: EventHandler<This, P>; params?: Record<string, unknown>; group?: string };
/**
 * What `events` may hold: a handler per event of the contract's map (contract/broker-events.ts),
 * which takes that event's payload (an unknown event name, or a handler expecting another
 * payload, does not compile), and Moleculer's internal `$` events.
 */
export type EventsDef<This> = { [E in EventName]?: EventDef<This, EventPayload<E>> } & { [E in `$${string}`]?: EventDef<This, unknown> };

/**
 * A service schema checked against the service's own `this` type: `methods` implements exactly
 * the methods `This` declares (a declared method without an implementation, a wrong signature or
 * an undeclared method does not compile), and the lifecycle hooks see `This`, as handlers do.
 * `Provided` names members of `This` that a mixin implements (moleculer-web's `addRoute`, ...).
 */
export type ServiceDef<This extends Service, Provided extends PropertyKey = never> = Pick<
  ServiceSchema,
  "name" | "version" | "settings" | "dependencies" | "metadata" | "actions" | "mixins" | "hooks"
> & {
  /** Handlers of the contract's broker events (their `ctx.params` is the event's payload) and of Moleculer's own `$` events. */
  events?: EventsDef<This>;
  /** After the mixins are merged into the schema, before the service is created. */
  merged?(this: This, schema: ServiceSchema): void;
  created?(this: This): void;
  started?(this: This): Promise<void> | void;
  stopped?(this: This): Promise<void> | void;
} & MethodsField<This, Provided>;

export function defineService<This extends Service, Provided extends PropertyKey = never>(def: ServiceDef<This, Provided>): ServiceSchema {
  return def as unknown as ServiceSchema;
}
