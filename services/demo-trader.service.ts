/**
 * The sandbox demo's background trader (trading/demo-trader.ts decides): a demo user signed in
 * through auth's ton_proof login like any wallet, funded by the sandbox faucet through the deposit
 * path, trading through the router. On by default only where the demo catalog is seeded on the
 * sandbox chain (`DEMO_TRADER=true|false` overrides); started by server.ts, never in tests unless asked.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Service } from "moleculer";
import nacl from "tweetnacl";
import { configOf } from "../lib/config";
import type { AppContext, SessionUser } from "../mixins/context";
import { defineService } from "../mixins/service";
import { tonProofDigest } from "../auth/ton-proof";
import { walletAddress } from "../auth/wallets";
import { DemoTrader, type DemoHolding, type DemoMarket } from "../trading/demo-trader";

/** Time between trades: a few seconds, so prices move within the first minutes. */
const MIN_GAP_MS = 3_000;
const MAX_GAP_MS = 9_000;

type DemoThis = Service & {
  timer: NodeJS.Timeout | null;
  stopped: boolean;
  user: SessionUser | null;
  trader: DemoTrader | null;
  login(): Promise<SessionUser>;
  as(): { meta: AppContext["meta"] };
  schedule(ms: number): void;
  round(): Promise<void>;
};

/** The demo wallet's key: kept in the data dir so a restart is the same user, else made for this run. */
function demoSeed(dataDir: string): Uint8Array {
  if (dataDir === ":memory:") return nacl.randomBytes(32);
  const file = join(dataDir, "demo-trader.key");
  if (existsSync(file)) {
    const hex = readFileSync(file, "utf8").trim();
    if (!/^[0-9a-f]{64}$/.test(hex)) throw new Error(`${file} is damaged: expected 64 hex digits (delete it to make a new demo wallet)`);
    return Buffer.from(hex, "hex");
  }
  const seed = nacl.randomBytes(32);
  writeFileSync(file, Buffer.from(seed).toString("hex"), { mode: 0o600 });
  return seed;
}

const DemoTraderService = defineService<DemoThis>({
  name: "demoTrader",
  dependencies: ["auth", "catalog", "router", "ledger", "chain"],

  methods: {
    /** Signs in as the demo wallet (auth's own ton_proof check) and returns the session user. */
    async login(this: DemoThis): Promise<SessionUser> {
      const keys = nacl.sign.keyPair.fromSeed(demoSeed(configOf(this.broker).dataDir));
      const publicKey = Buffer.from(keys.publicKey);
      const address = walletAddress(publicKey, "v4r2");
      const meta = { proofDomain: "localhost" };
      const challenge = await this.broker.call<{ domain: string; payload: string }, Record<string, never>>("auth.challenge", {}, { meta });
      const timestamp = Math.floor(Date.now() / 1000);
      const signature = nacl.sign.detached(tonProofDigest(address, challenge.domain, timestamp, challenge.payload), keys.secretKey);
      const session = await this.broker.call<{ accessToken: string }, unknown>(
        "auth.connect",
        {
          address: address.toRawString(),
          publicKey: publicKey.toString("hex"),
          proof: {
            timestamp,
            domain: { lengthBytes: Buffer.byteLength(challenge.domain), value: challenge.domain },
            payload: challenge.payload,
            signature: Buffer.from(signature).toString("base64"),
          },
        },
        { meta },
      );
      const user = await this.broker.call<SessionUser | null, { token: string }>("auth.resolveToken", { token: session.accessToken });
      if (!user) throw new Error("demo trader: the exchange did not accept its own session");
      return user;
    },

    as(this: DemoThis) {
      return { meta: { user: this.user } as AppContext["meta"] };
    },

    schedule(this: DemoThis, ms: number): void {
      if (this.stopped) return;
      this.timer = setTimeout(() => void this.round(), ms);
      this.timer.unref();
    },

    async round(this: DemoThis): Promise<void> {
      try {
        if (!this.user) {
          const user = await this.login();
          this.user = user;
          this.logger.info(`demo trader signed in as ${user.id}`);
        }
        await this.trader?.step();
      } catch (err) {
        // A refused trade (moved market, a pause) or a session that ended: sign in again next round.
        const code = (err as { code?: unknown; type?: unknown }).type;
        if (code === "UNAUTHORIZED") this.user = null;
        this.logger.debug("demo trader round:", (err as Error).message);
      }
      this.schedule(MIN_GAP_MS + Math.floor(Math.random() * (MAX_GAP_MS - MIN_GAP_MS)));
    },
  },

  created(this: DemoThis) {
    this.timer = null;
    this.stopped = false;
    this.user = null;
    const call = <T>(action: string, params: unknown, opts?: unknown) => this.broker.call<T, unknown>(action, params, opts as never);
    this.trader = new DemoTrader({
      markets: async () => {
        const events = await call<{ items: Array<{ id: string }> }>("catalog.listEvents", { category: "all", page: 1, pageSize: 50 });
        const picked = events.items.sort(() => Math.random() - 0.5).slice(0, 3);
        const out: DemoMarket[] = [];
        for (const e of picked) {
          const ev = await call<{ markets: Array<DemoMarket & { status: string; tradingMode: string }> }>("catalog.getEvent", { id: e.id });
          out.push(...ev.markets.filter((m) => m.status === "open" && m.tradingMode === "normal"));
        }
        return out;
      },
      holdings: async () =>
        (
          await call<Array<{ marketId: string; outcome: "YES" | "NO"; quantity: string; lockedQuantity: string }>>(
            "ledger.positions",
            {},
            this.as(),
          )
        ).map((p): DemoHolding => ({ marketId: p.marketId, outcome: p.outcome, free: Number(p.quantity) - Number(p.lockedQuantity) })),
      available: async () => Number((await call<{ available: string }>("ledger.balance", {}, this.as())).available),
      topUp: async (amount) => void (await call("chain.faucet", { amount: String(amount), asset: "USDT" }, this.as())),
      trade: async (o) => void (await call("router.trade", { ...o, quantity: String(o.quantity) }, this.as())),
      log: this.logger,
    });
  },

  started(this: DemoThis) {
    // After the start settles (the catalog seeds its demo events as it starts).
    this.schedule(2_000);
  },

  stopped(this: DemoThis) {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
  },
});

export default DemoTraderService;
