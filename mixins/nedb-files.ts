import { open, type FileHandle } from "node:fs/promises";
import storage = require("@seald-io/nedb/lib/storage.js");

/**
 * NeDB appends every write with `fs.promises.appendFile`: open, write and close, three trips
 * through libuv's thread pool per document write. A read-model pass of a few orders waited on a
 * dozen of those in a row, and every order acknowledgement waited on that pass. Here each data
 * file keeps one append handle: one write per append. A rewrite of the file (NeDB's compaction,
 * which renames a new file over it) or its removal first closes that handle, so the next append
 * opens the new file. Appends to one file are already serialised by NeDB's executor.
 */
const handles = new Map<string, Promise<FileHandle>>();
const originalRewrite = storage.crashSafeWriteFileLinesAsync;
const originalUnlink = storage.unlinkAsync;
let installed = false;

/** Closes the kept-open append handle of this data file, if any. */
export async function closeNedbFile(filename: string): Promise<void> {
  const fh = handles.get(filename);
  if (!fh) return;
  handles.delete(filename);
  await (await fh.catch(() => null))?.close();
}

/** Installs the kept-open appends into NeDB's file layer (once per process). */
export function keepNedbFilesOpen(): void {
  if (installed) return;
  installed = true;
  storage.appendFileAsync = async (filename, data, options = {}) => {
    let fh = handles.get(filename);
    if (!fh) {
      fh = open(filename, "a", options.mode);
      handles.set(filename, fh);
      fh.catch(() => handles.delete(filename));
    }
    await (await fh).appendFile(data, { encoding: options.encoding ?? "utf8" });
  };
  storage.crashSafeWriteFileLinesAsync = async (filename, lines, modes) => {
    await closeNedbFile(filename);
    await originalRewrite(filename, lines, modes);
  };
  storage.unlinkAsync = async (filename) => {
    await closeNedbFile(filename);
    await originalUnlink(filename);
  };
}
