/**
 * Login and sessions (auth/auth.ts) with in-memory fakes of the store ports: no broker. Proofs
 * are made by a software wallet and init data signed as Telegram does (the verifiers are real).
 */
import {
  Auth,
  MAX_SESSIONS_PER_USER,
  PROOF_MAX_AGE_SEC,
  REFRESH_WINDOW_SEC,
  type AuthEvent,
  type AuthOut,
  type AuthPorts,
} from "../../auth/auth";
import { verifyToken, DEFAULT_TOKEN_TTL_SEC } from "../../auth/tokens";
import type { SessionDoc, UsedProofDoc, UserDoc } from "../../models/user";
import { signInitData, TEST_BOT_TOKEN } from "../support/telegram";
import { TestWallet } from "../support/wallet";
import { Refusal } from "../../engine/refusal";

const DOMAIN = "exchange.test";
const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const SEC0 = T0 / 1000;
const SECRET = "s".repeat(64);

function fakes(opts: { bot?: boolean } = {}) {
  const clock = { ms: T0 };
  const users = new Map<string, UserDoc>();
  const sessions = new Map<string, SessionDoc>();
  const proofs = new Map<string, UsedProofDoc>();
  const swept: string[] = [];
  /** When the store was compacted (clock ms). */
  const compactions: number[] = [];
  let n = 0;
  const ports: AuthPorts = {
    users: {
      byId: async (id) => users.get(id) ?? null,
      byWallet: async (w) => [...users.values()].find((u) => u.walletAddress === w) ?? null,
      insertOnce: async (u) => {
        if (users.has(u._id) || [...users.values()].some((x) => x.walletAddress === u.walletAddress)) return false;
        users.set(u._id, { ...u });
        return true;
      },
      setTelegram: async (id, telegram) => {
        const u = users.get(id);
        if (u) users.set(id, { ...u, telegram });
      },
      setTier: async (id, tier) => {
        const u = users.get(id);
        if (u) users.set(id, { ...u, tier });
      },
      withTier: async () =>
        [...users.values()].filter((u) => u.tier && u.tier !== "default").map((u) => ({ userId: u._id, tier: u.tier as string })),
    },
    sessions: {
      get: async (sid) => sessions.get(sid) ?? null,
      insert: async (s) => void sessions.set(s._id, s),
      revokeOnce: async (sid, at) => {
        const s = sessions.get(sid);
        if (!s || s.revokedAt) return false;
        sessions.set(sid, { ...s, revokedAt: at });
        return true;
      },
      revoke: async (sid, at) => {
        const s = sessions.get(sid);
        if (s) sessions.set(sid, { ...s, revokedAt: at });
      },
      ofUser: async (userId) => [...sessions.values()].filter((s) => s.userId === userId),
      remove: async (sids) => sids.forEach((sid) => sessions.delete(sid)),
      sweep: async (before) => {
        swept.push(`sessions<${before}`);
        const gone = [...sessions.values()].filter((s) => s.expiresAt < before);
        for (const s of gone) sessions.delete(s._id);
        return gone.length;
      },
    },
    usedProofs: {
      claim: async (doc) => !proofs.has(doc._id) && (proofs.set(doc._id, doc), true),
      sweep: async (before) => {
        swept.push(`proofs<${before}`);
        const gone = [...proofs.values()].filter((p) => p.staleAt < before);
        for (const p of gone) proofs.delete(p._id);
        return gone.length;
      },
    },
    compact: async () => void compactions.push(clock.ms),
    jwtSecret: SECRET,
    tiers: ["default", "maker"],
    telegramBotToken: opts.bot ? TEST_BOT_TOKEN : undefined,
    telegramInitDataMaxAgeSec: 3600,
    newId: (prefix) => `${prefix}_${++n}`,
    now: () => clock.ms,
  };
  const events: AuthEvent[] = [];
  const revoked: Array<{ sid: string; userId: string }> = [];
  const out: AuthOut = { emit: (e) => void events.push(e), sessionRevoked: (e) => void revoked.push(e) };
  return { ports, clock, users, sessions, proofs, swept, compactions, out, events, revoked, auth: new Auth(ports) };
}

