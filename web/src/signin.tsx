/** The ways in: a TON wallet through TON Connect, or (on the sandbox chain) a key made here. */
import { useState } from "preact/hooks";
import { hasSandboxKey, signInSandbox, signInTonConnect } from "./auth";
import { isSandbox } from "./config";
import { useStore } from "./store";
import { displayName, telegram$ } from "./telegram";
import { ErrorText, useAction } from "./ui";

export function SignInPanel({ headline = "Sign in to trade" }: { headline?: string }) {
  const tg = useStore(telegram$);
  const [hasKey] = useState(hasSandboxKey);
  const [sandbox, sandboxState] = useAction(signInSandbox);
  const [tonConnect, tonState] = useAction(signInTonConnect);
  const busy = sandboxState.pending || tonState.pending;
  return (
    <div class="signin" aria-busy={busy}>
      <h2>{headline}</h2>
      {tg?.user && (
        <p>
          Signing in as <strong>{displayName(tg.user)}</strong> from Telegram: your profile is linked and the bot sends you notifications.
        </p>
      )}
      <button type="button" class="primary" onClick={() => tonConnect()} disabled={busy}>
        {tonState.pending ? "Waiting for your wallet…" : "Connect a TON wallet"}
      </button>
      <ErrorText error={tonState.error} />
      {isSandbox && (
        <>
          <p class="muted">
            Or try it with nothing installed: a sandbox key is made and kept in this browser, and the faucet gives it test USDT.
          </p>
          <button type="button" onClick={() => sandbox()} disabled={busy}>
            {sandboxState.pending ? "Signing in…" : hasKey ? "Sign in with my sandbox wallet" : "Create a sandbox wallet"}
          </button>
          <ErrorText error={sandboxState.error} />
        </>
      )}
    </div>
  );
}

/** What a page that needs a session shows to a visitor who has none. */
export function NeedsSession({ title, headline }: { title: string; headline: string }) {
  return (
    <section class="card">
      <h1>{title}</h1>
      <SignInPanel headline={headline} />
    </section>
  );
}
