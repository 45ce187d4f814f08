/**
 * `trade`: a command-line trader built on the SDK. Keeps a wallet key file and the session under
 * ~/.pmx (PMX_HOME), talks to PMX_URL (default http://localhost:3000). Prints amounts in shares
 * and USDT, asks before market trades and withdrawals (skip with --yes), and never prints a
 * secret: not the key, not the mnemonic, not the token, not the operator key.
 *
 * This file is the entry: it parses the command line, finds the command (commands/, one file
 * each) and turns what went wrong into a message and an exit code.
 */
import { ApiError, NetworkError, NotLoggedInError, RateLimitError } from "./errors";
import { COMMANDS } from "./commands/registry";
import { parseArgs, UsageError } from "./terminal/args";
import { Abort, printUsage } from "./terminal/command";
import { createContext, DEFAULT_URL } from "./terminal/context";
import { processIo, type CliIo } from "./terminal/io";
import { StoreError } from "./terminal/store";

export { DEFAULT_URL, processIo, type CliIo };

const EXIT_OK = 0;
const EXIT_ERROR = 1;
const EXIT_USAGE = 2;

/** Options that never take a value, so `--yes buy` keeps "buy" a positional. */
const BOOLEAN_FLAGS = new Set([
  "yes",
  "json",
  "help",
  "force",
  "fok",
  "fak",
  "post-only",
  "amm",
  "all",
  "closed",
  "unread",
  "wait",
  "once",
]);

/** Runs one command; resolves with the exit code (0 ok, 1 failed, 2 usage). */
export async function main(argv: string[], io: CliIo = processIo()): Promise<number> {
  let url = DEFAULT_URL;
  try {
    const args = parseArgs(argv, BOOLEAN_FLAGS);
    const name = args.positionals.shift() ?? "help";
    const cmd = COMMANDS.get(name);
    if (!cmd) throw new UsageError(`unknown command "${name}"; see \`trade help\``);
    if (args.options.get("help") === "true") {
      printUsage(io, cmd);
      return EXIT_OK;
    }
    const ctx = createContext(args, io);
    url = ctx.url;
    await cmd.run(ctx);
    return EXIT_OK;
  } catch (err) {
    if (err instanceof UsageError) {
      io.err(`Usage error: ${err.message}`);
      return EXIT_USAGE;
    }
    if (err instanceof Abort) {
      if (err.message) io.err(err.message);
      return EXIT_ERROR;
    }
    io.err(describeError(err, url));
    return EXIT_ERROR;
  }
}

function describeError(err: unknown, url: string): string {
  if (err instanceof RateLimitError)
    return `Rate limited: ${err.message}; try again in ${err.retryAfter} s, or pass --wait to wait it out${err.requestId ? ` (request ${err.requestId})` : ""}`;
  if (err instanceof ApiError) return `Error ${err.status} ${err.describe()}`;
  if (err instanceof NetworkError) return `Cannot reach the exchange at ${url}: ${(err.cause as Error)?.message ?? err.message}`;
  if (err instanceof NotLoggedInError || err instanceof StoreError) return err.message;
  if (err instanceof RangeError || err instanceof TypeError) return `Invalid input: ${err.message}`;
  return `Error: ${(err as Error)?.message ?? String(err)}`;
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
