import { createHmac, generateKeyPairSync } from "node:crypto";
import jwt from "jsonwebtoken";
import { issueToken, verifyToken } from "../../auth/tokens";

const SECRET = "unit-test-secret-0123456789abcdef0123456789";
const NOW = 1_750_000_000;
const SUBJECT = { userId: "u_1", walletAddress: "0:" + "ab".repeat(32), sessionId: "s_1" };

const b64url = (v: unknown): string => Buffer.from(typeof v === "string" ? v : JSON.stringify(v)).toString("base64url");

/** Hand-made JWT: header and payload as given, HMAC-SHA256 signature with `key` (or none). */
function craft(header: object, payload: object, key?: string): string {
  const input = `${b64url(header)}.${b64url(payload)}`;
  const sig = key === undefined ? "" : createHmac("sha256", key).update(input).digest("base64url");
  return `${input}.${sig}`;
}

const claims = { sub: "u_1", wal: SUBJECT.walletAddress, sid: "s_1", iat: NOW, exp: NOW + 3600 };

describe("issueToken / verifyToken", () => {
  it("round-trips claims", () => {
    const { token, expiresAt } = issueToken(SECRET, SUBJECT, NOW, 3600);
    expect(expiresAt).toBe(NOW + 3600);
    expect(verifyToken(SECRET, token, NOW + 10)).toEqual({ sub: "u_1", wal: SUBJECT.walletAddress, sid: "s_1", iat: NOW, exp: NOW + 3600 });
    const header = JSON.parse(Buffer.from(token.split(".")[0], "base64url").toString());
    expect(header.alg).toBe("HS256");
  });

  it("defaults the ttl to one day", () => {
    expect(issueToken(SECRET, SUBJECT, NOW).expiresAt).toBe(NOW + 86_400);
  });

  it("uses the real clock when nowSec is omitted", () => {
    const now = Math.floor(Date.now() / 1000);
    expect(verifyToken(SECRET, issueToken(SECRET, SUBJECT, now, 60).token)).not.toBeNull();
    expect(verifyToken(SECRET, issueToken(SECRET, SUBJECT, now - 120, 60).token)).toBeNull();
  });

  it("rejects expired tokens (exp is exclusive)", () => {
    const { token } = issueToken(SECRET, SUBJECT, NOW, 3600);
    expect(verifyToken(SECRET, token, NOW + 3599)).not.toBeNull();
    expect(verifyToken(SECRET, token, NOW + 3600)).toBeNull();
    expect(verifyToken(SECRET, token, NOW + 90_000)).toBeNull();
  });

  it("rejects a tampered payload or signature", () => {
    const { token } = issueToken(SECRET, SUBJECT, NOW, 3600);
    const [h, , s] = token.split(".");
    expect(verifyToken(SECRET, `${h}.${b64url({ ...claims, sub: "admin" })}.${s}`, NOW)).toBeNull();
    const flipped = s.slice(0, -2) + (s.endsWith("AA") ? "BB" : "AA");
    expect(verifyToken(SECRET, `${h}.${token.split(".")[1]}.${flipped}`, NOW)).toBeNull();
  });

  it("rejects a token signed with another secret", () => {
    const { token } = issueToken("another-secret-entirely-0123456789", SUBJECT, NOW);
    expect(verifyToken(SECRET, token, NOW)).toBeNull();
  });

  it("rejects alg none", () => {
    for (const alg of ["none", "None", "NONE"]) {
      expect(verifyToken(SECRET, craft({ alg, typ: "JWT" }, claims), NOW)).toBeNull();
    }
    // Sanity: the crafted shape is otherwise fine (same claims, HS256) and would pass.
    expect(verifyToken(SECRET, craft({ alg: "HS256", typ: "JWT" }, claims, SECRET), NOW)).not.toBeNull();
  });

  it("rejects RS256-labelled tokens, including HMAC key confusion", () => {
    // Header says RS256 but the signature is HMAC with the shared secret.
    expect(verifyToken(SECRET, craft({ alg: "RS256", typ: "JWT" }, claims, SECRET), NOW)).toBeNull();
    // A genuine RS256 token.
    const { privateKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
    const rs = jwt.sign(claims, privateKey, { algorithm: "RS256", noTimestamp: true });
    expect(verifyToken(SECRET, rs, NOW)).toBeNull();
    // Another HMAC family member with the right secret is still not HS256.
    expect(verifyToken(SECRET, jwt.sign(claims, SECRET, { algorithm: "HS512", noTimestamp: true }), NOW)).toBeNull();
  });

  it("rejects tokens missing a claim or with wrong claim types", () => {
    const hs = (p: object) => jwt.sign(p, SECRET, { algorithm: "HS256", noTimestamp: true });
    const { sub: _s, ...noSub } = claims;
    const { sid: _i, ...noSid } = claims;
    const { wal: _w, ...noWal } = claims;
    const { exp: _e, ...noExp } = claims;
    const { iat: _t, ...noIat } = claims;
    for (const p of [noSub, noSid, noWal, noExp, noIat, { ...claims, sub: 1 }, { ...claims, sid: "" }, { ...claims, exp: NOW - 1 }]) {
      expect(verifyToken(SECRET, hs(p), NOW - 10)).toBeNull();
    }
    expect(verifyToken(SECRET, jwt.sign("just a string", SECRET, { algorithm: "HS256" }), NOW)).toBeNull();
  });

  it("rejects malformed input", () => {
    for (const t of ["", "abc", "a.b.c", "a.b", "..", "x".repeat(5000), null, undefined, 42]) {
      expect(verifyToken(SECRET, t as string, NOW)).toBeNull();
    }
    expect(verifyToken("", issueToken(SECRET, SUBJECT, NOW).token, NOW)).toBeNull();
  });

  it("refuses to issue with bad input", () => {
    expect(() => issueToken("", SUBJECT, NOW)).toThrow(TypeError);
    expect(() => issueToken(SECRET, { ...SUBJECT, userId: "" }, NOW)).toThrow(TypeError);
    expect(() => issueToken(SECRET, SUBJECT, NOW, 0)).toThrow(TypeError);
    expect(() => issueToken(SECRET, SUBJECT, NOW + 0.5)).toThrow(TypeError);
  });
});
