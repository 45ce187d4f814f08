import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { ROOT } from "./node-process";

/** `node dist/server.js` as `npm start` runs it: its whole output, its exit. */
export class ServerProcess {
  output = "";
  readonly exited: Promise<number | null>;

  private constructor(readonly child: ChildProcess) {
    const collect = (d: Buffer) => {
      this.output += d.toString();
    };
    child.stdout?.on("data", collect);
    child.stderr?.on("data", collect);
    this.exited = new Promise((res) => child.once("exit", (code) => res(code)));
  }

  /** Start with exactly this environment (plus PATH and HOME), logs on, colours off. */
  static start(env: Record<string, string>): ServerProcess {
    const child = spawn(process.execPath, [join(ROOT, "dist/server.js")], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "", NO_COLOR: "1", FORCE_COLOR: "0", ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    return new ServerProcess(child);
  }

  /** Until `GET url` answers `status`, or the process ends, or the time is up. */
  async waitFor(url: string, status = 200, timeoutMs = 120_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    let exited = false;
    void this.exited.then(() => (exited = true));
    for (;;) {
      if (exited) throw new Error(`the server exited before ${url} answered ${status}:\n${this.output}`);
      const got = await fetch(url).then(
        (r) => r.status,
        () => 0,
      );
      if (got === status) return;
      if (Date.now() > end) throw new Error(`${url} did not answer ${status} in ${timeoutMs} ms (last ${got}):\n${this.output}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** SIGTERM (as Kubernetes and `docker stop` send it), then the exit code. */
  async stop(): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill("SIGTERM");
    return this.exited;
  }

  /** Log lines at WARN or above (Moleculer's console format). */
  warnings(): string[] {
    return this.output.split("\n").filter((l) => /\b(WARN|ERROR|FATAL)\b/.test(l));
  }
}
