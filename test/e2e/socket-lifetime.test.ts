import { issueToken } from "../../auth/tokens";
import type { SessionDoc } from "../../models/user";
import type { Store } from "../../lib/store";
import { startServer, type TestServer } from "../support/server";
import { connectSocket, type TestSocket } from "../support/socket";

describe("socket lifetime: idle disconnect and token expiry", () => {
  const open: TestSocket[] = [];
  afterEach(() => {
    for (const s of open.splice(0)) s.close();
  });
  const connect = async (srv: TestServer, autoPingMs?: number) => {
    const s = await connectSocket(srv.url, { autoPingMs });
    open.push(s);
    return s;
  };

  describe("with the default 10 s idle timeout", () => {
    let srv: TestServer;
    beforeAll(async () => {
      srv = await startServer();
    });
    afterAll(() => srv.stop());

    test("a client that never pings is closed after 10 s; one that pings every 3 s stays", async () => {
      const silent = await connect(srv);
      const pinging = await connect(srv, 3000);
      const t0 = Date.now();
      const reason = await silent.disconnected();
      const elapsed = Date.now() - t0;
      expect(reason).toBe("io server disconnect");
      // The timer starts when the server accepts the socket, a little before `connect` resolves here.
      expect(elapsed).toBeGreaterThanOrEqual(9_000);
      expect(elapsed).toBeLessThan(11_500);
      expect(silent.messages).toContainEqual({ type: "error", code: "IDLE_TIMEOUT", message: "No ping for 10 s" });
      await new Promise((r) => setTimeout(r, 2_000));
      expect(pinging.socket.connected).toBe(true);
      await pinging.sync();
    }, 120_000);

    test("a user subscription ends when its token expires", async () => {
      const auth = srv.broker.getLocalService("auth") as unknown as { stores: { sessions: Store<SessionDoc> } };
      const nowSec = Math.floor(Date.now() / 1000);
      const userId = "usr_expiring";
      const { token, expiresAt } = issueToken(
        srv.cfg.jwtSecret,
        { userId, walletAddress: `0:${"ab".repeat(32)}`, sessionId: "ses_expiring" },
        nowSec,
        2,
      );
      await auth.stores.sessions.insert({
        _id: "ses_expiring",
        userId,
        walletAddress: `0:${"ab".repeat(32)}`,
        expiresAt,
        createdAt: new Date().toISOString(),
      });
      const s = await connect(srv, 1000);
      s.subscribe({ channel: "user", token });
      expect(await s.waitFor((m) => m.type === "subscribed")).toEqual({ type: "subscribed", channel: "user", userId });
      expect(await s.waitFor((m) => m.type === "error", { timeoutMs: 20_000 })).toEqual({
        type: "error",
        code: "SESSION_ENDED",
        channel: "user",
        message: "Token expired; subscribe again with a fresh token",
      });
      expect(s.socket.connected).toBe(true);
    });
  });

  describe("with SOCKET_IDLE_TIMEOUT_MS=2000 (tests only)", () => {
    let srv: TestServer;
    beforeAll(async () => {
      srv = await startServer({ SOCKET_IDLE_TIMEOUT_MS: "2000" });
    });
    afterAll(() => srv.stop());

    test("the configured timeout applies; activity other than ping does not keep a socket alive", async () => {
      const s = await connect(srv);
      const t0 = Date.now();
      const keepBusy = setInterval(() => s.subscribe({ channel: "market", marketIds: ["mkt_busy"] }), 200);
      await s.disconnected();
      clearInterval(keepBusy);
      // Wide bounds for a loaded machine (the timer starts at accept, before `connect` resolves here); 10 s would fail them.
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_000);
      expect(Date.now() - t0).toBeLessThan(4_000);
      expect(s.messages.filter((m) => m.type === "subscribed").length).toBeGreaterThan(0);
      expect(s.messages).toContainEqual({ type: "error", code: "IDLE_TIMEOUT", message: "No ping for 2 s" });
    });
  });
});
