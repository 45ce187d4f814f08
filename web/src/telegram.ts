/**
 * Telegram Mini App support without Telegram's script from a CDN: the launch parameters are read
 * from `window.Telegram.WebApp` when a host page provides it, else from the URL Telegram opens
 * (`#tgWebAppData=…&tgWebAppThemeParams=…`), and kept for this tab (client-side navigation drops
 * the hash). Events go to Telegram through its documented bridge (TelegramWebviewProxy on mobile,
 * window.external.notify on desktop, postMessage to web.telegram.org in the web client) and come
 * back through `window.Telegram.WebView.receiveEvent` or postMessage.
 *
 * The raw init data goes with the login (`messengerInitData`); the exchange verifies its HMAC.
 * What is shown of the profile is read from it here.
 */
import { contrast, luminance } from "./colour";
import { forceScheme } from "./scheme";
import { Store } from "./store";

export interface TelegramUser {
  id: number;
  first_name: string;
  last_name?: string;
  username?: string;
  language_code?: string;
  is_premium?: boolean;
}

export type ThemeParams = Partial<
  Record<
    | "bg_color"
    | "text_color"
    | "hint_color"
    | "link_color"
    | "button_color"
    | "button_text_color"
    | "secondary_bg_color"
    | "section_bg_color"
    | "destructive_text_color",
    string
  >
>;

export interface TelegramLaunch {
  initData: string;
  user: TelegramUser | null;
  platform: string;
  version: string;
  themeParams: ThemeParams;
}

interface TelegramWindow {
  Telegram?: {
    WebApp?: { initData?: string; platform?: string; version?: string; themeParams?: ThemeParams };
    WebView?: { receiveEvent?: (type: string, data: unknown) => void };
  };
  TelegramWebviewProxy?: { postEvent(type: string, data: string): void };
  TelegramGameProxy?: { receiveEvent?: (type: string, data: unknown) => void };
  external?: { notify?: (msg: string) => void };
}

const STORAGE_KEY = "pmx.telegram";
const WEB_ORIGIN = "https://web.telegram.org";
const tg = () => window as unknown as TelegramWindow;

function parseUser(initData: string): TelegramUser | null {
  try {
    const raw = new URLSearchParams(initData).get("user");
    const u = raw ? (JSON.parse(raw) as TelegramUser) : null;
    return u && typeof u.id === "number" && typeof u.first_name === "string" ? u : null;
  } catch {
    return null;
  }
}

