import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface BotCall {
  chatId: number;
  text: string;
  /** HTTP status answered. */
  status: number;
  at: number;
}

export interface BotFailure {
  status: number;
  description: string;
  retryAfter?: number;
}

export interface BotApiStandIn {
  /** Use as TELEGRAM_API_ROOT. */
  url: string;
  /** Every sendMessage call, answered or failed, in order. */
  calls: BotCall[];
  /** Successfully "sent" messages. */
  sent(chatId?: number): BotCall[];
  /** The next `times` calls for `chatId` fail with `failure` (500 by default). */
  failNext(chatId: number, times: number, failure?: BotFailure): void;
  /** Every call for `chatId` fails. */
  failAlways(chatId: number, failure?: BotFailure): void;
  /** Calls for `chatId` get no answer until release() (a hung Bot API). */
  hang(chatId: number): void;
  release(): void;
  waitFor(pred: (calls: BotCall[]) => boolean, timeoutMs?: number): Promise<void>;
  close(): Promise<void>;
}

const SERVER_ERROR: BotFailure = { status: 500, description: "Internal Server Error: stand-in failure" };

/**
 * A tiny Telegram Bot API on loopback: answers POST /bot<token>/sendMessage like Telegram does
 * (JSON or form body in, `{ok, result}` or `{ok: false, error_code, description}` out).
 */
export async function startBotApi(token: string): Promise<BotApiStandIn> {
  const calls: BotCall[] = [];
  const failures = new Map<number, { times: number; failure: BotFailure }>();
  const hung = new Set<number>();
  const parked: ServerResponse[] = [];
  let messageId = 0;

  const reply = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      if (req.url !== `/bot${token}/sendMessage`) {
        return reply(res, req.url?.startsWith("/bot") && !req.url.startsWith(`/bot${token}/`) ? 401 : 404, {
          ok: false,
          error_code: 404,
          description: "Not Found",
        });
      }
      let params: Record<string, unknown> = {};
      const type = String(req.headers["content-type"] ?? "");
      try {
        params = type.includes("json") ? JSON.parse(raw) : Object.fromEntries(new URLSearchParams(raw));
      } catch {
        return reply(res, 400, { ok: false, error_code: 400, description: "Bad Request: can't parse body" });
      }
      const chatId = Number(params.chat_id);
      const text = String(params.text ?? "");
      if (hung.has(chatId)) {
        calls.push({ chatId, text, status: 0, at: Date.now() });
        parked.push(res);
        return;
      }
      const f = failures.get(chatId);
      if (f && f.times > 0) {
        f.times--;
        calls.push({ chatId, text, status: f.failure.status, at: Date.now() });
        return reply(res, f.failure.status, {
          ok: false,
          error_code: f.failure.status,
          description: f.failure.description,
          ...(f.failure.retryAfter !== undefined ? { parameters: { retry_after: f.failure.retryAfter } } : {}),
        });
      }
      calls.push({ chatId, text, status: 200, at: Date.now() });
      reply(res, 200, {
        ok: true,
        result: { message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: "private" }, text },
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    calls,
    sent: (chatId) => calls.filter((c) => c.status === 200 && (chatId === undefined || c.chatId === chatId)),
    failNext(chatId, times, failure = SERVER_ERROR) {
      failures.set(chatId, { times, failure });
    },
    failAlways(chatId, failure = SERVER_ERROR) {
      failures.set(chatId, { times: Number.POSITIVE_INFINITY, failure });
    },
    hang(chatId) {
      hung.add(chatId);
    },
    release() {
      hung.clear();
      for (const res of parked.splice(0)) reply(res, 500, { ok: false, error_code: 500, description: "released" });
    },
    async waitFor(pred, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      while (!pred(calls)) {
        if (Date.now() > until)
          throw new Error(`Bot API stand-in: condition not met within ${timeoutMs} ms; calls ${JSON.stringify(calls)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async close() {
      for (const res of parked.splice(0)) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
