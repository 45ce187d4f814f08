/**
 * The web app (also the Telegram Mini App) and the API documentation, as built by
 * `npm run build` (Vite) into dist/web, served by the gateway:
 * - content-hashed files under /assets/ are cached for a year (`immutable`), the HTML pages are
 *   revalidated on every load (`no-cache` + ETag), other files for an hour;
 * - each file is read once at start, with the gzip twin the build wrote beside it, and sent
 *   gzipped to clients that accept it;
 * - the app's pages (contract/web-routes.ts) all answer index.html, into which the server writes what the
 *   app cannot know by itself (the chain); any other path stays a 404 in the API's envelope;
 * - `/tonconnect-manifest.json` names this exchange to TON wallets for the login domain.
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

export interface WebSettings {
  /** `sandbox` shows the sandbox wallet and faucet. */
  chain: string;
  testnet: boolean;
  /** The ton_proof domain (APP_DOMAIN, else the listening address): the manifest's URL is on it. */
  proofDomain: () => string | undefined;
}

interface Asset {
  body: Buffer;
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
    this.index = asset(page, html.type, CACHE_REVALIDATE, gzipSync(page));
    this.files.delete("/index.html");
    this.docs = this.files.get("/docs/index.html") ?? null;
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

  send(req: IncomingMessage, res: ServerResponse, a: Asset): void {
    const gz = a.gzip && acceptsGzip(req) ? a.gzip : null;
    const etag = gz ? a.gzipEtag : a.etag;
    res.setHeader("Content-Type", a.type);
    res.setHeader("Cache-Control", a.cacheControl);
    res.setHeader("ETag", etag);
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (a.gzip) res.setHeader("Vary", "Accept-Encoding");
    const tags = String(req.headers["if-none-match"] ?? "");
    if (tags && tags.split(",").some((t) => t.trim().replace(/^W\//, "") === etag)) {
      res.statusCode = 304;
      res.end();
      return;
    }
    if (gz) res.setHeader("Content-Encoding", "gzip");
    const body = gz ?? a.body;
    res.setHeader("Content-Length", String(body.length));
    res.statusCode = 200;
    res.end(req.method === "HEAD" ? undefined : body);
  }
}
