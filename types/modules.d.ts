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

// NeDB's file layer; its append and rewrite entry points are replaced by mixins/nedb-files.ts.
declare module "@seald-io/nedb/lib/storage.js" {
  const storage: {
    appendFileAsync(filename: string, data: string, options?: { encoding?: BufferEncoding; mode?: number }): Promise<void>;
    crashSafeWriteFileLinesAsync(filename: string, lines: string[], modes?: unknown): Promise<void>;
    unlinkAsync(filename: string): Promise<void>;
  };
  export = storage;
}
