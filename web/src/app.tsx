/** The shell: header (balance, account), navigation (bottom bar on phones), the routed page. */
import type { ComponentType } from "preact";
import { useEffect, useState } from "preact/hooks";
import { session$ } from "./api";
import { signOut } from "./auth";
import { config } from "./config";
import { friendlyAddress, shortAddress, usdtShort } from "./format";
import { balance$, connection$, unread$ } from "./live";
import { pathFor, useRoute, type AppRoute } from "./router";
import { useStore } from "./store";
import { displayName, telegram$ } from "./telegram";
import { SignInPanel } from "./signin";
import { EventPage, EventsPage } from "./pages/events";
import { MarketPage } from "./pages/market";
import { PortfolioPage } from "./pages/portfolio";
import { WalletPage } from "./pages/wallet";
import { NotificationsPage } from "./pages/notifications";
import { Toggle, useAction } from "./ui";
import { chooseScheme, schemeChoice$, type SchemeChoice } from "./scheme";

function ThemeToggle() {
  const choice = useStore(schemeChoice$);
  return (
    <Toggle
      label="Colour theme"
      options={["auto", "light", "dark"] as const}
      value={choice}
      onChange={(c: SchemeChoice) => chooseScheme(c)}
      labels={{ auto: "Auto", light: "Light", dark: "Dark" }}
    />
  );
}

const PAGES: Record<AppRoute, ComponentType<{ params: Record<string, string>; query: URLSearchParams }>> = {
  events: EventsPage,
  event: EventPage,
  market: MarketPage,
  portfolio: PortfolioPage,
  wallet: WalletPage,
  notifications: NotificationsPage,
};

const NAV: Array<{ route: AppRoute; label: string }> = [
  { route: "events", label: "Markets" },
  { route: "portfolio", label: "Portfolio" },
  { route: "wallet", label: "Wallet" },
  { route: "notifications", label: "Alerts" },
];

function Account() {
  const session = useStore(session$);
  const tg = useStore(telegram$);
  const balance = useStore(balance$);
  const [open, setOpen] = useState(false);
  const [out, outState] = useAction(signOut);
  useEffect(() => {
    if (session) setOpen(false);
  }, [session]);
  // Escape closes the panel and gives focus back to its button.
  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => {
      if (e.key !== "Escape") return;
      setOpen(false);
      document.querySelector<HTMLButtonElement>(".account > button[aria-expanded]")?.focus();
    };
    addEventListener("keydown", onKey);
    return () => removeEventListener("keydown", onKey);
  }, [open]);
  if (!session)
    return (
      <div class="account">
        <button type="button" class="primary" aria-expanded={open} aria-controls="signin-panel" onClick={() => setOpen(!open)}>
          Sign in
        </button>
        {open && (
          <div class="popover" id="signin-panel">
            <SignInPanel />
          </div>
        )}
      </div>
    );
  const who = tg?.user ? displayName(tg.user) : shortAddress(friendlyAddress(session.walletAddress, config.testnet));
  return (
    <div class="account">
      <a
        class="balance"
        href={pathFor("wallet")}
        aria-label={`Available balance ${balance ? usdtShort(balance.available) : "loading"} USDT`}
      >
        $<strong data-testid="header-balance">{balance ? usdtShort(balance.available) : "…"}</strong>
      </a>
      <button type="button" aria-expanded={open} aria-controls="account-panel" onClick={() => setOpen(!open)}>
        {who}
      </button>
      {open && (
        <div class="popover" id="account-panel">
          <p>
            Wallet <code title={session.walletAddress}>{shortAddress(friendlyAddress(session.walletAddress, config.testnet))}</code>
          </p>
          {tg?.user && (
            <p data-testid="telegram-profile">
              Telegram: {displayName(tg.user)}
              {tg.user.username && ` (@${tg.user.username})`}. Bot notifications are on.
            </p>
          )}
          <button type="button" onClick={() => out()} disabled={outState.pending}>
            Sign out
          </button>
        </div>
      )}
    </div>
  );
}

function Nav({ current }: { current: AppRoute | null }) {
  const unread = useStore(unread$);
  return (
    <nav class="tabs" aria-label="Main">
      {NAV.map((n) => (
        <a
          key={n.route}
          href={pathFor(n.route)}
          aria-current={current === n.route || (n.route === "events" && (current === "event" || current === "market")) ? "page" : undefined}
        >
          {n.label}
          {n.route === "notifications" && unread > 0 && (
            <span class="badge" data-testid="unread-badge" aria-label={`${unread} unread`}>
              {unread}
            </span>
          )}
        </a>
      ))}
    </nav>
  );
}

export function App() {
  const { route, params, query } = useRoute();
  const conn = useStore(connection$);
  const Page = route ? PAGES[route] : null;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/" aria-label="PMX home">
          PMX
        </a>
        <Nav current={route} />
        <Account />
      </header>
      {conn === "offline" && (
        <p class="banner" role="status">
          Live updates paused: reconnecting…
        </p>
      )}
      <main id="main" tabIndex={-1}>
        {Page ? (
          <Page params={params} query={query} />
        ) : (
          <section class="card" data-testid="not-found">
            <h1>Page not found</h1>
            <p>There is no page at this address. It may have moved, or the link may be mistyped.</p>
            <p>
              <a href="/">Browse the markets</a> · <a href={pathFor("portfolio")}>Your portfolio</a>
            </p>
          </section>
        )}
      </main>
      <footer class="foot">
        <span class="muted small">Theme</span> <ThemeToggle />
      </footer>
    </>
  );
}
