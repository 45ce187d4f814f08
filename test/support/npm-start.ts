/**
 * `npm start` as a person runs it: a shell command in its own process group, read until the
 * start-up banner, stopped with SIGTERM to the whole group (npm, sh and node).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";

/** Every process below `root` (Linux /proc), e.g. the node server npm started. */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      /* gone meanwhile */
    }
  }
  const out: number[] = [];
  for (let queue = [root]; queue.length;) {
    const next = children.get(queue.shift() as number) ?? [];
    out.push(...next);
    queue.push(...next);
  }
  return out;
}

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
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  // npm may leave before the node server finished its graceful stop (it forwards the signal): wait
  // for every process the command started, not just for the shell.
  const stop = async () => {
    const pids = [child.pid as number, ...descendants(child.pid as number)];
    if (alive(child.pid as number)) process.kill(-(child.pid as number), "SIGTERM");
    await exited;
    const deadline = Date.now() + 30_000;
    while (pids.some(alive)) {
      if (Date.now() > deadline) {
        for (const pid of pids.filter(alive)) process.kill(pid, "SIGKILL");
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
      const field = (label: string) =>
        lines
          .find((l) => l.trimStart().startsWith(label))
          ?.trimStart()
          .slice(label.length)
          .trim()
          .split(" ")[0];
      resolve({
        child,
        banner: {
          url: /^Exchange ready at (\S+)/.exec(lines[0])?.[1] ?? "",
          domain: field("login domain") ?? "",
          operatorKey: field("operator key"),
          lines,
        },
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
