import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { createServer, connect, type Server } from "node:net";
import type { MessagePort } from "node:worker_threads";
import { Transporters, type Middleware, type ServiceBroker } from "moleculer";

/**
 * A Moleculer transporter over one Unix domain socket, for operator tools on the same machine:
 * the embedded exchange is the hub (it listens on a socket file inside its data dir, readable and
 * writable by its owner only, so file permissions are the access control), and `npm run repl`
 * joins it as a node. The side node (side-node.ts: the catalog, notifier and chain in a worker
 * thread of the same process) joins the same hub through a MessagePort. Topic semantics are those of Moleculer's Fake transporter (exact topics,
 * every subscriber gets a copy); Moleculer itself balances and targets calls.
 *
 * Frame: u32 length, u8 op (1 subscribe, 2 publish), u16 topic length, topic, payload.
 */
const SUB = 1;
const PUB = 2;

function frame(op: number, topic: string, payload?: Buffer): Buffer {
  const t = Buffer.from(topic, "utf8");
  const body = payload ?? Buffer.alloc(0);
  const buf = Buffer.allocUnsafe(4 + 1 + 2 + t.length + body.length);
  buf.writeUInt32BE(1 + 2 + t.length + body.length, 0);
  buf.writeUInt8(op, 4);
  buf.writeUInt16BE(t.length, 5);
  t.copy(buf, 7);
  body.copy(buf, 7 + t.length);
  return buf;
}

/** Splits a byte stream into frames. */
function reader(onFrame: (op: number, topic: string, payload: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    while (pending.length >= 4) {
      const n = pending.readUInt32BE(0);
      if (pending.length < 4 + n) break;
      const op = pending.readUInt8(4);
      const tl = pending.readUInt16BE(5);
      const topic = pending.toString("utf8", 7, 7 + tl);
      const payload = pending.subarray(7 + tl, 4 + n);
      pending = pending.subarray(4 + n);
      onFrame(op, topic, Buffer.from(payload));
    }
  };
}

/** One peer of the hub: a tool on the socket, or the side node over a MessagePort. */
interface Peer {
  write(op: number, topic: string, payload?: Buffer): void;
  close(): void;
}

/**
 * The packets of one turn of the event loop for a MessagePort, posted as ONE message at the end
 * of it: the frames (the socket's format) in one buffer, moved to the other thread, not cloned.
 * A group commit's broadcasts and an order's answers then cost one post and wake the other
 * thread once, not once per packet. Order is kept: one queue per port, flushed in order.
 */
class PortOutbox {
  private pending: Array<{ op: number; topic: Buffer; payload?: Buffer }> = [];
  private bytes = 0;
  private scheduled = false;
  private closed = false;

  constructor(private readonly port: MessagePort) {}

  write(op: number, topic: string, payload?: Buffer): void {
    if (this.closed) return;
    // The serializer's buffers are not written again, so holding them until the flush is safe.
    const t = Buffer.from(topic, "utf8");
    this.pending.push({ op, topic: t, payload });
    this.bytes += 7 + t.length + (payload?.length ?? 0);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (!this.pending.length || this.closed) return;
    const buf = Buffer.from(new ArrayBuffer(this.bytes));
    let at = 0;
    for (const { op, topic, payload } of this.pending) {
      const n = payload?.length ?? 0;
      buf.writeUInt32BE(1 + 2 + topic.length + n, at);
      buf.writeUInt8(op, at + 4);
      buf.writeUInt16BE(topic.length, at + 5);
      topic.copy(buf, at + 7);
      if (payload) payload.copy(buf, at + 7 + topic.length);
      at += 7 + topic.length + n;
    }
    this.pending = [];
    this.bytes = 0;
    this.port.postMessage(buf, [buf.buffer as ArrayBuffer]);
  }

  close(): void {
    this.flush();
    this.closed = true;
    this.port.close();
  }
}

