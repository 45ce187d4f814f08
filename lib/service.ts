import type { Service, ServiceSchema } from "moleculer";

/**
 * ServiceSchema whose lifecycle hooks see the service's own `this` type (settings, methods and
 * state), as handlers and methods already can; the typed-schema style of the Moleculer template.
 */
export type ServiceDef<This extends Service> = Omit<ServiceSchema, "created" | "started" | "stopped"> & {
  created?(this: This): void;
  started?(this: This): Promise<void> | void;
  stopped?(this: This): Promise<void> | void;
};

export function defineService<This extends Service>(def: ServiceDef<This>): ServiceSchema {
  return def as unknown as ServiceSchema;
}
