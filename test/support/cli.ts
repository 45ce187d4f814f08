/**
 * Driving the `trade` CLI from tests: in-process (fast, captured I/O, scripted answers) and as a
 * real child process running the TypeScript sources (exit codes, stdin, a clean environment), plus
 * the parser of the README's walkthrough block.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { main, type CliIo } from "../../client/src/cli";

export const ROOT = resolve(__dirname, "../..");
const CLI_TS = join(ROOT, "client/src/cli.ts");

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Questions the CLI asked (prompt texts). */
  prompts: string[];
}

export interface CliEnv {
  /** Every variable the CLI reads (PMX_URL, PMX_HOME, PMX_DOMAIN, ADMIN_KEY, ...). */
  env: Record<string, string>;
}

/** A scratch PMX_HOME for one test file. */
export function tempHome(): { dir: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), "pmx-cli-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Run the CLI in this process. `answers` are fed to its questions in order; none = input ended. */
export async function runCli(
  argv: string[],
  o: CliEnv & { answers?: string[]; stdin?: string; interruptAfterMs?: number },
): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const prompts: string[] = [];
  const answers = [...(o.answers ?? [])];
  const io: CliIo = {
    out: (l) => out.push(l),
    err: (l) => err.push(l),
    async prompt(q) {
      prompts.push(q);
      return answers.length ? (answers.shift() as string) : null;
    },
    readAll: async () => o.stdin ?? "",
    env: o.env,
    isTTY: false,
    interrupted() {
      let timer: NodeJS.Timeout | undefined;
      const promise = new Promise<void>((res) => {
        if (o.interruptAfterMs !== undefined) timer = setTimeout(res, o.interruptAfterMs);
      });
      return { promise, dispose: () => timer && clearTimeout(timer) };
    },
  };
  const code = await main(argv, io);
  return { code, stdout: out.join("\n"), stderr: err.join("\n"), prompts };
}

/**
 * Run the CLI as its own process on the TypeScript sources (compiled on the fly with SWC, as
 * jest does), the way `npm run trade -- ...` runs the built one.
 */
export function spawnCli(argv: string[], o: CliEnv & { stdin?: string; timeoutMs?: number }): Promise<CliResult> {
  const hook = `
const swc = require(${JSON.stringify(require.resolve("@swc/core"))});
const fs = require("fs");
require.extensions[".ts"] = function (m, filename) {
  const out = swc.transformSync(fs.readFileSync(filename, "utf8"), { filename, jsc: { parser: { syntax: "typescript" }, target: "es2022" }, module: { type: "commonjs" } });
  m._compile(out.code, filename);
};
require(${JSON.stringify(CLI_TS)}).main(process.argv.slice(1)).then((code) => { process.exitCode = code; });
`;
  // Only what a user's shell would hand over: no test runner variables leak into the CLI.
  return runProcess(process.execPath, ["-e", hook, "--", ...argv], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? "", ...o.env },
    stdin: o.stdin ?? "",
    timeoutMs: o.timeoutMs ?? 180_000,
    what: `trade ${argv.join(" ")}`,
  }).then((r) => ({ ...r, prompts: [] }));
}

/** A child process to its end: exit code and trimmed output; killed and refused after `timeoutMs`. */
export function runProcess(
  cmd: string,
  args: string[],
  o: { cwd: string; env: Record<string, string>; stdin?: string; timeoutMs?: number; what?: string },
): Promise<{ code: number; stdout: string; stderr: string }> {
  // A ceiling for a stuck process, not a pace: the exit ends the wait.
  const timeoutMs = o.timeoutMs ?? 600_000;
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: o.cwd, env: o.env, stdio: [o.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`${o.what ?? `${cmd} ${args.join(" ")}`} did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("exit", (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? -1, stdout: stdout.trimEnd(), stderr: stderr.trimEnd() });
    });
    if (o.stdin !== undefined) child.stdin?.end(o.stdin);
  });
}

export interface WalkthroughStep {
  /** The line as written in the README. */
  line: string;
  /** Variables set in front of the command (e.g. ADMIN_KEY=...). */
  env: Record<string, string>;
  /** Arguments after `trade` (empty for an `export` line). */
  argv: string[];
  /** `export NAME=$(command)`: the command's output becomes NAME for the following steps. */
  capture?: { name: string; command: string };
  /** What the reader types at the command's question, from a trailing `# answer: y` comment. */
  answer?: string;
  /** Text the README says the output contains, from `# expect: ...` comments on the following lines. */
  expect: string[];
}

/** Split a shell line into words (double and single quotes; no expansion). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let cur = "";
  let quote: string | null = null;
  let has = false;
  for (const ch of line) {
    if (quote) {
      if (ch === quote) quote = null;
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      has = true;
    } else if (/\s/.test(ch)) {
      if (has || cur) words.push(cur);
      cur = "";
      has = false;
    } else cur += ch;
  }
  if (quote) throw new Error(`unclosed quote in: ${line}`);
  if (has || cur) words.push(cur);
  return words;
}

/**
 * The walkthrough of README.md: the ```sh blocks of the section, every line that runs `trade`
 * (optionally behind VAR=value assignments) or exports a command's output (`export X=$(...)`) as
 * a step, and the other lines (server start, alias; without their comments) returned apart so a
 * test can check them.
 */
export function readWalkthrough(
  readmePath = join(ROOT, "README.md"),
  heading = "## Five-minute walkthrough (CLI)",
): { steps: WalkthroughStep[]; otherLines: string[] } {
  const text = readFileSync(readmePath, "utf8");
  const start = text.indexOf(heading);
  if (start < 0) throw new Error(`README has no "${heading}" section`);
  const next = text.indexOf("\n## ", start + heading.length);
  const section = text.slice(start, next < 0 ? undefined : next);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
  const steps: WalkthroughStep[] = [];
  const otherLines: string[] = [];
  for (const block of blocks) {
    for (const raw of block.split("\n")) {
      const line = raw.trim();
      if (!line) continue;
      const expect = /^#\s*expect:\s*(.+)$/.exec(line);
      if (expect) {
        if (!steps.length) throw new Error(`"# expect:" before any trade command: ${line}`);
        steps[steps.length - 1].expect.push(expect[1].trim());
        continue;
      }
      if (line.startsWith("#")) continue;
      const hash = line.search(/\s#\s/);
      const code = hash >= 0 ? line.slice(0, hash).trim() : line;
      const comment = hash >= 0 ? line.slice(hash).trim() : "";
      const exported = /^export ([A-Z_][A-Z0-9_]*)=\$\((.+)\)$/.exec(code);
      if (exported) {
        steps.push({ line, env: {}, argv: [], capture: { name: exported[1], command: exported[2] }, expect: [] });
        continue;
      }
      const words = shellWords(code);
      const env: Record<string, string> = {};
      while (words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[0])) {
        const w = words.shift() as string;
        const eq = w.indexOf("=");
        env[w.slice(0, eq)] = w.slice(eq + 1);
      }
      if (words[0] !== "trade") {
        otherLines.push(code);
        continue;
      }
      const answer = /answer:\s*([^\s)]+)/.exec(comment)?.[1];
      steps.push({ line, env, argv: words.slice(1), answer, expect: [] });
    }
  }
  return { steps, otherLines };
}