/** The frames of one port message, each handed on as a view of it (the message is this thread's own). */
function eachFrame(u: Uint8Array, onFrame: (op: number, topic: string, payload: Buffer) => void): void {
  const buf = Buffer.from(u.buffer, u.byteOffset, u.byteLength);
  for (let at = 0; at + 7 <= buf.length;) {
    const n = buf.readUInt32BE(at);
    const tl = buf.readUInt16BE(at + 5);
    onFrame(buf.readUInt8(at + 4), buf.toString("utf8", at + 7, at + 7 + tl), buf.subarray(at + 7 + tl, at + 4 + n));
    at += 4 + n;
  }
}

export interface LocalTransporterOptions {
  /** The socket file; the hub may go without one (a data dir in memory: only the side node joins). */
  path?: string;
  /** hub: listen (the exchange); join: connect to a running hub (the REPL, or the side node over `port`). */
  mode: "hub" | "join";
  /** join: the MessagePort to the hub instead of the socket. */
  port?: MessagePort;
}

type BaseTransporter = InstanceType<typeof Transporters.Base>;

interface BaseInternals {
  broker: { Promise: PromiseConstructor };
  logger: { info(...a: unknown[]): void; warn(...a: unknown[]): void };
  getTopicName(cmd: string, nodeID?: string): string;
  receive(cmd: string, data: Buffer): void;
  onConnected(wasReconnect?: boolean): Promise<void>;
  connected: boolean;
}

export class LocalSocketTransporter extends (Transporters.Base as unknown as new (opts: LocalTransporterOptions) => BaseTransporter) {
  private server: Server | null = null;
  /** Join: the way to the hub. */
  private upstream: Peer | null = null;
  /** Hub: the peers and the topics each subscribed. */
  private readonly peers = new Map<Peer, Set<string>>();
  /** Hub: side nodes attached before the transporter connected. */
  private readonly pendingPorts: MessagePort[] = [];
  /** This node's own subscriptions: topic -> command. */
  private readonly own = new Map<string, string>();

  constructor(private readonly options: LocalTransporterOptions) {
    super(options);
  }

  private get base(): BaseInternals {
    return this as unknown as BaseInternals;
  }

  override connect(): Promise<void> {
    return this.options.mode === "hub" ? this.listen() : this.join();
  }

  /** Hub: a node in another thread of this process joins through `port` (the other end runs `mode: "join"` on it). */
  attachPort(port: MessagePort): void {
    if (this.base.connected) this.addPortPeer(port);
    else this.pendingPorts.push(port);
  }

  private addPortPeer(port: MessagePort): void {
    const topics = new Set<string>();
    const out = new PortOutbox(port);
    const peer: Peer = { write: (op, topic, payload) => out.write(op, topic, payload), close: () => out.close() };
    this.peers.set(peer, topics);
    port.on("message", (m: Uint8Array) =>
      eachFrame(m, (op, topic, payload) => {
        if (op === SUB) topics.add(topic);
        else if (op === PUB) this.deliver(topic, payload, peer);
      }),
    );
    port.on("close", () => this.peers.delete(peer));
  }

  private listen(): Promise<void> {
    const attachWaiting = () => {
      for (const port of this.pendingPorts.splice(0)) this.addPortPeer(port);
    };
    const path = this.options.path;
    if (!path) {
      const connected = this.base.onConnected();
      attachWaiting();
      return connected;
    }
    // A socket file left by a killed exchange: the data-dir lock proves nobody listens on it.
    if (existsSync(path)) unlinkSync(path);
    return new Promise((resolve, reject) => {
      const server = createServer((sock) => {
        const topics = new Set<string>();
        const peer: Peer = { write: (op, topic, payload) => sock.write(frame(op, topic, payload)), close: () => sock.destroy() };
        this.peers.set(peer, topics);
        sock.on(
          "data",
          reader((op, topic, payload) => {
            if (op === SUB) topics.add(topic);
            else if (op === PUB) this.deliver(topic, payload, peer);
          }),
        );
        const drop = () => this.peers.delete(peer);
        sock.on("close", drop);
        sock.on("error", drop);
      });
      server.once("error", reject);
      server.listen(path, () => {
        chmodSync(path, 0o600);
        this.server = server;
        const connected = this.base.onConnected();
        attachWaiting();
        resolve(connected);
      });
    });
  }

