/**
 * How the gateway serves the built web app (gateway/web.ts) over real HTTP: the app's pages, cache
 * headers by kind of file, gzip twins, revalidation, the TON Connect manifest on the proof domain,
 * the wallet list pointing only at the exchange's own pictures, /docs, and 404s everywhere else.
 * Needs `npm run build` (npm test runs it first).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { BUILD_REPORT, CACHE_IMMUTABLE, CACHE_REVALIDATE, findWebBuild } from "../../gateway/web";
import { APP_ROUTES, matchRoute, pathFor } from "../../contract/web-routes";
import { startServer, type TestServer } from "../support/server";

const build = findWebBuild();
if (!build) throw new Error("The web app is not built: run npm run build first (npm test does)");

interface Report {
  firstLoad: { files: Array<{ file: string; bytes: number; gzip: number }>; gzipTotal: number; budget: number };
}
const report = JSON.parse(readFileSync(join(build, BUILD_REPORT), "utf8")) as Report;

describe("the web app served by the gateway", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startServer({});
  });
  afterAll(() => srv.stop());

  const get = (path: string, headers: Record<string, string> = {}) =>
    fetch(srv.url + path, { headers: { "accept-encoding": "identity", ...headers } });

  test("every page of the app answers index.html, revalidated on each load, with the chain written in", async () => {
    for (const path of [
      pathFor("events"),
      pathFor("event", { id: "evt_1" }),
      pathFor("market", { id: "mkt_1" }),
      pathFor("portfolio"),
      pathFor("wallet"),
      pathFor("notifications"),
      "/portfolio/",
    ]) {
      const res = await get(path);
      expect([path, res.status, res.headers.get("content-type"), res.headers.get("cache-control")]).toEqual([
        path,
        200,
        "text/html; charset=utf-8",
        CACHE_REVALIDATE,
      ]);
      const html = await res.text();
      expect(html).toContain('<meta name="pmx:chain" content="sandbox">');
      expect(html).toMatch(/<script type="module" crossorigin src="\/assets\/app-[\w-]+\.js"><\/script>/);
    }
    expect(Object.keys(APP_ROUTES)).toHaveLength(6);
    expect(matchRoute("/markets/mkt_1")).toEqual({ route: "market", params: { id: "mkt_1" } });
    expect(matchRoute("/markets/mkt_1/more")).toBeNull();
  });

  test("content-hashed assets are cached for a year; gzip twins go to clients that take gzip; ETags revalidate", async () => {
    const html = await (await get("/")).text();
    const script = (/src="(\/assets\/app-[\w-]+\.js)"/.exec(html) as RegExpExecArray)[1];
    const plain = await get(script);
    expect([
      plain.status,
      plain.headers.get("cache-control"),
      plain.headers.get("content-type"),
      plain.headers.get("content-encoding"),
    ]).toEqual([200, CACHE_IMMUTABLE, "text/javascript; charset=utf-8", null]);
    const body = Buffer.from(await plain.arrayBuffer());
    const zipped = await fetch(srv.url + script, { headers: { "accept-encoding": "gzip, deflate" } });
    expect([zipped.headers.get("content-encoding"), zipped.headers.get("vary")]).toEqual(["gzip", "Accept-Encoding"]);
    // fetch decodes gzip itself: the same bytes either way.
    expect(Buffer.from(await zipped.arrayBuffer()).equals(body)).toBe(true);
    expect(zipped.headers.get("etag")).not.toBe(plain.headers.get("etag"));
    const again = await get(script, { "if-none-match": plain.headers.get("etag") as string });
    expect(again.status).toBe(304);
    const head = await fetch(srv.url + script, { method: "HEAD" });
    expect([head.status, head.headers.get("content-length"), await head.text()]).toEqual([200, expect.any(String), ""]);
  });

  test("the first load the build measured is within its budget, and is what the page references", async () => {
    expect(report.firstLoad.gzipTotal).toBeLessThanOrEqual(report.firstLoad.budget);
    expect(report.firstLoad.budget).toBe(250 * 1024);
    const html = await (await get("/")).text();
    for (const f of report.firstLoad.files.filter((x) => x.file.startsWith("assets/"))) expect(html).toContain(`/${f.file}`);
    for (const f of report.firstLoad.files) {
      const res = await fetch(`${srv.url}/${f.file === "index.html" ? "" : f.file}`, { headers: { "accept-encoding": "gzip" } });
      expect([f.file, res.status]).toEqual([f.file, 200]);
    }
  });

  test("the TON Connect manifest names the proof domain the exchange checks; its icon and every wallet picture come from the exchange", async () => {
    const manifest = (await (await get("/tonconnect-manifest.json")).json()) as { url: string; name: string; iconUrl: string };
    const challenge = (await (await get("/api/v1/auth/challenge")).json()) as { data: { domain: string } };
    expect(new URL(manifest.url).host).toBe(challenge.data.domain);
    expect(manifest.name).toBeTruthy();
    const icon = await fetch(manifest.iconUrl.replace(new URL(manifest.iconUrl).origin, srv.url));
    expect([icon.status, icon.headers.get("content-type")]).toEqual([200, "image/png"]);
    const wallets = (await (await get("/tonconnect-wallets.json")).json()) as Array<{ app_name: string; image: string; bridge: unknown[] }>;
    expect(wallets.map((w) => w.app_name)).toEqual(expect.arrayContaining(["telegram-wallet", "tonkeeper", "mytonwallet"]));
    for (const w of wallets) {
      expect(w.image).toMatch(/^\/wallet-icons\/[\w.-]+\.svg$/);
      expect((await get(w.image)).status).toBe(200);
    }
    // The three pictures @tonconnect/ui links itself are pointed at the exchange by the build.
    const chunk = readdirSync(join(build, "assets")).find((f) => /^tonconnect-[\w-]+\.js$/.test(f));
    const tonconnect = readFileSync(join(build, "assets", chunk as string), "utf8");
    expect(tonconnect.includes("raw.githubusercontent.com/ton-connect/sdk/main/assets/")).toBe(false);
    expect(tonconnect.includes("/wallet-icons/ui-ton.svg")).toBe(true);
  });

  test("/docs is Swagger UI from the build over the served OpenAPI document", async () => {
    const res = await get("/docs");
    expect([res.status, res.headers.get("cache-control")]).toEqual([200, CACHE_REVALIDATE]);
    const html = await res.text();
    const script = (/src="(\/assets\/docs-[\w-]+\.js)"/.exec(html) as RegExpExecArray)[1];
    const js = await (await get(script)).text();
    // (booleans: the bundle is 1.5 MB, too long for a failure message)
    expect(js.includes('"/api/v1/openapi.json"') || js.includes("`/api/v1/openapi.json`")).toBe(true);
    expect(js.includes("swagger-ui")).toBe(true);
    expect(html).toMatch(/href="\/assets\/docs-[\w-]+\.css"/);
    expect((await get("/api/v1/openapi.json")).status).toBe(200);
  });

  test("pages carry a Content-Security-Policy: the app's lets Telegram frame it and reach the wallet list's bridges; /docs its own", async () => {
    const directives = (policy: string | null) =>
      Object.fromEntries((policy ?? "").split(/;\s*/).map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    const bridges = (
      JSON.parse(readFileSync(join(build, "tonconnect-wallets.json"), "utf8")) as Array<{ bridge: Array<{ type: string; url?: string }> }>
    )
      .flatMap((w) => w.bridge.filter((b) => b.type === "sse").map((b) => new URL(b.url as string).origin))
      .filter((o, i, all) => all.indexOf(o) === i);
    expect(bridges.length).toBeGreaterThan(5);
    for (const path of [pathFor("events"), pathFor("market", { id: "mkt_1" }), pathFor("wallet")]) {
      const res = await get(path);
      const csp = directives(res.headers.get("content-security-policy"));
      expect(csp["frame-ancestors"]).toEqual(["'self'", "https://web.telegram.org", "https://*.telegram.org"]);
      expect(csp["default-src"]).toEqual(["'self'"]);
      expect(csp["script-src"]).toContain("'self'");
      expect(csp["script-src"]).not.toContain("'unsafe-inline'");
      expect(csp["script-src"]).not.toContain("'unsafe-eval'");
      expect(csp["object-src"]).toEqual(["'none'"]);
      expect(csp["connect-src"][0]).toBe("'self'");
      expect([...csp["connect-src"].slice(1)].sort()).toEqual([...bridges].sort());
      // A revalidation (304) keeps the policy.
      const again = await get(path, { "if-none-match": res.headers.get("etag") as string });
      expect([again.status, again.headers.get("content-security-policy")]).toEqual([304, res.headers.get("content-security-policy")]);
    }
    const docs = directives((await get("/docs")).headers.get("content-security-policy"));
    expect(docs["frame-ancestors"]).toEqual(["'self'"]);
    expect(docs["script-src"]).toEqual(["'self'"]);
    expect(docs["connect-src"]).toEqual(["'self'"]);
  });

  test("anything else is a 404 in the API's envelope, also under the app's folders", async () => {
    for (const path of [
      "/nope",
      "/assets/nope.js",
      "/wallet-icons/nope.svg",
      "/markets",
      "/markets/a/b",
      "/build-report.json",
      "/.vite/manifest.json",
      "/index.html.gz",
      "/docs/index.html",
    ]) {
      const res = await get(path);
      const body = (await res.json()) as { error: { code: string } };
      expect([path, res.status, body.error.code]).toEqual([path, 404, "RESOURCE_NOT_FOUND"]);
    }
    expect((await fetch(`${srv.url}/`, { method: "POST" })).status).toBe(404);
  });

  test("a browser asking for a page the app does not have gets the app (its own not-found page) with status 404", async () => {
    const html = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };
    for (const path of ["/nope", "/markets/a/b", "/events"]) {
      const res = await fetch(`${srv.url}${path}`, { headers: html });
      expect([path, res.status, res.headers.get("content-type")]).toEqual([path, 404, "text/html; charset=utf-8"]);
      expect(await res.text()).toContain('<div id="app">');
      expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    }
    // Files, the API and other methods keep the API's JSON 404, whatever they accept.
    for (const [path, method] of [
      ["/assets/nope.js", "GET"],
      ["/api/v1/nope", "GET"],
      ["/nope", "POST"],
    ]) {
      const res = await fetch(`${srv.url}${path}`, { method, headers: html });
      expect([path, res.status, ((await res.json()) as { error: { code: string } }).error.code]).toEqual([path, 404, "RESOURCE_NOT_FOUND"]);
    }
  });
});
