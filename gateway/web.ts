/**
 * The web app (also the Telegram Mini App) and the API documentation, as built by
 * `npm run build` (Vite) into dist/web, served by the gateway:
 * - content-hashed files under /assets/ are cached for a year (`immutable`), the HTML pages are
 *   revalidated on every load (`no-cache` + ETag), other files for an hour;
 * - each file is read once at start, with the gzip twin the build wrote beside it, and sent
 *   gzipped to clients that accept it;
 * - the app's pages (contract/web-routes.ts) all answer index.html, into which the server writes what the
 *   app cannot know by itself (the chain); any other path stays a 404 in the API's envelope;
 * - `/tonconnect-manifest.json` names this exchange to TON wallets for the login domain;
 * - each page carries a Content-Security-Policy (`appPolicy`, `docsPolicy`).
 * Nothing is fetched from elsewhere: every file comes from the build.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { extname, join, relative, sep } from "node:path";
import { gzipSync } from "node:zlib";
import { APP_ROUTES } from "../contract/web-routes";

/** Written by the build (web/vite.config.mts) last: its presence means the build is complete. */
export const BUILD_REPORT = "build-report.json";

export const CACHE_IMMUTABLE = "public, max-age=31536000, immutable";
export const CACHE_REVALIDATE = "no-cache";
const CACHE_SHORT = "public, max-age=3600";

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".webp": "image/webp",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};

/** Who may frame the app: itself and Telegram's clients (web.telegram.org runs Mini Apps in an iframe). */
export const FRAME_ANCESTORS = "'self' https://web.telegram.org https://*.telegram.org";

/** The CSP hash source of an empty inline event handler (`on…=""`). */
const EMPTY_HANDLER_HASH = `sha256-${createHash("sha256").update("").digest("base64")}`;

/**
 * The app's policy: its scripts, styles, fonts and pictures from the exchange only; connections to
 * the exchange (the API and its Socket.IO, same origin for http and ws) and to the TON Connect
 * bridges of the wallet list it serves (a remote wallet answers through one of them).
 */
export function appPolicy(bridges: readonly string[]): string {
  return [
    "default-src 'self'",
    // TON Connect sets an empty ontouchstart="" on <body> (so iOS shows :active states): that
    // empty handler, by its hash, and no other inline script.
    `script-src 'self' 'unsafe-hashes' '${EMPTY_HANDLER_HASH}'`,
    // TON Connect's wallet window adds its styles as <style> elements at run time.
    "style-src 'self' 'unsafe-inline'",
    // Wallet pictures and the QR code are drawn from data: and blob: URLs.
    "img-src 'self' data: blob:",
    "font-src 'self' data:",
    ["connect-src 'self'", ...bridges].join(" "),
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    `frame-ancestors ${FRAME_ANCESTORS}`,
  ].join("; ");
}

/** Swagger UI's policy: the same origin only; its styles are partly inline, its icons data: URLs. */
export const DOCS_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "frame-ancestors 'self'",
].join("; ");

/** The origins of the HTTP bridges in a TON Connect wallet list (tonconnect-wallets.json), sorted. */
export function bridgeOrigins(walletList: Buffer | undefined): string[] {
  if (!walletList) return [];
  let list: Array<{ bridge?: Array<{ type?: string; url?: string }> }>;
  try {
    list = JSON.parse(walletList.toString("utf8")) as typeof list;
  } catch (err) {
    throw new Error(`the built tonconnect-wallets.json is not JSON (${(err as Error).message}): run npm run build`);
  }
  const out = new Set<string>();
  for (const wallet of Array.isArray(list) ? list : [])
    for (const b of wallet.bridge ?? []) {
      if (b.type !== "sse" || typeof b.url !== "string") continue;
      if (!URL.canParse(b.url)) continue;
      const url = new URL(b.url);
      if (url.protocol === "https:") out.add(url.origin);
    }
  return [...out].sort();
}

export interface WebSettings {
  /** `sandbox` shows the sandbox wallet and faucet. */
  chain: string;
  testnet: boolean;
  /** The ton_proof domain (APP_DOMAIN, else the listening address): the manifest's URL is on it. */
  proofDomain: () => string | undefined;
}

interface Asset {
  body: Buffer;
  /** Pages only: their Content-Security-Policy. */
  policy?: string;
  gzip: Buffer | null;
  type: string;
  /** Strong validators differ per encoding (RFC 9110 8.8.3). */
  etag: string;
  gzipEtag: string;
  cacheControl: string;
}

type AliasHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** Where the build is: dist/web seen from the sources (tests) or from dist/gateway (npm start). */
export function findWebBuild(): string | null {
  for (const dir of [join(__dirname, "..", "web"), join(__dirname, "..", "dist", "web")])
    if (existsSync(join(dir, BUILD_REPORT))) return dir;
  return null;
}

function asset(body: Buffer, type: string, cacheControl: string, gzip: Buffer | null): Asset {
  const hash = createHash("sha1").update(body).digest("base64url");
  return { body, gzip, type, cacheControl, etag: `"${hash}"`, gzipEtag: `"${hash}-gz"` };
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name.startsWith(".")) continue;
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else if (!name.endsWith(".gz")) out.push(p);
  }
  return out;
}

function acceptsGzip(req: IncomingMessage): boolean {
  const h = String(req.headers["accept-encoding"] ?? "");
  return /(^|,)\s*gzip\s*(;\s*q=(?!0(\.0*)?\s*($|,))[0-9.]+)?\s*($|,)/i.test(h);
}

