import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createHash, randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import type { ServiceBroker } from "moleculer";
import { loadConfig, type AppConfig } from "../../lib/config";
import { createNode } from "../../server";
import { TestWallet } from "./wallet";

export const TEST_DOMAIN = "exchange.test";

export interface HttpResult<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestServer {
  broker: ServiceBroker;
  cfg: AppConfig;
  url: string;
  /** Plain HTTP against the gateway; JSON in and out. */
  http<T = any>(
    method: string,
    path: string,
    opts?: { body?: unknown; token?: string; headers?: Record<string, string>; raw?: string },
  ): Promise<HttpResult<T>>;
  /** Log a wallet in and return its token and user id. */
  login(wallet?: TestWallet): Promise<{ token: string; userId: string; wallet: TestWallet }>;
  stop(): Promise<void>;
}

/**
 * One node with the given services on a random port, with an isolated data dir (or memory);
 * the real gateway, real broker, real storage engine.
 */
/**
 * With MONGO_URI in the environment every storage-touching test runs against MongoDB instead of
 * the embedded store, each server in a database of its own (same test files, other engine).
 */
export function testMongoUri(dbName = `pmx_test_${randomBytes(6).toString("hex")}`): string | undefined {
  const base = process.env.MONGO_URI;
  if (!base) return undefined;
  const u = new URL(base);
  u.pathname = `/${dbName}`;
  return u.toString();
}

export async function startServer(
  env: Record<string, string> = {},
  opts: { persist?: boolean; dataDir?: string } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? (opts.persist ? mkdtempSync(join(tmpdir(), "pmx-test-")) : ":memory:");
  // A restart on the same data dir must find the same database.
  const mongo =
    env.MONGO_URI ??
    testMongoUri(dataDir === ":memory:" ? undefined : `pmx_${createHash("sha1").update(dataDir).digest("hex").slice(0, 12)}`);
  const cfg = loadConfig({
    DATA_DIR: dataDir,
    PORT: "0",
    HOST: "127.0.0.1",
    APP_DOMAIN: TEST_DOMAIN,
    JWT_SECRET: randomBytes(32).toString("hex"),
    LOG_LEVEL: "false",
    SEED_DEMO: "false",
    ...(mongo ? { MONGO_URI: mongo } : {}),
    ...env,
  });
  const broker = createNode(cfg);
  await broker.start();
  const api = broker.getLocalService("api") as unknown as { server?: Server } | undefined;
  const port = api?.server ? (api.server.address() as AddressInfo).port : 0;
  const url = `http://127.0.0.1:${port}`;

  const http: TestServer["http"] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    let body: string | undefined = o.raw;
    if (o.body !== undefined) {
      headers["content-type"] = "application/json";
      body = JSON.stringify(o.body);
    }
    const res = await fetch(url + path, { method, headers, body });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      /* non-JSON stays text */
    }
    return { status: res.status, headers: res.headers, body: parsed as any };
  };

  return {
    broker,
    cfg,
    url,
    http,
    async login(wallet = TestWallet.random()) {
      const res = await http("POST", "/api/v1/auth/connect", { body: wallet.connectBody({ domain: TEST_DOMAIN }) });
      if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
      return { token: res.body.data.accessToken, userId: res.body.data.userId, wallet };
    },
    async stop() {
      await broker.stop();
      if (opts.persist && !opts.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
