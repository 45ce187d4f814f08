/**
 * Telegram delivery (notifier/delivery.ts) with in-memory fakes: an outbox over a Map, a bot whose
 * answers the test scripts, the test's clock and timers. No broker, no HTTP.
 */
import type { NotificationDoc } from "../../models/notification";
import { Delivery, MAX_SENDING, type BotClient, type DeliveryPorts } from "../../notifier/delivery";
import { DELIVERY_LEASE_MS, type RetryPolicy } from "../../notifier/policy";

const T0 = Date.parse("2026-03-01T12:00:00.000Z");
const POLICY: RetryPolicy = { baseMs: 1_000, factor: 2, maxDelayMs: 60_000, maxAttempts: 3, jitter: 0.2 };

const settled = async () => {
  for (let i = 0; i < 30; i++) await new Promise((r) => setImmediate(r));
};

/** Bot API error as grammy throws it. */
const apiError = (code: number, description: string, retryAfter?: number) =>
  Object.assign(new Error(description), {
    error_code: code,
    description,
    ...(retryAfter !== undefined ? { parameters: { retry_after: retryAfter } } : {}),
  });

function pending(id: string, chatId: number, deliverAt = T0, attempts = 0): NotificationDoc {
  return {
    _id: id,
    userId: "usr_a",
    type: "WITHDRAWAL_SENT",
    title: "Withdrawal sent",
    body: `body of ${id}`,
    metadata: { withdrawalId: id, amount: "1", txHash: null },
    read: false,
    createdAt: new Date(T0).toISOString(),
    delivered: false,
    delivery: "pending",
    attempts,
    chatId,
    deliverAt,
  };
}

type Answer = "ok" | "hang" | Error;

function fakes() {
  const clock = { ms: T0 };
  const docs = new Map<string, NotificationDoc>();
  const timers: Array<{ ms: number; fn: () => void; cancelled: boolean }> = [];
  const sent: Array<{ chatId: number; text: string }> = [];
  const answers = new Map<number, Answer[]>();
  const hanging: Array<() => void> = [];
  const logs: string[] = [];
  const bot: BotClient = {
    sendMessage: (chatId, text, signal) => {
      sent.push({ chatId, text });
      const a = answers.get(chatId)?.shift() ?? "ok";
      if (a === "ok") return Promise.resolve({ message_id: sent.length });
      if (a === "hang")
        return new Promise((resolve, reject) => {
          hanging.push(() => resolve({ message_id: 0 }));
          signal.addEventListener("abort", () => reject(new Error("aborted")));
        });
      return Promise.reject(a);
    },
  };
  const patch = (id: string, set: Partial<NotificationDoc>, unset: Array<keyof NotificationDoc> = []) => {
    const d = docs.get(id);
    if (!d) return;
    const next = { ...d, ...set };
    for (const k of unset) delete next[k];
    docs.set(id, next);
  };
  const ports: DeliveryPorts = {
    bot,
    policy: POLICY,
    rand: () => 0,
    outbox: {
      due: async (nowMs, limit) =>
        [...docs.values()]
          .filter((d) => d.deliverAt !== undefined && d.deliverAt <= nowMs)
          .sort((a, b) => (a.deliverAt ?? 0) - (b.deliverAt ?? 0))
          .slice(0, limit),
      claim: async (id, deliverAt, leaseUntil) => {
        if (docs.get(id)?.deliverAt !== deliverAt) return false;
        patch(id, { deliverAt: leaseUntil });
        return true;
      },
      delivered: async (id, attempts, deliveredAt) =>
        patch(id, { delivered: true, delivery: "delivered", attempts, deliveredAt }, ["deliverAt", "lastError"]),
      retryLater: async (id, attempts, lastError, retryAt) => patch(id, { attempts, lastError, deliverAt: retryAt }),
      giveUp: async (id, attempts, lastError) => patch(id, { delivery: "failed", attempts, lastError }, ["deliverAt"]),
      handBack: async (id, at) => patch(id, { deliverAt: at }),
    },
    now: () => clock.ms,
    after: (ms, fn) => {
      const t = { ms, fn, cancelled: false };
      timers.push(t);
      return () => void (t.cancelled = true);
    },
    log: { warn: (m) => void logs.push(m) },
  };
  /** Move the clock by `ms` and run the timers due by then. */
  const advance = (ms: number) => {
    clock.ms += ms;
    for (const t of timers.splice(0)) if (!t.cancelled) t.fn();
  };
  const add = (...list: NotificationDoc[]) => list.forEach((d) => docs.set(d._id, d));
  return { ports, clock, docs, timers, sent, answers, hanging, logs, advance, add };
}

