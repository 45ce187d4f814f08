/**
 * A full disk under a real server process: the data dir is a small tmpfs, filled to its last byte
 * by a filler file while orders stream in over HTTP. Orders are refused with 503 + Retry-After (nothing
 * executed), the process stays up and keeps serving reads, the money adds up and nothing
 * acknowledged is lost; once the filler is gone orders go through again without a restart, and a
 * restart shows every acknowledged order and nothing else. A start on a full disk refuses in words.
 */
import { execFileSync } from "node:child_process";
import { randomBytes, randomUUID } from "node:crypto";
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, rmSync, statfsSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOT } from "../../engine/money";
import type { ConservationReport } from "../../engine/accounts";
import { embeddedEnv, NodeProcess, NODE_JS, ROOT } from "../support/node-process";
import { ServerProcess } from "../support/server-process";
import { connectSocket } from "../support/socket";
import { until } from "../support/until";
import { TestWallet } from "../support/wallet";

const APP_DOMAIN = "diskfull.exchange.test";
const ADMIN_KEY = "diskfull-admin-key";
const SHARE = 1_000_000;
const FUNDS = 10_000 * SHARE;
/** Room for the stores and their write-ahead logs; the filler takes whatever is left. */
const DISK_KB = 12 * 1024;
const WORKERS = 4;