const alice = TestWallet.fromSeed("alice-auth-core");
const proofOf = (w: TestWallet, over: { timestamp?: number; domain?: string } = {}) =>
  w.connectBody({ domain: over.domain ?? DOMAIN, timestamp: over.timestamp ?? SEC0 - 10 });

async function refusal(p: Promise<unknown>): Promise<string> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  if (!(err instanceof Refusal)) throw new Error(`expected a refusal, got ${String(err)}`);
  return err.message;
}

describe("login", () => {
  test("a first login creates the user, records the proof's use and opens a session", async () => {
    const f = fakes();
    const body = proofOf(alice);
    const s = await f.auth.connect(body, DOMAIN, f.out);
    expect(s).toEqual({
      accessToken: expect.any(String),
      expiresAt: SEC0 + DEFAULT_TOKEN_TTL_SEC,
      userId: "usr_1",
      walletAddress: alice.rawAddress,
    });
    expect(f.users.get("usr_1")).toEqual({ _id: "usr_1", walletAddress: alice.rawAddress, createdAt: new Date(T0).toISOString() });
    expect(f.events).toEqual([{ name: "auth.userCreated", payload: { userId: "usr_1", walletAddress: alice.rawAddress } }]);
    expect([...f.proofs.values()]).toEqual([{ _id: expect.any(String), staleAt: body.proof.timestamp + 600 }]);
    expect(verifyToken(SECRET, s.accessToken, SEC0)).toMatchObject({ sub: "usr_1", wal: alice.rawAddress, sid: "ses_2" });
    expect(f.sessions.get("ses_2")).toEqual({
      _id: "ses_2",
      userId: "usr_1",
      walletAddress: alice.rawAddress,
      expiresAt: s.expiresAt,
      createdAt: new Date(T0).toISOString(),
    });
  });

  test("the same wallet again is the same user; a proof is good for one login only", async () => {
    const f = fakes();
    const body = proofOf(alice);
    const first = await f.auth.connect(body, DOMAIN, f.out);
    f.clock.ms += 1000;
    expect(await refusal(f.auth.connect(body, DOMAIN, f.out))).toBe("Proof already used");
    const again = await f.auth.connect(proofOf(alice, { timestamp: SEC0 }), DOMAIN, f.out);
    expect(again.userId).toBe(first.userId);
    expect(f.users.size).toBe(1);
    expect(f.events).toHaveLength(1);
    expect(f.sessions.size).toBe(2);
  });

  test("a bad proof is refused before anything is recorded (junk cannot burn a real proof)", async () => {
    const f = fakes();
    const msg = await refusal(f.auth.connect(proofOf(alice, { domain: "evil.test" }), DOMAIN, f.out));
    expect(msg).toMatch(/domain/i);
    expect(await refusal(f.auth.connect(proofOf(alice, { timestamp: SEC0 - PROOF_MAX_AGE_SEC - 1 }), DOMAIN, f.out))).toMatch(
      /expired|old|fresh/i,
    );
    expect(await refusal(f.auth.connect({ address: alice.rawAddress }, DOMAIN, f.out))).toEqual(expect.any(String));
    expect(f.proofs.size + f.users.size + f.sessions.size).toBe(0);
  });

  test("Telegram init data is checked after the proof and before its use is recorded; a good one links the chat", async () => {
    const f = fakes({ bot: true });
    const body = proofOf(alice);
    expect(await refusal(f.auth.connect({ ...body, messengerInitData: "user=%7B%7D&hash=00" }, DOMAIN, f.out))).toBe(
      "Invalid Telegram init data",
    );
    expect(
      await refusal(f.auth.connect({ ...body, messengerInitData: signInitData(TEST_BOT_TOKEN, { id: 7 }, SEC0 - 3601) }, DOMAIN, f.out)),
    ).toBe("Telegram init data expired");
    expect(f.proofs.size).toBe(0);
    // The proof was not spent: the same one logs in with good init data.
    const s = await f.auth.connect(
      { ...body, messengerInitData: signInitData(TEST_BOT_TOKEN, { id: 7, username: "al" }, SEC0 - 5) },
      DOMAIN,
      f.out,
    );
    expect(f.users.get(s.userId)?.telegram).toEqual({ id: 7, firstName: "Test", username: "al", verifiedAt: new Date(T0).toISOString() });
    expect(f.events.map((e) => e.name)).toEqual(["auth.userCreated", "auth.telegramLinked"]);
    expect(f.events[1].payload).toEqual({ userId: s.userId, chatId: 7 });
  });

  test("without a bot, init data is ignored", async () => {
    const f = fakes();
    const s = await f.auth.connect({ ...proofOf(alice), messengerInitData: "garbage" }, DOMAIN, f.out);
    expect(f.users.get(s.userId)?.telegram).toBeUndefined();
  });

  test("two first logins at once: the loser reads the winner's user back", async () => {
    const f = fakes();
    const byWallet = f.ports.users.byWallet;
    let first = true;
    f.ports.users.byWallet = async (w) => {
      if (first) {
        first = false;
        // The other login inserts between our read and our insert.
        f.users.set("usr_other", { _id: "usr_other", walletAddress: w, createdAt: "x" });
        return null;
      }
      return byWallet(w);
    };
    const s = await f.auth.connect(proofOf(alice), DOMAIN, f.out);
    expect(s.userId).toBe("usr_other");
    expect(f.events).toEqual([]);
  });

  test("the challenge names the domain, a fresh 32-byte payload and the end of the freshness window", () => {
    const f = fakes();
    const a = f.auth.challenge(DOMAIN);
    expect(a).toEqual({
      domain: DOMAIN,
      payload: expect.stringMatching(/^[0-9a-f]{64}$/),
      expiresAt: new Date(T0 + PROOF_MAX_AGE_SEC * 1000).toISOString(),
    });
    expect(f.auth.challenge(DOMAIN).payload).not.toBe(a.payload);
  });
});