const escapeAttr = (s: string) => s.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

export class WebSite {
  private readonly files = new Map<string, Asset>();
  private readonly index: Asset;
  private readonly docs: Asset | null;
  private readonly settings: WebSettings;

  private constructor(
    readonly dir: string,
    settings: WebSettings,
  ) {
    this.settings = settings;
    for (const file of walk(dir)) {
      const rel = "/" + relative(dir, file).split(sep).join("/");
      const type = TYPES[extname(file)];
      if (!type || rel === `/${BUILD_REPORT}`) continue;
      const gz = existsSync(`${file}.gz`) ? readFileSync(`${file}.gz`) : null;
      const cache = rel.startsWith("/assets/") ? CACHE_IMMUTABLE : type.startsWith("text/html") ? CACHE_REVALIDATE : CACHE_SHORT;
      this.files.set(rel, asset(readFileSync(file), type, cache, gz));
    }
    const html = this.files.get("/index.html");
    if (!html) throw new Error(`${dir} has no index.html: run npm run build`);
    // The app reads these at start; the chain decides whether the sandbox wallet and faucet show.
    const meta = `<meta name="pmx:chain" content="${escapeAttr(settings.chain)}"><meta name="pmx:testnet" content="${settings.testnet}">`;
    const page = Buffer.from(html.body.toString("utf8").replace("</head>", `${meta}</head>`));
    this.index = {
      ...asset(page, html.type, CACHE_REVALIDATE, gzipSync(page)),
      policy: appPolicy(bridgeOrigins(this.files.get("/tonconnect-wallets.json")?.body)),
    };
    this.files.delete("/index.html");
    const docs = this.files.get("/docs/index.html");
    this.docs = docs ? { ...docs, policy: DOCS_POLICY } : null;
    this.files.delete("/docs/index.html");
  }

  /**
   * What TON wallets are told about this exchange. Its URL's host is the proof domain, so a wallet
   * signs exactly what POST /auth/connect checks; plain HTTP only for this machine's own names.
   */
  manifest(): Asset {
    const domain = this.settings.proofDomain() ?? "localhost";
    const local = /^(localhost|127\.\d+\.\d+\.\d+|\[::1\])(:\d+)?$/i.test(domain);
    const origin = `${local ? "http" : "https"}://${domain}`;
    return asset(
      Buffer.from(JSON.stringify({ url: origin, name: "PMX prediction markets", iconUrl: `${origin}/icon-180.png` })),
      TYPES[".json"],
      "no-cache",
      null,
    );
  }

  /** The built app in `dir`, or null when there is none (not built yet). */
  static load(dir: string | null, settings: WebSettings): WebSite | null {
    return dir ? new WebSite(dir, settings) : null;
  }

  /** Number of files and bytes held (logged at start). */
  get size(): { files: number; bytes: number } {
    let bytes = this.index.body.length;
    for (const a of this.files.values()) bytes += a.body.length + (a.gzip?.length ?? 0);
    return { files: this.files.size + 1, bytes };
  }

  /** moleculer-web aliases for the web route; anything else is left to the other routes' 404. */
  aliases(): Record<string, AliasHandler> {
    const aliases: Record<string, AliasHandler> = {};
    const get = (path: string, handler: AliasHandler) => {
      aliases[`GET ${path}`] = handler;
      aliases[`HEAD ${path}`] = handler;
    };
    const send =
      (a: Asset): AliasHandler =>
      (req, res) =>
        this.send(req, res, a);
    for (const path of Object.values(APP_ROUTES)) get(path, send(this.index));
    if (this.docs) get("/docs", send(this.docs));
    get("/tonconnect-manifest.json", (req, res) => this.send(req, res, this.manifest()));
    // Each built file by its exact path: any other path is left to the gateway's 404 (counted as a read).
    for (const [path, a] of this.files) get(path, send(a));
    return aliases;
  }

  /**
   * A page a browser asked for that the app does not have: the app's index.html with status 404,
   * so the app shows its own "Page not found" (API clients, who do not ask for HTML, get the JSON 404).
   */
  sendNotFoundPage(req: IncomingMessage, res: ServerResponse): boolean {
    // moleculer-web rewrites req.url under a route's path; originalUrl is what the client asked for.
    const url = ((req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? "/").split("?")[0];
    const wantsHtml = String(req.headers.accept ?? "").includes("text/html");
    if (req.method !== "GET" || !wantsHtml || url.startsWith("/api/") || /\.[A-Za-z0-9]+$/.test(url) || res.headersSent) return false;
    this.send(req, res, { ...this.index, cacheControl: "no-cache" }, 404);
    return true;
  }

  send(req: IncomingMessage, res: ServerResponse, a: Asset, status = 200): void {
    const gz = a.gzip && acceptsGzip(req) ? a.gzip : null;
    const etag = gz ? a.gzipEtag : a.etag;
    res.setHeader("Content-Type", a.type);
    res.setHeader("Cache-Control", a.cacheControl);
    res.setHeader("ETag", etag);
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (a.policy) res.setHeader("Content-Security-Policy", a.policy);
    if (a.gzip) res.setHeader("Vary", "Accept-Encoding");
    const tags = String(req.headers["if-none-match"] ?? "");
    if (status === 200 && tags && tags.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    if (gz) res.setHeader("Content-Encoding", "gzip");
    const body = gz ?? a.body;
    res.setHeader("Content-Length", String(body.length));
    res.statusCode = status;
    res.end(req.method === "HEAD" ? undefined : body);
  }
}