/** Mounts a tmpfs of `kb` KiB on a fresh directory, or null when this machine does not allow it. */
function mountTmpfs(kb: number): { dir: string; unmount(): void } | null {
  const dir = mkdtempSync(join(tmpdir(), "pmx-diskfull-"));
  try {
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${kb}k`, "tmpfs", dir], { stdio: "pipe" });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    console.warn(`disk-full tests skipped: mounting a tmpfs is not permitted here (${(err as Error).message.split("\n")[0]})`);
    return null;
  }
  return {
    dir,
    unmount() {
      execFileSync("umount", ["-l", dir], { stdio: "pipe" });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Writes `path` until the disk refuses another byte; returns the bytes written. */
function fillDisk(path: string): number {
  const fd = openSync(path, "w");
  let written = 0;
  try {
    for (const chunk of [1 << 20, 1 << 12, 1]) {
      const buf = Buffer.alloc(chunk, 0x5a);
      for (;;) {
        try {
          written += writeSync(fd, buf);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== "ENOSPC") throw err;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

const mount = mountTmpfs(DISK_KB);
const maybe = mount ? test : test.skip;

interface User {
  token: string;
  userId: string;
}

interface Sent {
  user: number;
  key: string;
  body: Record<string, unknown>;
  status: number;
  orderId?: string;
  code?: string;
  retryAfter: string | null;
}

describe("a full disk under the money path", () => {
  const dataDir = mount ? join(mount.dir, "data") : "";
  const env = embeddedEnv(dataDir, APP_DOMAIN, ADMIN_KEY, { RATE_LIMIT_READ: "1000000", RATE_LIMIT_TRADE: "1000000" });
  const filler = mount ? join(mount.dir, "filler") : "";
  let node: NodeProcess | null = null;
  const users: User[] = [];
  let marketId = "";
  const sent: Sent[] = [];

  beforeAll(() => {
    if (!mount) return;
    if (!existsSync(NODE_JS) || !existsSync(join(ROOT, "dist/server.js")))
      throw new Error(`${NODE_JS} and dist/server.js are built by \`npm run build\` first`);
  });

  afterAll(async () => {
    await node?.stop("SIGKILL");
    mount?.unmount();
  });

  let n = 0;
  /** A limit BUY of user `u`, YES or NO at prices around 50 (so some cross and mint shares). */
  function order(u: number): Record<string, unknown> {
    n++;
    return {
      marketId,
      side: "BUY",
      outcome: (n + u) % 2 === 0 ? "YES" : "NO",
      orderType: "GTC",
      price: (44 + (n % 13)) / 100,
      quantity: (1 + (n % 5)) * SHARE + (n % 3) * LOT * 10,
    };
  }

  async function send(nd: NodeProcess, user: number, body: Record<string, unknown>, key: string = randomUUID()): Promise<Sent> {
    const r = await nd.http("POST", "/api/v1/orders", { token: users[user].token, body, headers: { "idempotency-key": key } });
    const s: Sent = {
      user,
      key,
      body,
      status: r.status,
      orderId: r.status === 200 ? r.body.data.orderId : undefined,
      code: r.body?.error?.code,
      retryAfter: r.headers.get("retry-after"),
    };
    sent.push(s);
    return s;
  }

  /** Every order of a user the API lists, any status. */
  async function ordersOf(nd: NodeProcess, u: number): Promise<string[]> {
    const ids: string[] = [];
    for (let page = 1; ; page++) {
      const r = await nd.http("GET", `/api/v1/orders?status=all&page=${page}&pageSize=100`, { token: users[u].token });
      expect(r.status).toBe(200);
      ids.push(...r.body.data.map((o: { orderId: string }) => o.orderId));
      if (!r.body.pagination.hasNext) return ids;
    }
  }

  const acknowledged = () => new Set(sent.filter((s) => s.status === 200).map((s) => s.orderId as string));

  /** GET /orders of every user lists exactly the acknowledged orders. */
  async function expectExactlyAcknowledged(nd: NodeProcess): Promise<void> {
    const listed = (await Promise.all(users.map((_, u) => ordersOf(nd, u)))).flat();
    expect(listed.length).toBe(new Set(listed).size);
    expect(new Set(listed)).toEqual(acknowledged());
  }

  maybe(
    "orders are refused with 503 while the disk is full, reads go on, nothing acknowledged is lost; space back, orders go through; a restart shows exactly the acknowledged ones",
    async () => {
      node = await NodeProcess.start(env);
      const a = node;
      const ev = await a.http("POST", "/api/v1/admin/events", {
        headers: { "x-admin-key": ADMIN_KEY },
        body: { title: "Event Disk full?", category: "Culture", markets: [{ title: "Disk full?" }] },
      });
      expect([200, 201]).toContain(ev.status);
      marketId = ev.body.data.markets[0].id;
      for (let i = 0; i < 2; i++) {
        const r = await a.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: APP_DOMAIN }) });
        expect(r.status).toBe(200);
        users.push({ token: r.body.data.accessToken, userId: r.body.data.userId });
        await a.ctl({ cmd: "fund", userId: r.body.data.userId, amount: FUNDS });
      }

      // A stream of orders from a few clients; the disk fills up under it after some are acknowledged.
      let filled = false;
      const refusedWhileFull = () => sent.filter((s) => s.status === 503).length;
      const worker = async (w: number) => {
        for (;;) {
          if (filled && refusedWhileFull() >= 12) return;
          await send(a, w % 2, order(w));
          if (!filled && sent.filter((x) => x.status === 200).length >= 30) {
            filled = true;
            fillDisk(filler);
          }
          if (sent.length > 5_000) throw new Error("the disk never refused a write");
        }
      };
      await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
      expect(statfsSync(mount!.dir).bavail).toBe(0);
      expect(a.child.exitCode).toBeNull();

      const others = sent.filter((s) => s.status !== 200 && s.status !== 503);
      expect(others).toEqual([]);
      for (const s of sent.filter((x) => x.status === 503)) {
        expect(s.code).toBe("SERVICE_UNAVAILABLE");
        expect(Number(s.retryAfter)).toBeGreaterThan(0);
      }
      const ackedBeforeFree = acknowledged().size;
      expect(ackedBeforeFree).toBeGreaterThanOrEqual(30);

      // Still full: more orders are refused, and every read still answers.
      const more = await send(a, 0, order(0));
      expect(more.status).toBe(503);
      for (const path of ["/api/v1/events", `/api/v1/markets/${marketId}`, `/api/v1/markets/${marketId}/orderbook`])
        expect({ path, status: (await a.http("GET", path)).status }).toEqual({ path, status: 200 });
      for (const u of users)
        for (const path of ["/api/v1/balance", "/api/v1/positions", "/api/v1/trades"])
          expect({ path, status: (await a.http("GET", path, { token: u.token })).status }).toEqual({ path, status: 200 });
      await expectExactlyAcknowledged(a);
      const sock = await connectSocket(a.url);
      try {
        sock.subscribe({ channel: "book", marketId });
        await sock.waitFor((m) => m.type === "snapshot", { timeoutMs: 10_000 });
        await sock.sync();
      } finally {
        sock.close();
      }
      // The other stores' writes (sessions, the catalog) are refused the same way once their files'
      // last pages are full too (an append may still fit in one); nothing stops.
      const writes: Array<{ status: number; code?: string; retryAfter: string | null }> = [];
      for (let i = 0; i < 40 && writes.filter((w) => w.status === 503).length < 4; i++) {
        const r =
          i % 2
            ? await a.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: APP_DOMAIN }) })
            : await a.http("POST", "/api/v1/admin/events", {
                headers: { "x-admin-key": ADMIN_KEY },
                body: { title: `Event While full ${i}?`, category: "Culture", markets: [{ title: `While full ${i}?` }] },
              });
        writes.push({ status: r.status, code: r.body?.error?.code, retryAfter: r.headers.get("retry-after") });
      }
      expect(writes.filter((w) => w.status === 503).length).toBeGreaterThanOrEqual(4);
      // A refused event is not listed (it is not in the file either).
      const titles = (await a.http("GET", "/api/v1/events?pageSize=100")).body.data.map((e: { title: string }) => e.title).sort();
      const created = writes.flatMap((w, i) => (w.status === 201 ? [`Event While full ${i}?`] : []));
      expect(titles).toEqual(["Event Disk full?", ...created].sort());
      for (const w of writes.filter((x) => x.status !== 200 && x.status !== 201)) {
        expect({ status: w.status, code: w.code }).toEqual({ status: 503, code: "SERVICE_UNAVAILABLE" });
        expect(Number(w.retryAfter)).toBeGreaterThan(0);
      }
      expect(a.child.exitCode).toBeNull();
      const full = await a.ctl<ConservationReport & { badOrders: unknown[]; badLocks: unknown[] }>({ cmd: "conservation" });
      expect(full).toMatchObject({ ok: true, badOrders: [], badLocks: [] });
      expect(full.deposits).toBe(2 * FUNDS);

      // Space comes back: the refused requests, sent again under their keys, now execute (once).
      rmSync(filler);
      const refused = sent.filter((s) => s.status === 503);
      for (const s of refused) {
        const again = await send(a, s.user, s.body, s.key);
        expect({ key: again.key, status: again.status, code: again.code }).toEqual({ key: s.key, status: 200, code: undefined });
      }
      for (let i = 0; i < 10; i++) expect((await send(a, i % 2, order(i))).status).toBe(200);
      expect((await a.http("POST", "/api/v1/auth/connect", { body: TestWallet.random().connectBody({ domain: APP_DOMAIN }) })).status).toBe(
        200,
      );
      // A key that executed answers the same order again, not a second one.
      const replay = await a.http("POST", "/api/v1/orders", {
        token: users[refused[0].user].token,
        body: refused[0].body,
        headers: { "idempotency-key": refused[0].key },
      });
      expect(replay.status).toBe(200);
      expect(replay.headers.get("idempotent-replayed")).toBe("true");
      expect(acknowledged().has(replay.body.data.orderId)).toBe(true);
      await expectExactlyAcknowledged(a);
      expect(await a.ctl({ cmd: "conservation" })).toMatchObject({ ok: true, badOrders: [], badLocks: [] });

      // A restart shows every acknowledged order and nothing else; the journal replays to the books.
      await a.stop("SIGTERM");
      expect(a.child.exitCode).toBe(0);
      node = await NodeProcess.start(env);
      await expectExactlyAcknowledged(node);
      expect(await node.ctl({ cmd: "conservation" })).toMatchObject({ ok: true, badOrders: [], badLocks: [] });
      const audit = await node.ctl<{ ok: boolean; problems: string[] }>({ cmd: "call", action: "ledger.verify" });
      expect(audit.problems).toEqual([]);
      expect((await send(node, 1, order(1))).status).toBe(200);
      await node.stop("SIGTERM");
      node = null;
    },
    240_000,
  );

  maybe(
    "a start on a full disk refuses in words: which data dir, how much is free, what to do",
    async () => {
      const fresh = join(mount!.dir, "fresh");
      mkdirSync(fresh);
      fillDisk(filler);
      try {
        for (const dir of [dataDir, fresh]) {
          const p = ServerProcess.start({ ...embeddedEnv(dir, APP_DOMAIN, ADMIN_KEY), LOG_LEVEL: "info" });
          const code = await p.exited;
          expect(code).not.toBe(0);
          expect(p.output).toContain(dir);
          expect(p.output).toMatch(/disk .*full/i);
          expect(p.output).toMatch(/free/i);
          // Words, not a stack trace.
          expect(p.output).not.toMatch(/^\s+at /m);
        }
      } finally {
        rmSync(filler);
      }
      // With room again the same data dir starts and holds what it held.
      const p = ServerProcess.start({ ...embeddedEnv(dataDir, APP_DOMAIN, ADMIN_KEY), JWT_SECRET: randomBytes(32).toString("hex") });
      try {
        await until("the server's banner", () => /Exchange ready at (\S+)/.exec(p.output), 30_000);
      } finally {
        expect(await p.stop()).toBe(0);
      }
    },
    120_000,
  );
});