describe("sessions", () => {
  async function loggedIn() {
    const f = fakes();
    const s = await f.auth.connect(proofOf(alice), DOMAIN, f.out);
    const claims = verifyToken(SECRET, s.accessToken, SEC0)!;
    return { f, s, claims };
  }

  test("refresh only in the last hour: the old session ends (on every node) and a new one opens", async () => {
    const { f, s, claims } = await loggedIn();
    expect(await refusal(f.auth.refresh({ sid: claims.sid, exp: claims.exp }, undefined, f.out))).toBe(
      "Token has more than 1 hour of validity left",
    );
    f.clock.ms = (s.expiresAt - REFRESH_WINDOW_SEC + 1) * 1000;
    const next = await f.auth.refresh({ sid: claims.sid, exp: claims.exp }, undefined, f.out);
    expect(next.userId).toBe(s.userId);
    expect(next.accessToken).not.toBe(s.accessToken);
    expect(f.sessions.get(claims.sid)?.revokedAt).toBe(new Date(f.clock.ms).toISOString());
    expect(f.revoked).toEqual([{ sid: claims.sid, userId: s.userId }]);
    // Once: the old session cannot be refreshed again.
    expect(await refusal(f.auth.refresh({ sid: claims.sid, exp: claims.exp }, undefined, f.out))).toBe("Session not found");
  });

  test("refresh by a token given in the body: it must verify and name a live session", async () => {
    const { f, s } = await loggedIn();
    f.clock.ms = (s.expiresAt - 60) * 1000;
    expect(await refusal(f.auth.refresh(null, "not.a.token", f.out))).toBe("A valid token is required");
    expect(await refusal(f.auth.refresh(null, undefined, f.out))).toBe("A valid token is required");
    const next = await f.auth.refresh(null, s.accessToken, f.out);
    expect(next.userId).toBe(s.userId);
    // The old token's session is revoked now: the token no longer counts.
    expect(await refusal(f.auth.refresh(null, s.accessToken, f.out))).toBe("A valid token is required");
  });

  test("of two refreshes at once only one wins", async () => {
    const { f, s, claims } = await loggedIn();
    f.clock.ms = (s.expiresAt - 60) * 1000;
    f.ports.sessions.revokeOnce = async () => false;
    expect(await refusal(f.auth.refresh({ sid: claims.sid, exp: claims.exp }, undefined, f.out))).toBe("Session not found");
    expect(f.revoked).toEqual([]);
    expect(f.sessions.size).toBe(1);
  });

  test("logout ends the session everywhere; checks and token resolution then refuse it", async () => {
    const { f, s, claims } = await loggedIn();
    expect(await f.auth.checkSession(claims.sid, s.userId)).toBe(true);
    expect(await f.auth.checkSession(claims.sid, "usr_other")).toBe(false);
    expect(await f.auth.checkSession("ses_nope", s.userId)).toBe(false);
    expect(await f.auth.resolveToken(s.accessToken)).toEqual({ id: s.userId, wallet: alice.rawAddress, sid: claims.sid, exp: s.expiresAt });
    await f.auth.logout({ id: s.userId, sid: claims.sid }, f.out);
    expect(f.revoked).toEqual([{ sid: claims.sid, userId: s.userId }]);
    expect(await f.auth.checkSession(claims.sid, s.userId)).toBe(false);
    expect(await f.auth.resolveToken(s.accessToken)).toBeNull();
  });

  test("an expired session is not live", async () => {
    const { f, s, claims } = await loggedIn();
    f.clock.ms = s.expiresAt * 1000;
    expect(await f.auth.checkSession(claims.sid, s.userId)).toBe(false);
    expect(await f.auth.resolveToken(s.accessToken)).toBeNull();
  });

  test("the sweep drops stale proofs and sessions expired a day ago, not the rest", async () => {
    const { f, s } = await loggedIn();
    f.clock.ms = (s.expiresAt + 86_400) * 1000;
    await f.auth.sweep();
    expect(f.swept.sort()).toEqual([`proofs<${s.expiresAt + 86_400}`, `sessions<${s.expiresAt}`]);
    expect(f.proofs.size).toBe(0);
    expect(f.sessions.size).toBe(1);
    f.clock.ms += 1000;
    await f.auth.sweep();
    expect(f.sessions.size).toBe(0);
  });
});