test("a due push is sent once, as title and body, and recorded delivered", async () => {
  const f = fakes();
  f.add(pending("n1", 42), pending("later", 43, T0 + 5_000));
  const d = new Delivery(f.ports);
  await d.deliver();
  await settled();
  expect(f.sent).toEqual([{ chatId: 42, text: "Withdrawal sent\nbody of n1" }]);
  expect(f.docs.get("n1")).toMatchObject({ delivered: true, delivery: "delivered", attempts: 1, deliveredAt: new Date(T0).toISOString() });
  expect(f.docs.get("n1")?.deliverAt).toBeUndefined();
  // Not due yet: untouched.
  expect(f.docs.get("later")).toMatchObject({ delivered: false, deliverAt: T0 + 5_000 });
  await d.deliver();
  await settled();
  expect(f.sent).toHaveLength(1);
});

test("a push claimed by another sender first is not sent here", async () => {
  const f = fakes();
  f.add(pending("n1", 42));
  const claim = f.ports.outbox.claim;
  f.ports.outbox.claim = async (id, deliverAt, leaseUntil) => {
    // Another instance moved its lease a moment before.
    f.docs.set(id, { ...f.docs.get(id)!, deliverAt: T0 + DELIVERY_LEASE_MS - 1 });
    return claim(id, deliverAt, leaseUntil);
  };
  await new Delivery(f.ports).deliver();
  await settled();
  expect(f.sent).toEqual([]);
});

test("a claimed push is leased: while it is being sent nobody else finds it due", async () => {
  const f = fakes();
  f.add(pending("n1", 42));
  f.answers.set(42, ["hang"]);
  const d = new Delivery(f.ports);
  await d.deliver();
  expect(f.docs.get("n1")?.deliverAt).toBe(T0 + DELIVERY_LEASE_MS);
  expect(await f.ports.outbox.due(T0 + DELIVERY_LEASE_MS - 1, 10)).toEqual([]);
  f.hanging.forEach((release) => release());
  await settled();
  expect(f.docs.get("n1")).toMatchObject({ delivery: "delivered", attempts: 1 });
});

test("a server error is retried with an exponential backoff, then delivered", async () => {
  const f = fakes();
  f.add(pending("n1", 42));
  f.answers.set(42, [apiError(500, "Internal Server Error"), apiError(502, "Bad Gateway")]);
  const d = new Delivery(f.ports);
  await d.deliver();
  await settled();
  expect(f.docs.get("n1")).toMatchObject({
    delivery: "pending",
    attempts: 1,
    lastError: "500 Internal Server Error",
    deliverAt: T0 + POLICY.baseMs,
  });
  expect(f.timers.map((t) => t.ms)).toEqual([POLICY.baseMs]);

  f.advance(POLICY.baseMs);
  await settled();
  expect(f.docs.get("n1")).toMatchObject({
    attempts: 2,
    lastError: "502 Bad Gateway",
    deliverAt: T0 + POLICY.baseMs + POLICY.baseMs * POLICY.factor,
  });
  expect(f.timers.map((t) => t.ms)).toEqual([POLICY.baseMs * POLICY.factor]);

  f.advance(POLICY.baseMs * POLICY.factor);
  await settled();
  expect(f.docs.get("n1")).toMatchObject({ delivered: true, delivery: "delivered", attempts: 3 });
  expect(f.docs.get("n1")?.lastError).toBeUndefined();
  expect(f.sent).toHaveLength(3);
});