  private join(): Promise<void> {
    const port = this.options.port;
    if (port) {
      const out = new PortOutbox(port);
      this.upstream = { write: (op, topic, payload) => out.write(op, topic, payload), close: () => out.close() };
      port.on("message", (m: Uint8Array) =>
        eachFrame(m, (op, topic, payload) => {
          if (op === PUB) this.deliver(topic, payload, null);
        }),
      );
      return this.base.onConnected();
    }
    return new Promise((resolve, reject) => {
      const sock = connect(this.options.path as string);
      sock.once("error", reject);
      sock.once("connect", () => {
        sock.removeListener("error", reject);
        sock.on("error", (err) => this.base.logger.warn("local transporter", err.message));
        this.upstream = { write: (op, topic, payload) => sock.write(frame(op, topic, payload)), close: () => sock.destroy() };
        sock.on(
          "data",
          reader((op, topic, payload) => {
            if (op === PUB) this.deliver(topic, payload, null);
          }),
        );
        resolve(this.base.onConnected());
      });
    });
  }

  /** A published frame: to this node when it listens to the topic, and (hub) to every other subscriber. */
  private deliver(topic: string, payload: Buffer, from: Peer | null): void {
    const cmd = this.own.get(topic);
    if (cmd) this.base.receive(cmd, payload);
    if (this.options.mode !== "hub") return;
    for (const [peer, topics] of this.peers) if (peer !== from && topics.has(topic)) peer.write(PUB, topic, payload);
  }

  override disconnect(): Promise<void> {
    this.base.connected = false;
    for (const peer of this.peers.keys()) peer.close();
    this.peers.clear();
    this.upstream?.close();
    this.upstream = null;
    const server = this.server;
    this.server = null;
    return new Promise((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
    });
  }

  /** Hub: is another node (a tool, the side node) joined now? */
  get attached(): boolean {
    return this.peers.size > 0;
  }

  /**
   * A middleware for the hub: while no other node is joined, a broadcast is a local one. Moleculer's
   * broadcast with a transporter builds one context for the remote nodes and another for the local
   * services, for every broadcast; alone, only the local one is needed.
   */
  broadcastsWhileAlone(): Middleware {
    return ((broker: ServiceBroker) => ({
      name: "LocalBroadcastsWhileAlone",
      broadcast:
        (next: (eventName: string, payload: unknown, opts: object) => Promise<void>) =>
        (eventName: string, payload: unknown, opts: object) =>
          this.attached ? next(eventName, payload, opts) : broker.broadcastLocal(eventName, payload, opts ?? {}),
    })) as unknown as Middleware;
  }

  override subscribe(cmd: string, nodeID?: string): Promise<void> {
    const topic = this.base.getTopicName(cmd, nodeID);
    this.own.set(topic, cmd);
    this.upstream?.write(SUB, topic);
    return Promise.resolve();
  }

  override subscribeBalancedRequest(): Promise<void> {
    return Promise.resolve();
  }

  override subscribeBalancedEvent(): Promise<void> {
    return Promise.resolve();
  }

  override send(topic: string, data: Buffer): Promise<void> {
    if (this.options.mode === "hub") this.deliver(topic, data, null);
    else {
      // Our own subscriptions never need the hub.
      const cmd = this.own.get(topic);
      if (cmd) this.base.receive(cmd, data);
      this.upstream?.write(PUB, topic, data);
    }
    return Promise.resolve();
  }
}
