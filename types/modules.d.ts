// moleculer-db 0.8 ships no typings; only what this project uses is declared.
declare module "moleculer-db" {
  import type { ServiceSchema } from "moleculer";
  class MemoryAdapter {
    constructor(opts?: unknown);
    init(broker: unknown, service: unknown): void;
  }
  const DbService: ServiceSchema & { MemoryAdapter: typeof MemoryAdapter };
  export default DbService;
}