test("429 waits at least the server's retry_after", async () => {
  const f = fakes();
  f.add(pending("n1", 42));
  f.answers.set(42, [apiError(429, "Too Many Requests: retry after 30", 30)]);
  await new Delivery(f.ports).deliver();
  await settled();
  expect(f.docs.get("n1")).toMatchObject({ attempts: 1, deliverAt: T0 + 30_000 });
  expect(f.timers.map((t) => t.ms)).toEqual([30_000]);
});

test("a network failure (no Bot API answer) is retried", async () => {
  const f = fakes();
  f.add(pending("n1", 42));
  f.answers.set(42, [new Error("socket hang up")]);
  await new Delivery(f.ports).deliver();
  await settled();
  expect(f.docs.get("n1")).toMatchObject({ delivery: "pending", attempts: 1, lastError: "socket hang up" });
});

test("a 4xx (blocked bot, unknown chat) is not retried: the push is given up", async () => {
  const f = fakes();
  f.add(pending("n1", 42));
  f.answers.set(42, [apiError(403, "Forbidden: bot was blocked by the user")]);
  await new Delivery(f.ports).deliver();
  await settled();
  expect(f.docs.get("n1")).toMatchObject({
    delivered: false,
    delivery: "failed",
    attempts: 1,
    lastError: "403 Forbidden: bot was blocked by the user",
  });
  expect(f.docs.get("n1")?.deliverAt).toBeUndefined();
  expect(f.timers).toEqual([]);
  expect(f.logs).toEqual(["Telegram push of n1 given up after 1 attempt(s): 403 Forbidden: bot was blocked by the user"]);
});

test("after maxAttempts failures the push is given up", async () => {
  const f = fakes();
  f.add(pending("n1", 42, T0, POLICY.maxAttempts - 1));
  f.answers.set(42, [apiError(500, "Internal Server Error")]);
  await new Delivery(f.ports).deliver();
  await settled();
  expect(f.docs.get("n1")).toMatchObject({ delivery: "failed", attempts: POLICY.maxAttempts });
});

test(`at most ${MAX_SENDING} pushes are in flight; the rest go as slots free up`, async () => {
  const f = fakes();
  for (let i = 0; i < MAX_SENDING + 3; i++) {
    f.add(pending(`n${i}`, 100 + i, T0 - 100 + i));
    f.answers.set(100 + i, ["hang"]);
  }
  const d = new Delivery(f.ports);
  await d.deliver();
  await settled();
  expect(f.sent).toHaveLength(MAX_SENDING);
  expect(d.inFlight).toBe(MAX_SENDING);
  // Earliest first.
  expect(f.sent.map((s) => s.chatId)).toEqual(Array.from({ length: MAX_SENDING }, (_, i) => 100 + i));
  f.hanging.splice(0, 2).forEach((release) => release());
  await settled();
  expect(f.sent).toHaveLength(MAX_SENDING + 2);
  f.hanging.splice(0).forEach((release) => release());
  await settled();
  f.hanging.splice(0).forEach((release) => release());
  await settled();
  expect([...f.docs.values()].every((n) => n.delivery === "delivered")).toBe(true);
});

test("stop hands pushes in flight back for the next start and cancels retries", async () => {
  const f = fakes();
  f.add(pending("n1", 42), pending("n2", 43));
  f.answers.set(42, ["hang"]);
  f.answers.set(43, [apiError(500, "Internal Server Error")]);
  const d = new Delivery(f.ports);
  await d.deliver();
  await settled();
  expect(f.timers).toHaveLength(1);
  f.clock.ms += 10;
  await d.stop();
  expect(f.docs.get("n1")).toMatchObject({ delivery: "pending", attempts: 0, deliverAt: T0 + 10 });
  expect(f.timers[0].cancelled).toBe(true);
  // Stopped: nothing more is claimed.
  await d.deliver();
  await settled();
  expect(f.sent).toHaveLength(2);
});
