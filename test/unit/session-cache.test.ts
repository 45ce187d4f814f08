/**
 * The gateway's session cache (gateway/sessions.ts): a confirmed session is not asked again until
 * it is revoked; a confirmation that crossed a revocation is not kept.
 */
import { SessionCache } from "../../gateway/sessions";
import type { TokenClaims } from "../../auth/tokens";

function cache() {
  const asked: string[] = [];
  const live = new Set(["ses_1", "ses_2"]);
  let hold: (() => void) | null = null;
  const c = new SessionCache<null>(
    {
      verify: (token) => ({ sub: `usr_${token}`, wal: "0:w", sid: `ses_${token}`, exp: 2e9 }) as unknown as TokenClaims,
      isLive: async (_c, sid) => {
        asked.push(sid);
        // Answered now, heard by the gateway later (ses_2 is held until released).
        const answer = live.has(sid);
        if (sid === "ses_2") await new Promise<void>((r) => (hold = r));
        return answer;
      },
    },
    { keep: true },
  );
  return { c, asked, live, release: () => hold?.() };
}

test("a confirmed session is kept until revoked, then asked again and refused", async () => {
  const t = cache();
  expect((await t.c.resolve(null, "1"))?.id).toBe("usr_1");
  expect((await t.c.resolve(null, "1"))?.id).toBe("usr_1");
  expect(t.asked).toEqual(["ses_1"]);
  t.live.delete("ses_1");
  expect(t.c.revoked("ses_1")).toBe(true);
  expect(t.c.revoked("ses_1")).toBe(false);
  expect(await t.c.resolve(null, "1")).toBeNull();
  expect(t.asked).toEqual(["ses_1", "ses_1"]);
});

test("a confirmation answered before a logout but arriving after it is not kept", async () => {
  const t = cache();
  const pending = t.c.resolve(null, "2");
  await new Promise((r) => setImmediate(r));
  // The logout: auth has forgotten the session and told this gateway, while its check was on the way.
  t.live.delete("ses_2");
  t.c.revoked("ses_2");
  t.release();
  expect((await pending)?.id).toBe("usr_2");
  expect(t.c.size).toBe(0);
  // The next request asks again.
  const next = t.c.resolve(null, "2");
  await new Promise((r) => setImmediate(r));
  t.release();
  expect(await next).toBeNull();
  expect(t.asked).toEqual(["ses_2", "ses_2"]);
});
