import { spawn, type ChildProcess } from "node:child_process";
import { connect } from "node:net";
import { freePort } from "./redis";

export interface NatsServer {
  url: string;
  port: number;
  stop(): Promise<void>;
  /** Start again on the same port (after stop), as an operator restarting NATS would. */
  restart(): Promise<void>;
}

function waitForPort(port: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = connect(port, "127.0.0.1");
      s.once("connect", () => {
        s.destroy();
        resolve();
      });
      s.once("error", () => {
        s.destroy();
        if (Date.now() > deadline) reject(new Error(`nothing listens on ${port}`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/** A real nats-server (Debian package, installed by scripts/test-setup.sh) on a free loopback port. */
export async function startNats(): Promise<NatsServer> {
  const port = await freePort();
  let proc: ChildProcess;
  const launch = async () => {
    proc = spawn("nats-server", ["-a", "127.0.0.1", "-p", String(port)], { stdio: "ignore" });
    await waitForPort(port);
  };
  await launch();
  const stop = () =>
    new Promise<void>((resolve) => {
      if (proc.exitCode !== null || proc.signalCode !== null) return resolve();
      proc.once("exit", () => resolve());
      proc.kill("SIGTERM");
    });
  return { url: `nats://127.0.0.1:${port}`, port, stop, restart: launch };
}
