/** Small shared pieces: async actions with their errors in words, the 429 countdown, loading. */
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { UnauthorizedError } from "@pmx/client/errors";
import { client, dropSession } from "./api";
import { describeError } from "./errors";

export interface ActionState {
  pending: boolean;
  error: { text: string; detail?: string; retryAt?: number } | null;
}

/** A session the server no longer knows is forgotten here too (the page then offers to sign in). */
function forgetDeadSession(err: unknown): void {
  if (err instanceof UnauthorizedError && client.session) dropSession();
}

/**
 * Runs one async action at a time; its failure is kept as words (and, after a 429, the moment
 * the server said to try again).
 */
export function useAction<A extends unknown[], R>(
  fn: (...args: A) => Promise<R>,
): [(...args: A) => Promise<R | undefined>, ActionState, () => void] {
  const [state, setState] = useState<ActionState>({ pending: false, error: null });
  const live = useRef(true);
  useEffect(
    () => () => {
      live.current = false;
    },
    [],
  );
  const run = useCallback(
    async (...args: A) => {
      setState({ pending: true, error: null });
      try {
        const r = await fn(...args);
        if (live.current) setState({ pending: false, error: null });
        return r;
      } catch (err) {
        forgetDeadSession(err);
        const d = describeError(err);
        if (live.current)
          setState({
            pending: false,
            error: { text: d.text, detail: d.detail, retryAt: d.retryAfter ? Date.now() + d.retryAfter * 1000 : undefined },
          });
        return undefined;
      }
    },
    [fn],
  );
  const clear = useCallback(() => setState({ pending: false, error: null }), []);
  return [run, state, clear];
}

/** Loads data for a page: refetches when `deps` change; keeps the last data while reloading. */
export function useLoad<T>(
  fn: () => Promise<T>,
  deps: unknown[],
): { data: T | null; error: ActionState["error"]; loading: boolean; reload: () => void } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ActionState["error"]>(null);
  const [loading, setLoading] = useState(true);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    setLoading(true);
    fn().then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
        setLoading(false);
      },
      (err: unknown) => {
        if (!live) return;
        forgetDeadSession(err);
        const d = describeError(err);
        setError({ text: d.text, detail: d.detail, retryAt: d.retryAfter ? Date.now() + d.retryAfter * 1000 : undefined });
        setLoading(false);
      },
    );
    return () => {
      live = false;
    };
  }, [...deps, tick]);
  return { data, error, loading, reload: useCallback(() => setTick((n) => n + 1), []) };
}

/** Seconds left until `at`, updated every second. */
function useCountdown(at: number | undefined): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    if (!at) return;
    const t = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(t);
  }, [at]);
  return at ? Math.max(0, Math.ceil((at - now) / 1000)) : 0;
}

/** An action's error in words, with the Retry-After countdown after a 429. */
export function ErrorText({ error }: { error: ActionState["error"] }) {
  const left = useCountdown(error?.retryAt);
  if (!error) return null;
  return (
    <div class="error" role="alert">
      <p>
        {error.text}
        {error.retryAt !== undefined &&
          (left > 0 ? <span class="countdown"> Try again in {left} s.</span> : <span class="countdown"> You can try again now.</span>)}
      </p>
      {error.detail && <p class="detail">{error.detail}</p>}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p class="muted" role="status">
      Loading {what}…
    </p>
  );
}

export function Section({
  title,
  children,
  id,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  id?: string;
  actions?: ComponentChildren;
}) {
  const hid = id ? `${id}-title` : undefined;
  return (
    <section class="card" id={id} aria-labelledby={hid}>
      <div class="card-head">
        <h2 id={hid}>{title}</h2>
        {actions}
      </div>
      {children}
    </section>
  );
}

/** A group of toggle buttons (one pressed), e.g. categories, intervals, BUY/SELL. */
export function Toggle<T extends string>({
  label,
  options,
  value,
  onChange,
  labels,
  scroll,
}: {
  label: string;
  options: readonly T[];
  value: T;
  onChange: (v: T) => void;
  labels?: Partial<Record<T, string>>;
  scroll?: boolean;
}) {
  return (
    <div class={scroll ? "toggle scroll-x" : "toggle"} role="group" aria-label={label}>
      {options.map((o) => (
        <button type="button" key={o} aria-pressed={o === value} onClick={() => onChange(o)}>
          {labels?.[o] ?? o}
        </button>
      ))}
    </div>
  );
}

/** A success line, announced politely. */
export function Done({ text, testid }: { text: string | null; testid?: string }) {
  if (!text) return null;
  return (
    <p class="success" role="status" data-testid={testid}>
      {text}
    </p>
  );
}

/** Previous/next page buttons around "Page n" (or "Page n of m" when the total is known); none for a single page. */
export function Pager({
  label,
  page,
  pages,
  hasNext,
  onPage,
  labels = ["Previous", "Next"],
}: {
  label: string;
  page: number;
  pages?: number;
  hasNext: boolean;
  onPage: (p: number) => void;
  labels?: [string, string];
}) {
  // One page only: nothing to page through.
  if (page <= 1 && !hasNext) return null;
  return (
    <nav class="pager" aria-label={label}>
      <button type="button" disabled={page <= 1} onClick={() => onPage(page - 1)}>
        {labels[0]}
      </button>
      <span>
        Page {page}
        {pages !== undefined && ` of ${pages}`}
      </span>
      <button type="button" disabled={!hasNext} onClick={() => onPage(page + 1)}>
        {labels[1]}
      </button>
    </nav>
  );
}
