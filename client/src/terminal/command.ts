/**
 * What a `trade` command is and what it is given: the parsed arguments, the terminal, where the
 * wallet and the session live, and the SDK client (made on first use); plus what every command
 * shares to answer: printing (human or --json), questions, the login check.
 */
import type { PmxClient } from "../client";
import { NotLoggedInError } from "../errors";
import type { ParsedArgs } from "./args";
import type { CliIo } from "./io";
import { flag } from "./options";

export interface Command {
  /** The word after `trade`. */
  name: string;
  /** The command line after `trade`, as help shows it. */
  usage: string;
  /** What it does, shown under the usage. */
  summary: string;
  run(ctx: CommandContext): Promise<void>;
}

export interface CommandContext {
  args: ParsedArgs;
  io: CliIo;
  url: string;
  domain: string | undefined;
  home: string;
  walletPath: string;
  sessionPath: string;
  json: boolean;
  client(): PmxClient;
}

/** Stops a command with exit code 1, printing its message as it is (none when empty). */
export class Abort extends Error {}

/** `trade help <command>` and `trade <command> --help`. */
export function printUsage(io: CliIo, cmd: Command): void {
  io.out(`Usage: trade ${cmd.usage}`);
  io.out(cmd.summary);
}

/** The human lines, or with --json the data as indented JSON. */
export function print(ctx: CommandContext, human: () => string | string[], data: unknown): void {
  if (ctx.json) return ctx.io.out(JSON.stringify(data, null, 2));
  const h = human();
  for (const line of (Array.isArray(h) ? h.join("\n") : h).split("\n")) ctx.io.out(line);
}

/** Asks before a move of money; --yes answers for the user. */
export async function confirm(ctx: CommandContext, question: string): Promise<void> {
  if (flag(ctx, "yes")) return;
  const answer = await ctx.io.prompt(`${question} [y/N] `);
  if (answer === null) throw new Abort("Not confirmed (no input); pass --yes to skip the question.");
  if (!/^y(es)?$/i.test(answer.trim())) throw new Abort("Cancelled; nothing was sent.");
}

export function needLogin(ctx: CommandContext): PmxClient {
  const c = ctx.client();
  if (!c.session) throw new NotLoggedInError("Not logged in: run `trade login`.");
  return c;
}

export async function collectAll<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}
