/**
 * The money store's writer thread: group commits are written and synced here, so the event loop
 * that matches orders and answers requests never waits on SQLite's inserts (a large group took
 * several milliseconds there). One commit at a time, in the order they arrive.
 */
import { writeFileSync } from "node:fs";
import { parentPort, workerData } from "node:worker_threads";
import { openConnection } from "./sqlite-connection";
import { SqliteWriter, WRITER_THREAD_NAME, type WriteBatch, type WriterTarget } from "./sqlite-writer";
import { CommitRefused } from "./store";

/** A group commit, or (`flush`) the read models of every commit before it written now. */
export type WriterRequest = { id: number; batch: WriteBatch } | { id: number; flush: true };
/**
 * `refused`: the commit was rolled back whole and may succeed later (CommitRefused). `projected`:
 * the last entry whose read-model rows are written; sent alone (id 0) after a deferred projection.
 */
export type WriterReply =
  { id: number; ok: true; projected: number } | { id: number; ok: false; message: string; code?: string; refused?: { diskFull: boolean } };

try {
  // Linux only; elsewhere the thread keeps its default name.
  writeFileSync("/proc/thread-self/comm", WRITER_THREAD_NAME);
} catch {
  /* not Linux */
}

const target = workerData as WriterTarget;
const port = parentPort;
if (!port || !target.file) throw new Error("sqlite-writer-thread runs as a worker over a database file");
const db = openConnection(target.file, "writer");
const writer = new SqliteWriter(db, target, (projected) => port.postMessage({ id: 0, ok: true, projected } satisfies WriterReply));
const failure = (id: number, err: Error & { code?: string }): WriterReply => ({
  id,
  ok: false,
  message: err.message,
  code: err.code,
  ...(err instanceof CommitRefused ? { refused: { diskFull: err.diskFull } } : {}),
});

let chain = Promise.resolve();
port.on("message", (req: WriterRequest | "close") => {
  if (req === "close") {
    chain = chain.then(() => {
      writer.close();
      db.close();
      port.close();
    });
    return;
  }
  if ("flush" in req) {
    chain = chain.then(() => {
      try {
        port.postMessage({ id: req.id, ok: true, projected: writer.project() } satisfies WriterReply);
      } catch (err) {
        port.postMessage(failure(req.id, err as Error));
      }
    });
    return;
  }
  chain = chain.then(() =>
    writer.commit(req.batch).then(
      () => {
        port.postMessage({ id: req.id, ok: true, projected: writer.projectedSeq } satisfies WriterReply);
        // Answered: a projection or checkpoint that is due runs before the next commit, never inside one.
        try {
          if (writer.projectIfDue()) port.postMessage({ id: 0, ok: true, projected: writer.projectedSeq } satisfies WriterReply);
        } catch {
          // Kept for the next try (the timer, a read's flush, the close).
        }
        writer.checkpointIfDue();
      },
      (err: Error & { code?: string }) => port.postMessage(failure(req.id, err)),
    ),
  );
});
