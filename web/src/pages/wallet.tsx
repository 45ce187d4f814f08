/** Deposit address with its QR code (drawn here, uqr), the sandbox faucet, withdrawals. */
import { useMemo, useState } from "preact/hooks";
import { encode } from "uqr";
import type { DepositAddress, WithdrawResult } from "@pmx/client/models";
import { toMicro } from "@pmx/client/money";
import { client, session$ } from "../api";
import { config, isSandbox } from "../config";
import { dollars, friendlyAddress, shortAddress, shortHash, usdt } from "../format";
import { balance$ } from "../live";
import { NeedsSession } from "../signin";
import { useStore } from "../store";
import { Done, ErrorText, Loading, Section, useAction, useLoad } from "../ui";

/** The QR code as one SVG path of its dark modules, with the quiet zone the standard asks for. */
function Qr({ text, label }: { text: string; label: string }) {
  const { size, d } = useMemo(() => {
    const qr = encode(text, { border: 4 });
    let path = "";
    qr.data.forEach((row, y) => row.forEach((dark, x) => dark && (path += `M${x} ${y}h1v1h-1z`)));
    return { size: qr.size, d: path };
  }, [text]);
  return (
    <svg class="qr" viewBox={`0 0 ${size} ${size}`} role="img" aria-label={label} data-testid="deposit-qr" shape-rendering="crispEdges">
      <rect width={size} height={size} fill="#fff" />
      <path d={d} fill="#000" />
    </svg>
  );
}

function Deposit() {
  const { data, error, loading } = useLoad<DepositAddress>(() => client.wallet.depositAddress(), []);
  const [copied, setCopied] = useState(false);
  return (
    <Section title="Deposit USDT" id="deposit">
      <ErrorText error={error} />
      {loading && !data && <Loading what="your deposit address" />}
      {data && (
        <div class="deposit">
          <Qr text={data.address} label={`QR code of the deposit address ${data.address}`} />
          <div>
            <p>Send USDT (the TON jetton) to this address; it is credited once the transfer is on chain.</p>
            <p>
              <code class="address" data-testid="deposit-address">
                {data.address}
              </code>
            </p>
            <button
              type="button"
              onClick={() =>
                navigator.clipboard?.writeText(data.address).then(
                  () => setCopied(true),
                  () => setCopied(false),
                )
              }
            >
              Copy address
            </button>
            {copied && (
              <span role="status" class="muted">
                {" "}
                Copied.
              </span>
            )}
            <p class="muted small">Only USDT sent from its official jetton is credited; TON coins and other tokens are not.</p>
          </div>
        </div>
      )}
    </Section>
  );
}

function Faucet() {
  const [amount, setAmount] = useState("100");
  const [sent, setSent] = useState<string | null>(null);
  const [take, state] = useAction(async () => {
    const r = await client.wallet.faucet({ amount: toMicro(amount.trim() || "0", "amount"), asset: "USDT" });
    setSent(`Sent ${usdt(r.amount)} test USDT to your deposit address (tx ${shortHash(r.txHash)}). It is credited in a few seconds.`);
  });
  return (
    <Section title="Sandbox faucet" id="faucet">
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          take();
        }}
      >
        <label for="faucet-amount">Test USDT</label>
        <input id="faucet-amount" inputMode="decimal" value={amount} onInput={(e) => setAmount(e.currentTarget.value)} />
        <button type="submit" class="primary" disabled={state.pending}>
          {state.pending ? "Sending…" : "Get test USDT"}
        </button>
      </form>
      <ErrorText error={state.error} />
      <Done text={sent} testid="faucet-result" />
    </Section>
  );
}

function Withdraw({ wallet }: { wallet: string }) {
  const balance = useStore(balance$);
  const [amount, setAmount] = useState("");
  const [pending, setPending] = useState<string | null>(null);
  const [result, setResult] = useState<{ r: WithdrawResult; micro: string } | null>(null);
  const [inputError, setInputError] = useState<string | null>(null);
  const check = (e: Event) => {
    e.preventDefault();
    setResult(null);
    try {
      const micro = toMicro(amount.trim() || "0", "amount");
      if (BigInt(micro) <= 0n) throw new RangeError("Enter an amount above 0.");
      if (balance && BigInt(micro) > BigInt(balance.available)) throw new RangeError(`You have ${dollars(balance.available)} available.`);
      setInputError(null);
      setPending(micro);
    } catch (err) {
      setInputError((err as Error).message);
    }
  };
  const [send, state] = useAction(async () => {
    if (!pending) return;
    const r = await client.wallet.withdraw({ amount: pending });
    setResult({ r, micro: pending });
    setPending(null);
  });
  const words: Record<WithdrawResult["status"], string> = {
    accepted: "Sent",
    duplicate: "Already sent (the same amount was just withdrawn)",
    failed: "Failed",
  };
  return (
    <Section title="Withdraw" id="withdraw">
      <p>
        USDT goes to the wallet you signed in with: <code class="address">{wallet}</code>
      </p>
      <form class="inline" onSubmit={check}>
        <label for="withdraw-amount">Amount (USDT)</label>
        <input
          id="withdraw-amount"
          inputMode="decimal"
          value={amount}
          onInput={(e) => {
            setAmount(e.currentTarget.value);
            setPending(null);
          }}
          aria-describedby="withdraw-help"
        />
        <button type="submit" class="primary" disabled={state.pending}>
          Withdraw
        </button>
      </form>
      <p id="withdraw-help" class="muted small">
        Available: {balance ? dollars(balance.available) : "…"}. From 1 USDT per withdrawal.
      </p>
      <ErrorText error={inputError ? { text: inputError } : state.error} />
      {pending && (
        <div class="review" role="region" aria-label="Confirm the withdrawal" data-testid="withdraw-confirm">
          <p>
            Send <strong>{dollars(pending)}</strong> to <code class="address">{wallet}</code>? This cannot be undone.
          </p>
          <div class="actions">
            <button type="button" class="primary" onClick={() => send()} disabled={state.pending}>
              {state.pending ? "Sending…" : `Confirm: send ${dollars(pending)}`}
            </button>
            <button type="button" onClick={() => setPending(null)} disabled={state.pending}>
              Cancel
            </button>
          </div>
        </div>
      )}
      {result && (
        <p class={result.r.status === "failed" ? "error" : "success"} role="status" data-testid="withdraw-result">
          {words[result.r.status]}: {dollars(result.micro)} to {shortAddress(wallet)}
          {result.r.status === "failed" && ` (${result.r.message})`}
          {result.r.txHash && ` (tx ${shortHash(result.r.txHash)})`}
        </p>
      )}
    </Section>
  );
}

export function WalletPage() {
  const session = useStore(session$);
  if (!session) return <NeedsSession title="Wallet" headline="Sign in to deposit and withdraw" />;
  return (
    <>
      <h1>Wallet</h1>
      <Deposit />
      {isSandbox && <Faucet />}
      <Withdraw wallet={friendlyAddress(session.walletAddress, config.testnet)} />
    </>
  );
}
