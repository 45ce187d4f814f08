import { chmodSync, existsSync, unlinkSync } from "node:fs";
import { createServer, connect, type Server, type Socket } from "node:net";
import { Transporters, type Middleware, type ServiceBroker } from "moleculer";

/**
 * A Moleculer transporter over one Unix domain socket, for operator tools on the same machine:
 * the embedded exchange is the hub (it listens on a socket file inside its data dir, readable and
 * writable by its owner only, so file permissions are the access control), and `npm run repl`
 * joins it as a node. Topic semantics are those of Moleculer's Fake transporter (exact topics,
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

export interface LocalTransporterOptions {
  path: string;
  /** hub: listen (the exchange); join: connect to a running hub (the REPL). */
  mode: "hub" | "join";
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
  private socket: Socket | null = null;
  /** Hub: the clients and the topics each subscribed. */
  private readonly clients = new Map<Socket, Set<string>>();
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

  private listen(): Promise<void> {
    const path = this.options.path;
    // A socket file left by a killed exchange: the data-dir lock proves nobody listens on it.
    if (existsSync(path)) unlinkSync(path);
    return new Promise((resolve, reject) => {
      const server = createServer((sock) => {
        const topics = new Set<string>();
        this.clients.set(sock, topics);
        sock.on(
          "data",
          reader((op, topic, payload) => {
            if (op === SUB) topics.add(topic);
            else if (op === PUB) this.deliver(topic, payload, sock);
          }),
        );
        const drop = () => this.clients.delete(sock);
        sock.on("close", drop);
        sock.on("error", drop);
      });
      server.once("error", reject);
      server.listen(path, () => {
        chmodSync(path, 0o600);
        this.server = server;
        resolve(this.base.onConnected());
      });
    });
  }

  private join(): Promise<void> {
    return new Promise((resolve, reject) => {
      const sock = connect(this.options.path);
      sock.once("error", reject);
      sock.once("connect", () => {
        sock.removeListener("error", reject);
        sock.on("error", (err) => this.base.logger.warn("local transporter", err.message));
        this.socket = sock;
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
  private deliver(topic: string, payload: Buffer, from: Socket | null): void {
    const cmd = this.own.get(topic);
    if (cmd) this.base.receive(cmd, payload);
    if (this.options.mode !== "hub") return;
    for (const [sock, topics] of this.clients) if (sock !== from && topics.has(topic)) sock.write(frame(PUB, topic, payload));
  }

  override disconnect(): Promise<void> {
    this.base.connected = false;
    for (const sock of this.clients.keys()) sock.destroy();
    this.clients.clear();
    this.socket?.destroy();
    this.socket = null;
    const server = this.server;
    this.server = null;
    return new Promise((resolve) => {
      if (!server) return resolve();
      server.close(() => resolve());
    });
  }

  /** Hub: is a tool (the REPL) joined now? */
  get attached(): boolean {
    return this.clients.size > 0;
  }

  /**
   * A middleware for the hub: while no tool is joined, a broadcast is a local one. Moleculer's
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
    this.socket?.write(frame(SUB, topic));
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
      this.socket?.write(frame(PUB, topic, data));
    }
    return Promise.resolve();
  }
}
