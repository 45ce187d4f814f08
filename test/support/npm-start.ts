/**
 * `npm start` as a person runs it: a shell command in its own process group, read until the
 * start-up banner, stopped with SIGTERM to the whole group (npm, sh and node).
 */
import { spawn, type ChildProcess } from "node:child_process";

export interface Banner {
  url: string;
  domain: string;
  /** The banner's lines, from "Exchange ready at ..." to the blank line after it. */
  lines: string[];
  /** Present only on the start that generated the operator key. */
  operatorKey?: string;
}

export interface StartedNpm {
  child: ChildProcess;
  banner: Banner;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  stop(): Promise<void>;
}

export function startNpm(line: string, o: { cwd: string; env: Record<string, string>; timeoutMs?: number }): Promise<StartedNpm> {
  const child = spawn("sh", ["-c", line], { cwd: o.cwd, env: o.env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const groupAlive = () => {
    try {
      process.kill(-(child.pid as number), 0);
      return true;
    } catch {
      return false;
    }
  };
  // npm and sh may exit before the node server has finished its graceful stop: wait for the group.
  const stop = async () => {
    if (groupAlive()) process.kill(-(child.pid as number), "SIGTERM");
    await exited;
    const deadline = Date.now() + 30_000;
    while (groupAlive()) {
      if (Date.now() > deadline) {
        process.kill(-(child.pid as number), "SIGKILL");
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  return new Promise((resolve, reject) => {
    const timeoutMs = o.timeoutMs ?? 180_000;
    const timer = setTimeout(() => {
      void stop();
      reject(new Error(`no banner within ${timeoutMs} ms:\n${out.slice(-4000)}`));
    }, timeoutMs);
    child.stdout?.on("data", (d: Buffer) => {
      out += d.toString();
      const at = out.indexOf("Exchange ready at ");
      const end = at < 0 ? -1 : out.indexOf("\n\n", at);
      if (end < 0) return;
      clearTimeout(timer);
      const lines = out.slice(at, end).split("\n");
      const field = (label: string) => lines.find((l) => l.trimStart().startsWith(label))?.trimStart().slice(label.length).trim().split(" ")[0];
      resolve({
        child,
        banner: { url: /^Exchange ready at (\S+)/.exec(lines[0])?.[1] ?? "", domain: field("login domain") ?? "", operatorKey: field("operator key"), lines },
        output: () => out,
        stop,
      });
    });
    child.stderr?.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`\`${line}\` exited ${code} before its banner:\n${out.slice(-4000)}`));
    });
  });
}
