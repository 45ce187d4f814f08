/**
 * The one place the socket fan-out relies on engine.io / ws internals: the shared-frame write
 * (one pre-encoded websocket frame buffer for many sockets, written through ws's private
 * `_sender.sendFrame` when engine.io has nothing queued). Everything else goes through engine.io's
 * public `conn.write`. `SOCKET_SHARED_FRAMES=false` turns the shared-frame write off; so does a
 * library upgrade that removes what it needs (checked at start and on the first websocket).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** How a fan-out message reached a socket (the `path` label of the fan-out metrics). */
export type FanoutPath = "shared-frame" | "engine-io";

/** The parts of an engine.io connection the shared-frame write relies on (engine.io 6, ws 8). */
export interface EngineConn {
  readyState: string;
  writeBuffer: unknown[];
  transport: {
    name: string;
    writable: boolean;
    perMessageDeflate?: unknown;
    socket?: { readyState: number; _sender?: { sendFrame?: (list: Buffer[], cb?: () => void) => void } };
  };
  write(data: string, options: { wsPreEncodedFrame?: Buffer[] }): void;
}

/**
 * Whether the transport writes a packet's `wsPreEncodedFrame` bytes as they are (the path
 * Socket.IO's own broadcasts take): websocket without compression.
 */
export function takesPreEncodedFrames(t: EngineConn["transport"]): boolean {
  return t.name === "websocket" && !t.perMessageDeflate && typeof t.socket?._sender?.sendFrame === "function";
}

/**
 * Write `frame` straight to the websocket when engine.io has nothing queued or in flight on it, so
 * the bytes land in order; engine.io's own write would do the same plus per-packet bookkeeping
 * (events, a completion callback) that costs as much as the write at 10,000 sockets. False: not
 * possible now, go through engine.io.
 */
export function writeDirect(conn: EngineConn, frame: Buffer[]): boolean {
  const t = conn.transport;
  if (!t.writable || conn.writeBuffer.length !== 0 || t.socket?.readyState !== 1 /* OPEN */) return false;
  t.socket._sender?.sendFrame?.(frame);
  return true;
}

/** The engine.io and ws modules Socket.IO actually runs with (resolved the way it resolves them). */
export interface FrameLibs {
  engineIo: { transports?: { websocket?: { prototype?: object } } };
  ws: { Sender?: { prototype?: object } };
  versions: string;
}

function versionOf(entry: string, name: string): string {
  for (let dir = dirname(entry); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { name?: string; version?: string };
      if (pkg.name === name) return pkg.version ?? "?";
    } catch {
      // no package.json at this level
    }
  }
  return "?";
}

export function installedFrameLibs(): FrameLibs {
  // Through this module's own `require` (not createRequire): the very instances socket.io loaded.
  const engineIoPath = require.resolve("engine.io", { paths: [dirname(require.resolve("socket.io"))] });
  const wsPath = require.resolve("ws", { paths: [dirname(engineIoPath)] });
  // A dynamic path: the instances socket.io resolved, which `import` cannot name.
  /* eslint-disable @typescript-eslint/no-require-imports */
  return {
    engineIo: require(engineIoPath) as FrameLibs["engineIo"],
    ws: require(wsPath) as FrameLibs["ws"],
    versions: `engine.io ${versionOf(engineIoPath, "engine.io")}, ws ${versionOf(wsPath, "ws")}`,
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
}

const isFn = (o: object | undefined, name: string) => typeof (o as Record<string, unknown> | undefined)?.[name] === "function";

/**
 * What the installed libraries lack for the shared-frame write, or null: ws's `Sender#sendFrame`
 * (the write itself) and engine.io's websocket transport still taking `wsPreEncodedFrame` (its
 * `_canSendPreEncodedFrame`; the fallback through `conn.write` hands it a socket's merged frames).
 */
export function missingForSharedFrames(libs: Pick<FrameLibs, "engineIo" | "ws">): string | null {
  if (!isFn(libs.ws.Sender?.prototype, "sendFrame")) return "ws has no Sender.prototype.sendFrame";
  if (!isFn(libs.engineIo.transports?.websocket?.prototype, "_canSendPreEncodedFrame"))
    return "engine.io's websocket transport has no _canSendPreEncodedFrame (wsPreEncodedFrame support)";
  return null;
}

/**
 * The same for a live connection (what `writeDirect` reads: instance fields no prototype shows), or
 * null. The transport's fields are checked only on a websocket (`complete` says whether they were).
 */
export function missingOnConnection(conn: EngineConn): { missing: string | null; complete: boolean } {
  const t = conn.transport;
  if (!Array.isArray(conn.writeBuffer)) return { missing: "engine.io's socket has no writeBuffer array", complete: true };
  if (t.name !== "websocket") return { missing: null, complete: false };
  if (typeof t.writable !== "boolean") return { missing: "engine.io's websocket transport has no writable flag", complete: true };
  if (typeof t.socket?.readyState !== "number")
    return { missing: "engine.io's websocket transport has no ws socket (transport.socket.readyState)", complete: true };
  if (typeof t.socket._sender?.sendFrame !== "function") return { missing: "the ws socket has no _sender.sendFrame", complete: true };
  return { missing: null, complete: true };
}
