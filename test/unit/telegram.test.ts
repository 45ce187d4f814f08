import { MAX_CLOCK_SKEW_SEC, verifyTelegramInitData } from "../../auth/telegram";
import { signInitData, TEST_BOT_TOKEN } from "../support/telegram";

const NOW = 1_750_000_000;
const USER = { id: 777000111, firstName: "Ada", lastName: "L", username: "ada", languageCode: "en", isPremium: true };
const opts = { maxAgeSec: 3600, nowSec: NOW };

describe("verifyTelegramInitData", () => {
  it("accepts valid init data and maps the user", () => {
    const raw = signInitData(TEST_BOT_TOKEN, USER, NOW - 60, { queryId: "AAE" });
    expect(verifyTelegramInitData(raw, TEST_BOT_TOKEN, opts)).toEqual({ ok: true, user: USER, authDate: NOW - 60 });
  });

  it("omits absent optional user fields", () => {
    const raw = signInitData(TEST_BOT_TOKEN, { id: 5, firstName: "Bo" }, NOW);
    expect(verifyTelegramInitData(raw, TEST_BOT_TOKEN, opts)).toEqual({ ok: true, user: { id: 5, firstName: "Bo" }, authDate: NOW });
  });

  it("accepts init data without the newer `signature` field", () => {
    // Hash covers every field but `hash`, so we re-sign without `signature` via the library.
    const raw = signInitData(TEST_BOT_TOKEN, USER, NOW);
    const params = new URLSearchParams(raw);
    expect(params.has("signature")).toBe(true);
    params.delete("signature");
    params.delete("hash");
    const { signData } = jest.requireActual<typeof import("@telegram-apps/init-data-node")>("@telegram-apps/init-data-node");
    const check = [...params.entries()]
      .map(([k, v]) => `${k}=${v}`)
      .sort()
      .join("\n");
    params.set("hash", signData(check, TEST_BOT_TOKEN));
    expect(verifyTelegramInitData(params.toString(), TEST_BOT_TOKEN, opts)).toMatchObject({ ok: true, user: { id: USER.id } });
  });

  it("rejects a tampered hash", () => {
    const raw = signInitData(TEST_BOT_TOKEN, USER, NOW);
    const params = new URLSearchParams(raw);
    const h = params.get("hash")!;
    params.set("hash", (h[0] === "0" ? "1" : "0") + h.slice(1));
    expect(verifyTelegramInitData(params.toString(), TEST_BOT_TOKEN, opts)).toEqual({ ok: false, reason: "INVALID" });
  });

  it("rejects tampered fields", () => {
    const raw = signInitData(TEST_BOT_TOKEN, USER, NOW);
    const params = new URLSearchParams(raw);
    params.set("user", JSON.stringify({ id: 1, first_name: "Mallory" }));
    expect(verifyTelegramInitData(params.toString(), TEST_BOT_TOKEN, opts)).toEqual({ ok: false, reason: "INVALID" });
    // Moving auth_date forward to dodge expiry breaks the hash too.
    const old = new URLSearchParams(signInitData(TEST_BOT_TOKEN, USER, NOW - 100_000));
    old.set("auth_date", String(NOW));
    expect(verifyTelegramInitData(old.toString(), TEST_BOT_TOKEN, opts)).toEqual({ ok: false, reason: "INVALID" });
  });

  it("rejects expired init data against nowSec", () => {
    const raw = signInitData(TEST_BOT_TOKEN, USER, NOW - 3601);
    expect(verifyTelegramInitData(raw, TEST_BOT_TOKEN, opts)).toEqual({ ok: false, reason: "EXPIRED" });
    expect(verifyTelegramInitData(signInitData(TEST_BOT_TOKEN, USER, NOW - 3600), TEST_BOT_TOKEN, opts).ok).toBe(true);
  });

  it("refuses init data dated ahead of the clock beyond the allowed skew", () => {
    expect(verifyTelegramInitData(signInitData(TEST_BOT_TOKEN, USER, NOW + MAX_CLOCK_SKEW_SEC), TEST_BOT_TOKEN, opts).ok).toBe(true);
    for (const ahead of [MAX_CLOCK_SKEW_SEC + 1, 3600, 365 * 86_400]) {
      const raw = signInitData(TEST_BOT_TOKEN, USER, NOW + ahead);
      expect(verifyTelegramInitData(raw, TEST_BOT_TOKEN, opts)).toEqual({ ok: false, reason: "INVALID" });
    }
  });

  it("uses the real clock when nowSec is omitted", () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyTelegramInitData(signInitData(TEST_BOT_TOKEN, USER, now - 10), TEST_BOT_TOKEN, { maxAgeSec: 60 }).ok).toBe(true);
    expect(verifyTelegramInitData(signInitData(TEST_BOT_TOKEN, USER, now - 120), TEST_BOT_TOKEN, { maxAgeSec: 60 })).toEqual({
      ok: false,
      reason: "EXPIRED",
    });
  });

  it("rejects data signed for another bot", () => {
    const raw = signInitData("987654321:OTHER-bot-token", USER, NOW);
    expect(verifyTelegramInitData(raw, TEST_BOT_TOKEN, opts)).toEqual({ ok: false, reason: "INVALID" });
  });

  it("reports init data without a user", () => {
    const raw = signInitData(TEST_BOT_TOKEN, null, NOW, { queryId: "AAE" });
    expect(verifyTelegramInitData(raw, TEST_BOT_TOKEN, opts)).toEqual({ ok: false, reason: "NO_USER" });
  });

  it("rejects junk", () => {
    for (const raw of ["", "hash=abc", "auth_date=1", "a=b&c=d", "x".repeat(10_000)]) {
      expect(verifyTelegramInitData(raw, TEST_BOT_TOKEN, opts)).toEqual({ ok: false, reason: "INVALID" });
    }
  });

  it("refuses a non-positive maxAgeSec", () => {
    const raw = signInitData(TEST_BOT_TOKEN, USER, NOW);
    expect(() => verifyTelegramInitData(raw, TEST_BOT_TOKEN, { maxAgeSec: 0, nowSec: NOW })).toThrow(TypeError);
  });
});
