/**
 * One server process on a temp data dir, as the race, conversion, event pool and resolution e2e
 * tests set it up: the operator's header, funded users logged in with a fresh wallet, orders, the
 * money check, a wait that follows progress, and restarts on the same dir (the process in `node`
 * is the current one).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConservationReport } from "../../engine/accounts";
import { embeddedEnv, NodeProcess } from "./node-process";
import { TestWallet } from "./wallet";

export const SHARE = 1_000_000;

export type User = { token: string; userId: string };

export class ExchangeNode {
  node!: NodeProcess;
  readonly env: Record<string, string>;
  /** The operator's header. */
  readonly admin: Record<string, string>;

  private constructor(
    readonly dir: string,
    readonly domain: string,
    adminKey: string,
    env: Record<string, string>,
  ) {
    this.admin = { "x-admin-key": adminKey };
    this.env = embeddedEnv(dir, domain, adminKey, { RATE_LIMIT_TRADE: "100000", RATE_LIMIT_READ: "100000", ...env });
  }

  /** A server on a new temp dir named after `name`; `env` over the test defaults (generous rate limits). */
  static async start(name: string, domain: string, adminKey: string, env: Record<string, string> = {}): Promise<ExchangeNode> {
    const x = new ExchangeNode(mkdtempSync(join(tmpdir(), `pmx-${name}-`)), domain, adminKey, env);
    await x.restart();
    return x;
  }

  /** A new process on the same dir (after `node.stop(...)`, or in place of a running one stopped with `signal`). */
  async restart(signal?: NodeJS.Signals, env: Record<string, string> = {}): Promise<NodeProcess> {
    if (signal) await this.node.stop(signal);
    this.node = await NodeProcess.start({ ...this.env, ...env });
    return this.node;
  }

  /** afterAll: the process killed, the dir gone. */
  async close(): Promise<void> {
    await this.node?.stop("SIGKILL").catch(() => undefined);
    rmSync(this.dir, { recursive: true, force: true });
  }

  /** A new user logged in with a fresh wallet, funded with `amount` micro-USDT. */
  async user(amount = 100 * SHARE): Promise<User> {
    const login = await this.node.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: this.domain }) });
    await this.node.ctl({ cmd: "fund", userId: login.body.data.userId, amount });
    return { token: login.body.data.accessToken, userId: login.body.data.userId };
  }

  /** POST /orders (GTC unless the body says otherwise). */
  order(u: User, marketId: string, body: Record<string, unknown>) {
    return this.node.http("POST", "/api/v1/orders", { token: u.token, body: { marketId, orderType: "GTC", ...body } });
  }

  /** The ledger's conservation report. */
  books(): Promise<ConservationReport> {
    return this.node.ctl<ConservationReport>({ cmd: "conservation" });
  }

  /**
   * Polls `fn` (errors count as not yet, as while a process comes up) until it gives a truthy
   * value; fails after `ms`, a ceiling well above the time it takes.
   */
  async until<T>(what: string, fn: () => Promise<T | null | false>, ms = 30_000): Promise<T> {
    const end = Date.now() + ms;
    for (;;) {
      const v = await fn().catch(() => null);
      if (v) return v;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