function parseTheme(raw: string | null): ThemeParams {
  if (!raw) return {};
  try {
    const t = JSON.parse(raw) as Record<string, unknown>;
    return Object.fromEntries(
      Object.entries(t).filter(([, v]) => typeof v === "string" && /^#[0-9a-fA-F]{6}$/.test(v as string)),
    ) as ThemeParams;
  } catch {
    return {};
  }
}

function fromUrl(): TelegramLaunch | null {
  for (const src of [location.hash.slice(1), location.search.slice(1)]) {
    const p = new URLSearchParams(src);
    const initData = p.get("tgWebAppData");
    if (initData)
      return {
        initData,
        user: parseUser(initData),
        platform: p.get("tgWebAppPlatform") ?? "unknown",
        version: p.get("tgWebAppVersion") ?? "",
        themeParams: parseTheme(p.get("tgWebAppThemeParams")),
      };
  }
  return null;
}

/** The launch parameters, or null outside Telegram. */
export function readLaunch(): TelegramLaunch | null {
  const app = tg().Telegram?.WebApp;
  let launch: TelegramLaunch | null = null;
  if (app?.initData)
    launch = {
      initData: app.initData,
      user: parseUser(app.initData),
      platform: app.platform ?? "unknown",
      version: app.version ?? "",
      themeParams: app.themeParams ?? {},
    };
  launch ??= fromUrl();
  if (launch) {
    sessionStorage.setItem(STORAGE_KEY, JSON.stringify(launch));
    return launch;
  }
  try {
    return JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null") as TelegramLaunch | null;
  } catch {
    return null;
  }
}

export const telegram$ = new Store<TelegramLaunch | null>(null);

/** Sends an event to the Telegram client hosting the page (ignored elsewhere). */
export function postEvent(eventType: string, eventData: Record<string, unknown> = {}): void {
  const w = tg();
  if (w.TelegramWebviewProxy?.postEvent) w.TelegramWebviewProxy.postEvent(eventType, JSON.stringify(eventData));
  else if (typeof w.external?.notify === "function") w.external.notify(JSON.stringify({ eventType, eventData }));
  else if (window.parent !== window) window.parent.postMessage(JSON.stringify({ eventType, eventData }), WEB_ORIGIN);
}

/**
 * Telegram's colours for the page, its sections and its buttons. A pair is used only when it
 * passes WCAG AA (4.5:1); otherwise the app's own colours for that light or dark scheme stay.
 */
export function applyTheme(t: ThemeParams): void {
  const root = document.documentElement.style;
  const set = (name: string, v: string | undefined) => (v ? root.setProperty(name, v) : root.removeProperty(name));
  const ok = (fg?: string, bg?: string) => !!fg && !!bg && contrast(fg, bg) >= 4.5;
  const pageOk = ok(t.text_color, t.bg_color);
  set("--bg", pageOk ? t.bg_color : undefined);
  set("--text", pageOk ? t.text_color : undefined);
  set("--surface", pageOk && ok(t.text_color, t.secondary_bg_color) ? t.secondary_bg_color : undefined);
  const buttonOk = ok(t.button_text_color, t.button_color);
  set("--accent", buttonOk ? t.button_color : undefined);
  set("--accent-text", buttonOk ? t.button_text_color : undefined);
  forceScheme(pageOk && t.bg_color ? (luminance(t.bg_color) < 0.2 ? "dark" : "light") : null);
}

function onEvent(type: string, data: unknown): void {
  const d = (data ?? {}) as Record<string, unknown>;
  const root = document.documentElement.style;
  if (type === "theme_changed" && d.theme_params && typeof d.theme_params === "object") {
    const launch = telegram$.get();
    const themeParams = parseTheme(JSON.stringify(d.theme_params));
    applyTheme(themeParams);
    if (launch) telegram$.set({ ...launch, themeParams });
  } else if (type === "viewport_changed" && typeof d.height === "number") {
    root.setProperty("--tg-viewport-height", `${d.height}px`);
    if (d.is_state_stable) root.setProperty("--tg-viewport-stable-height", `${d.height}px`);
  } else if ((type === "safe_area_changed" || type === "content_safe_area_changed") && typeof d === "object") {
    const prefix = type === "safe_area_changed" ? "--tg-safe-area" : "--tg-content-safe-area";
    for (const side of ["top", "bottom", "left", "right"])
      if (typeof d[side] === "number") root.setProperty(`${prefix}-${side}`, `${d[side]}px`);
  }
}

/** Inside Telegram: theme, viewport and safe areas follow the client; tells it the app is ready. */
export function startTelegram(launch: TelegramLaunch): void {
  telegram$.set(launch);
  document.documentElement.dataset.telegram = launch.platform;
  applyTheme(launch.themeParams);
  const w = tg();
  w.Telegram = { ...w.Telegram, WebView: { ...w.Telegram?.WebView, receiveEvent: onEvent } };
  w.TelegramGameProxy = { ...w.TelegramGameProxy, receiveEvent: onEvent };
  addEventListener("message", (e: MessageEvent) => {
    if (e.origin !== WEB_ORIGIN || typeof e.data !== "string") return;
    try {
      const m = JSON.parse(e.data) as { eventType?: string; eventData?: unknown };
      if (typeof m.eventType === "string") onEvent(m.eventType, m.eventData);
    } catch {
      /* not a Telegram event */
    }
  });
  postEvent("web_app_ready");
  postEvent("web_app_expand");
  postEvent("web_app_request_theme");
  postEvent("web_app_request_viewport");
  postEvent("web_app_request_safe_area");
}

export function displayName(u: TelegramUser): string {
  return [u.first_name, u.last_name].filter(Boolean).join(" ");
}