describe("bounded: sessions per user, pruning and compaction (fake clock)", () => {
  const nowProof = (f: ReturnType<typeof fakes>, w: TestWallet) =>
    w.connectBody({ domain: DOMAIN, timestamp: Math.floor(f.clock.ms / 1000) });

  test(`a user keeps at most ${MAX_SESSIONS_PER_USER} sessions: past that a login ends the oldest live one, on every node`, async () => {
    const f = fakes();
    const tokens: string[] = [];
    for (let i = 0; i < MAX_SESSIONS_PER_USER + 3; i++) {
      f.clock.ms += 1000;
      tokens.push((await f.auth.connect(nowProof(f, alice), DOMAIN, f.out)).accessToken);
    }
    expect(f.sessions.size).toBe(MAX_SESSIONS_PER_USER);
    const sids = tokens.map((t) => verifyToken(SECRET, t, Math.floor(f.clock.ms / 1000))!.sid);
    const userId = [...f.users.values()][0]._id;
    expect(f.revoked).toEqual(sids.slice(0, 3).map((sid) => ({ sid, userId })));
    for (const t of tokens.slice(0, 3)) expect(await f.auth.resolveToken(t)).toBeNull();
    for (const t of tokens.slice(3)) expect(await f.auth.resolveToken(t)).not.toBeNull();
  });

  test("revoked and expired sessions of the user go before any live one", async () => {
    const f = fakes();
    const first = await f.auth.connect(nowProof(f, alice), DOMAIN, f.out);
    const firstSid = verifyToken(SECRET, first.accessToken, SEC0)!.sid;
    const userId = first.userId;
    // A revoked one and an expired one, made after the first live session.
    for (const [sid, extra] of [
      ["ses_revoked", { revokedAt: new Date(T0).toISOString() }],
      ["ses_expired", { expiresAt: SEC0 - 1 }],
    ] as const)
      f.sessions.set(sid, {
        _id: sid,
        userId,
        walletAddress: alice.rawAddress,
        expiresAt: SEC0 + 3600,
        createdAt: new Date(T0 + 1).toISOString(),
        ...extra,
      });
    for (let i = 0; i < MAX_SESSIONS_PER_USER - 3; i++) {
      f.clock.ms += 1000;
      await f.auth.connect(nowProof(f, alice), DOMAIN, f.out);
    }
    expect(f.sessions.size).toBe(MAX_SESSIONS_PER_USER);
    f.clock.ms += 1000;
    await f.auth.connect(nowProof(f, alice), DOMAIN, f.out);
    f.clock.ms += 1000;
    await f.auth.connect(nowProof(f, alice), DOMAIN, f.out);
    expect(f.sessions.has("ses_revoked")).toBe(false);
    expect(f.sessions.has("ses_expired")).toBe(false);
    expect(f.sessions.has(firstSid)).toBe(true);
    expect(f.revoked).toEqual([]); // neither was live: nothing to announce
    f.clock.ms += 1000;
    await f.auth.connect(nowProof(f, alice), DOMAIN, f.out);
    expect(f.sessions.has(firstSid)).toBe(false);
    expect(f.revoked).toEqual([{ sid: firstSid, userId }]);
  });

  test("many logins over time: used proofs are pruned as they go stale, sessions a day past expiry; the stores stay bounded", async () => {
    const f = fakes();
    const wallets = Array.from({ length: 30 }, (_, i) => TestWallet.fromSeed(`bounded-${i}`));
    // One login every 5 minutes for 5 hours, the sweep running in between (every minute in the service).
    let maxProofs = 0;
    for (let i = 0; i < 60; i++) {
      f.clock.ms += 5 * 60_000;
      await f.auth.connect(nowProof(f, wallets[i % wallets.length]), DOMAIN, f.out);
      await f.auth.sweep();
      maxProofs = Math.max(maxProofs, f.proofs.size);
    }
    // A proof is remembered 10 minutes past its timestamp: never more than the last three logins'.
    expect(maxProofs).toBeLessThanOrEqual(3);
    expect(f.sessions.size).toBe(60);
    // Two days later every session is a day past its expiry: all swept; users stay.
    f.clock.ms += 2 * 86_400_000 + 60_000;
    await f.auth.sweep();
    expect(f.sessions.size).toBe(0);
    expect(f.proofs.size).toBe(0);
    expect(f.users.size).toBe(wallets.length);
    // The drops were compacted out of the store.
    expect(f.compactions.length).toBeGreaterThan(0);
  }, 120_000);

  test("the sweep compacts the store after 1,000 drops, or 10 minutes after the first drop, not on every sweep", async () => {
    const f = fakes();
    const add = (n: number) => {
      for (let i = 0; i < n; i++)
        f.proofs.set(`p${f.proofs.size}_${f.clock.ms}`, { _id: `p${f.proofs.size}_${f.clock.ms}`, staleAt: SEC0 - 1 });
    };
    add(10);
    expect(await f.auth.sweep()).toBe(10);
    expect(f.compactions).toEqual([]);
    f.clock.ms += 5 * 60_000;
    expect(await f.auth.sweep()).toBe(0);
    expect(f.compactions).toEqual([]);
    f.clock.ms += 5 * 60_000;
    await f.auth.sweep();
    expect(f.compactions).toEqual([f.clock.ms]);
    // Nothing dropped since: no compaction, however long.
    f.clock.ms += 60 * 60_000;
    await f.auth.sweep();
    expect(f.compactions.length).toBe(1);
    add(1000);
    expect(await f.auth.sweep()).toBe(1000);
    expect(f.compactions.length).toBe(2);
  });
});
