import { io, type Socket } from "socket.io-client";
import type { ServerMessage } from "../../gateway/socket-protocol";

/** How long `waitFor` waits for a message at most: a ceiling far above the usual few ms (loaded machines). */
const WAIT_MS = 20_000;

export type Msg = ServerMessage;

export interface TestSocket {
  socket: Socket;
  /** Every `message` payload received so far, in arrival order. */
  messages: Msg[];
  emit(event: string, ...args: unknown[]): void;
  subscribe(payload: Record<string, unknown>): void;
  unsubscribe(payload: Record<string, unknown>): void;
  /** The first message at or after index `from` matching `pred` (waits for it). */
  waitFor(pred: (m: Msg) => boolean, opts?: { timeoutMs?: number; from?: number }): Promise<Msg>;
  /** Resolves when the server has processed everything sent before (a ping round trip). */
  sync(): Promise<void>;
  /** Messages matching `pred` that arrived at or after index `from`. */
  since(from: number, pred?: (m: Msg) => boolean): Msg[];
  disconnected(): Promise<string>;
  close(): void;
}

/**
 * A socket.io-client connection to the gateway's `/ws`. With `autoPingMs` it sends `ping` on that
 * period, as a real client must to stay connected past the idle timeout.
 */
export async function connectSocket(
  url: string,
  opts: {
    transports?: ("websocket" | "polling")[];
    autoPingMs?: number;
    /** Called with the new client before it has connected (its engine.io socket exists): e.g. to watch the transport upgrade from its start. */
    beforeConnect?: (socket: Socket) => void;
    /** HTTP headers of its requests (e.g. X-Forwarded-For as a proxy would add it). */
    extraHeaders?: Record<string, string>;
  } = {},
): Promise<TestSocket> {
  const socket = io(url, {
    path: "/ws",
    transports: opts.transports ?? ["websocket"],
    forceNew: true,
    reconnection: false,
    timeout: 5000,
    extraHeaders: opts.extraHeaders,
  });
  opts.beforeConnect?.(socket);
  const messages: Msg[] = [];
  const waiters: Array<{ pred: (m: Msg) => boolean; from: number; resolve: (m: Msg) => void }> = [];
  socket.on("message", (m: Msg) => {
    messages.push(m);
    const idx = messages.length - 1;
    for (let i = waiters.length - 1; i >= 0; i--) {
      const w = waiters[i];
      if (idx >= w.from && w.pred(m)) {
        waiters.splice(i, 1);
        w.resolve(m);
      }
    }
  });
  let disconnectReason: string | null = null;
  const disconnectWaiters: Array<(r: string) => void> = [];
  socket.on("disconnect", (reason) => {
    disconnectReason = reason;
    disconnectWaiters.splice(0).forEach((f) => f(reason));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", () => resolve());
    socket.once("connect_error", reject);
  });
  const pinger = opts.autoPingMs ? setInterval(() => socket.emit("ping"), opts.autoPingMs) : undefined;

  const waitFor: TestSocket["waitFor"] = (pred, o = {}) => {
    const from = o.from ?? 0;
    const found = messages.slice(from).find(pred);
    if (found) return Promise.resolve(found);
    return new Promise<Msg>((resolve, reject) => {
      const w = {
        pred,
        from,
        resolve: (m: Msg) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        const i = waiters.indexOf(w);
        if (i >= 0) waiters.splice(i, 1);
        reject(new Error(`no matching socket message within ${o.timeoutMs ?? WAIT_MS} ms; got ${JSON.stringify(messages.slice(from))}`));
      }, o.timeoutMs ?? WAIT_MS);
      waiters.push(w);
    });
  };

  return {
    socket,
    messages,
    emit: (event, ...args) => socket.emit(event, ...args),
    subscribe: (payload) => socket.emit("subscribe", payload),
    unsubscribe: (payload) => socket.emit("unsubscribe", payload),
    waitFor,
    async sync() {
      const from = messages.length;
      socket.emit("ping");
      await waitFor((m) => m.type === "pong", { from });
    },
    since: (from, pred = () => true) => messages.slice(from).filter(pred),
    disconnected: () => (disconnectReason !== null ? Promise.resolve(disconnectReason) : new Promise((r) => disconnectWaiters.push(r))),
    close() {
      if (pinger) clearInterval(pinger);
      socket.close();
    },
  };
}
