/**
 * Build of the web app (index.html) and the API documentation page (docs/index.html) into
 * dist/web, which the gateway serves (gateway/web.ts). The SDK is compiled in from its sources
 * (client/src), so the app and the SDK cannot drift apart.
 *
 * After writing, the build gzips every text file beside itself (the gateway sends those twins)
 * and measures the first load: index.html and everything it makes the browser fetch before the
 * app runs (entry script, its static imports, stylesheets, icon). Over FIRST_LOAD_BUDGET the
 * build fails. The figures go to the console and to build-report.json.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { defineConfig, type Plugin } from "vite";

const here = fileURLToPath(new URL(".", import.meta.url));
const outDir = resolve(here, "../dist/web");

/** Gzipped bytes of the first load, at most (the 250 KB). */
const FIRST_LOAD_BUDGET = 250 * 1024;

interface Sized {
  file: string;
  bytes: number;
  gzip: number;
}

function walk(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) walk(p, out);
    else out.push(p);
  }
  return out;
}

const gzip = (b: Buffer) => gzipSync(b, { level: 9 });

/**
 * @tonconnect/ui links three pictures on GitHub (its QR logo and two badges); the page loads
 * nothing from other hosts, so they point at the exchange's stand-ins instead.
 */
const TONCONNECT_PICTURES: Record<string, string> = {
  "https://raw.githubusercontent.com/ton-connect/sdk/main/assets/ton-icon-48.png": "/wallet-icons/ui-ton.svg",
  "https://raw.githubusercontent.com/ton-connect/sdk/main/assets/tg.png": "/wallet-icons/ui-telegram.svg",
  "https://raw.githubusercontent.com/ton-connect/sdk/main/assets/walletconnect-icon-288.png": "/wallet-icons/ui-walletconnect.svg",
};

function localTonConnectPictures(): Plugin {
  return {
    name: "pmx-local-tonconnect-pictures",
    transform: {
      filter: { id: /@tonconnect[\\/]ui[\\/]/ },
      handler(code) {
        let out = code;
        for (const [from, to] of Object.entries(TONCONNECT_PICTURES)) out = out.split(from).join(to);
        return out === code ? null : { code: out, map: null };
      },
    },
  };
}

function firstLoadBudget(): Plugin {
  return {
    name: "pmx-gzip-and-first-load-budget",
    apply: "build",
    writeBundle(_options, bundle) {
      const sized = new Map<string, Sized>();
      for (const file of walk(outDir)) {
        if (!/\.(js|mjs|css|html|svg|json|txt)$/.test(file)) continue;
        const raw = readFileSync(file);
        const gz = gzip(raw);
        // The gateway sends the twin only when it is smaller.
        if (gz.length < raw.length) writeFileSync(`${file}.gz`, gz);
        sized.set("/" + relative(outDir, file).split(sep).join("/"), {
          file: relative(outDir, file),
          bytes: raw.length,
          gzip: Math.min(gz.length, raw.length),
        });
      }
      const binary = (path: string): Sized => {
        const raw = readFileSync(join(outDir, path));
        return { file: path.slice(1), bytes: raw.length, gzip: raw.length };
      };

      // What index.html loads, then each script's static imports and their stylesheets.
      const html = readFileSync(join(outDir, "index.html"), "utf8");
      const wanted = new Set<string>(["/index.html"]);
      for (const m of html.matchAll(/<(?:script|link)\b[^>]*?\s(?:src|href)="([^"]+)"[^>]*>/g)) if (m[1].startsWith("/")) wanted.add(m[1]);
      const chunks = new Map<string, (typeof bundle)[string] & { type: "chunk" }>(
        Object.values(bundle).flatMap((c) => (c.type === "chunk" ? [[`/${c.fileName}`, c] as [string, typeof c]] : [])),
      );
      const queue = [...wanted].filter((p) => chunks.has(p));
      while (queue.length) {
        const c = chunks.get(queue.pop() as string);
        if (!c) continue;
        for (const css of c.viteMetadata?.importedCss ?? []) wanted.add(`/${css}`);
        for (const imp of c.imports) {
          const p = `/${imp}`;
          if (!wanted.has(p)) {
            wanted.add(p);
            queue.push(p);
          }
        }
      }
      const first = [...wanted].map((p) => sized.get(p) ?? binary(p));
      const total = first.reduce((n, f) => n + f.gzip, 0);
      const lazy = [...chunks.keys()].filter((p) => !wanted.has(p)).map((p) => sized.get(p) as Sized);
      const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
      const lines = [
        "First load (what index.html makes the browser fetch before the app runs):",
        ...first.map((f) => `  ${f.file.padEnd(44)} ${kb(f.bytes).padStart(10)}  gzip ${kb(f.gzip).padStart(9)}`),
        `  total gzip ${kb(total)} of the ${kb(FIRST_LOAD_BUDGET)} budget`,
        "Other chunks (loaded when needed, or by /docs):",
        ...lazy
          .sort((a, b) => b.gzip - a.gzip)
          .map((f) => `  ${f.file.padEnd(44)} ${kb(f.bytes).padStart(10)}  gzip ${kb(f.gzip).padStart(9)}`),
      ];
      // On stderr: scripts that build first and print on stdout (npm run admin-key) stay clean.
      process.stderr.write(`${lines.join("\n")}\n`);
      writeFileSync(
        join(outDir, "build-report.json"),
        JSON.stringify({ firstLoad: { files: first, gzipTotal: total, budget: FIRST_LOAD_BUDGET }, lazy }, null, 2),
      );
      if (total > FIRST_LOAD_BUDGET) throw new Error(`first load is ${kb(total)} gzipped, over the ${kb(FIRST_LOAD_BUDGET)} budget`);
    },
  };
}

export default defineConfig({
  root: here,
  base: "/",
  publicDir: "public",
  logLevel: "warn",
  resolve: {
    alias: { "@pmx/client": resolve(here, "../client/src") },
  },
  oxc: { jsx: { runtime: "automatic", importSource: "preact" } },
  build: {
    outDir,
    emptyOutDir: true,
    target: "es2022",
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 2048,
    rolldownOptions: {
      input: { app: resolve(here, "index.html"), docs: resolve(here, "docs/index.html") },
      // @ton/core (the sandbox wallet's proof) uses Node's global Buffer: each module that does
      // gets the npm `buffer` package imported instead, so it is there before the module runs.
      transform: { inject: { Buffer: ["buffer", "Buffer"] } },
    },
  },
  plugins: [localTonConnectPictures(), firstLoadBudget()],
});
