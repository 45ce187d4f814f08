/** The terminal a command talks to: an interface (tests drive the CLI in-process) and the real one. */
import { createInterface } from "node:readline";

export interface CliIo {
  /** Standard output, one call per line (no trailing newline needed). */
  out(line: string): void;
  err(line: string): void;
  /** Ask one question; null when input ended (no terminal, nothing piped). */
  prompt(question: string): Promise<string | null>;
  /** All of standard input (wallet import). */
  readAll(): Promise<string>;
  env: Record<string, string | undefined>;
  isTTY: boolean;
  /** Resolves on Ctrl-C (watch). */
  interrupted(): { promise: Promise<void>; dispose(): void };
  /** Clear the screen before a redraw (watch on a terminal). */
  clear?(): void;
  fetch?: typeof fetch;
}

/** The real terminal. */
export function processIo(): CliIo {
  // `trade events | head` closes the pipe early: that is the reader's choice, not a failure.
  process.stdout.on("error", (err: NodeJS.ErrnoException) => {
    if (err.code === "EPIPE") process.exit(0);
    throw err;
  });
  return {
    out: (line) => process.stdout.write(line + "\n"),
    err: (line) => process.stderr.write(line + "\n"),
    prompt: promptLine,
    async readAll() {
      const chunks: Buffer[] = [];
      for await (const c of process.stdin) chunks.push(Buffer.from(c as Buffer));
      return Buffer.concat(chunks).toString("utf8");
    },
    env: process.env,
    isTTY: !!process.stdout.isTTY,
    interrupted() {
      let handler: () => void = () => undefined;
      const promise = new Promise<void>((res) => {
        handler = () => res();
        process.once("SIGINT", handler);
      });
      return { promise, dispose: () => process.off("SIGINT", handler) };
    },
    clear: () => process.stdout.write("\x1b[2J\x1b[H"),
  };
}

function promptLine(question: string): Promise<string | null> {
  process.stderr.write(question);
  // One interface per question, closed after it, so nothing keeps stdin open afterwards.
  const rl = createInterface({ input: process.stdin, terminal: false });
  return new Promise<string | null>((res) => {
    let answered = false;
    rl.once("line", (line) => {
      answered = true;
      if (!process.stdin.isTTY) process.stderr.write("\n");
      rl.close();
      res(line);
    });
    rl.once("close", () => {
      if (!answered) res(null);
    });
  });
}
