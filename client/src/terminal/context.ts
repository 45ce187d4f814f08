/**
 * A command's context from the parsed arguments and the environment: where the wallet and the
 * session live (--home/PMX_HOME, --wallet/PMX_WALLET), the exchange (--url/PMX_URL), and the SDK
 * client with the saved session, made on first use so offline commands never touch it.
 */
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { PmxClient } from "../client";
import { ApiError, RateLimitError } from "../errors";
import type { ParsedArgs } from "./args";
import type { CommandContext } from "./command";
import type { CliIo } from "./io";
import { loadSession, saveSession } from "./store";

export const DEFAULT_URL = "http://localhost:3000";

export function createContext(args: ParsedArgs, io: CliIo): CommandContext {
  const env = io.env;
  const url = args.options.get("url") ?? env.PMX_URL ?? DEFAULT_URL;
  const home = resolve(args.options.get("home") ?? env.PMX_HOME ?? join(env.HOME ?? homedir(), ".pmx"));
  const sessionPath = join(home, "sessions.json");
  const domain = args.options.get("domain") ?? env.PMX_DOMAIN;
  let client: PmxClient | undefined;
  return {
    args,
    io,
    url,
    domain,
    home,
    walletPath: resolve(args.options.get("wallet") ?? env.PMX_WALLET ?? join(home, "wallet.json")),
    sessionPath,
    json: args.options.get("json") === "true",
    client() {
      client ??= openClient({ url, domain, sessionPath, io, wait: args.options.get("wait") === "true" });
      return client;
    },
  };
}

/** The SDK client with the session saved for this exchange, saving every change of it. */
function openClient(o: { url: string; domain: string | undefined; sessionPath: string; io: CliIo; wait: boolean }): PmxClient {
  const probe = new PmxClient({ baseUrl: o.url });
  return new PmxClient({
    baseUrl: o.url,
    domain: o.domain,
    session: loadSession(o.sessionPath, probe.origin),
    adminKey: o.io.env.ADMIN_KEY ?? o.io.env.PMX_ADMIN_KEY,
    // Only when asked: a script may rather fail fast than sleep.
    retry: o.wait
      ? {
          maxRetries: 5,
          maxWaitSeconds: 120,
          onWait: (s, e) =>
            o.io.err(
              e instanceof RateLimitError
                ? `Rate limited; waiting ${s} s as the exchange asks (--wait)...`
                : `${e instanceof ApiError ? e.code : "No answer"}; sending again with the same idempotency key in ${s} s (--wait)...`,
            ),
        }
      : false,
    fetch: o.io.fetch,
    onSessionChange: (s) => saveSession(o.sessionPath, probe.origin, s),
  });
}
