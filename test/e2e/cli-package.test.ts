/**
 * `client/` is a package of its own: packed (`npm pack` builds it), installed globally into a
 * scratch prefix, and its `trade` bin run from a directory outside the repository against a
 * started server. Nothing of the repository is on its module path: the package brings its own
 * dependencies.
 */
import { mkdtempSync, readdirSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startChainServer } from "../support/chain";
import type { TestServer } from "../support/server";
import { ROOT, runProcess as run } from "../support/cli";

describe("the trade CLI as an installed package", () => {
  let srv: TestServer;
  let scratch: string;
  let bin: string;
  let elsewhere: string;
  const npmEnv = () => ({
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? scratch,
    npm_config_update_notifier: "false",
    npm_config_fund: "false",
    npm_config_audit: "false",
  });

  beforeAll(async () => {
    srv = await startChainServer();
    scratch = realpathSync(mkdtempSync(join(tmpdir(), "pmx-pkg-")));
    elsewhere = join(scratch, "somewhere");
    const packed = await run("npm", ["pack", "--pack-destination", scratch], { cwd: join(ROOT, "client"), env: npmEnv() });
    if (packed.code !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
    const tarball = readdirSync(scratch).find((f) => f.endsWith(".tgz")) as string;
    const prefix = join(scratch, "prefix");
    // A few seconds with a warm npm cache; minutes on a loaded machine with a cold one (the ceiling is runProcess's).
    const installed = await run("npm", ["install", "--global", "--prefix", prefix, "--prefer-offline", join(scratch, tarball)], {
      cwd: scratch,
      env: npmEnv(),
    });
    if (installed.code !== 0) throw new Error(`npm install failed:\n${installed.stderr}`);
    bin = join(prefix, "bin", "trade");
    await run("mkdir", ["-p", elsewhere], { cwd: scratch, env: npmEnv() });
  }, 900_000);
  afterAll(async () => {
    await srv?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  test("the package holds the built CLI and its own dependencies, not the repository's", () => {
    const pkgDir = join(scratch, "prefix", "lib", "node_modules", "@pmx", "client");
    expect(readdirSync(pkgDir).sort()).toEqual(expect.arrayContaining(["bin", "dist", "node_modules", "package.json"]));
    expect(readdirSync(join(pkgDir, "node_modules", "@ton"))).toEqual(expect.arrayContaining(["core", "crypto"]));
    expect(readdirSync(join(pkgDir, "dist")).some((f) => f.endsWith(".tsbuildinfo"))).toBe(false);
  });

  test("`trade` runs from another directory: wallet, login (the domain learnt from the server), faucet, balance", async () => {
    const env = { PATH: process.env.PATH ?? "", HOME: scratch, PMX_URL: srv.url };
    const trade = async (...args: string[]) => {
      const r = await run(bin, args, { cwd: elsewhere, env, timeoutMs: 180_000 });
      if (r.code !== 0) throw new Error(`trade ${args.join(" ")} exited ${r.code}\n${r.stdout}\n${r.stderr}`);
      return r.stdout;
    };
    expect(await trade("wallet", "create")).toMatch(/^Created a v4r2 wallet 0:[0-9a-f]{64}\nKey file: .*\.pmx\/wallet\.json/);
    expect(await trade("login")).toMatch(/^Logged in as 0:[0-9a-f]{64} \(user usr_\w+\)/);
    expect(await trade("faucet", "12.5")).toMatch(/\nCredited: available 12\.50 USDT$/);
    expect(await trade("balance")).toMatch(/available\s+12\.50\n\s*locked\s+0\.00\n\s*total\s+12\.50/);
    expect(await trade("status")).toContain(`Exchange ${srv.url} (ok)`);
  });
});
