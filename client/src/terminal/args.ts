/** A small argv parser: positionals, `--name value`, `--name=value`, boolean flags, repeatable options. */

export interface ParsedArgs {
  positionals: string[];
  /** Last value of each option (booleans as "true"). */
  options: Map<string, string>;
  /** Every value of each option, in order (for repeatable ones such as --market). */
  all: Map<string, string[]>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

const SHORT: Record<string, string> = { y: "yes", h: "help", j: "json" };

/** `booleans` never take a value, so `--yes buy` keeps "buy" a positional. */
export function parseArgs(argv: string[], booleans: ReadonlySet<string>): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string>();
  const all = new Map<string, string[]>();
  const set = (k: string, v: string) => {
    options.set(k, v);
    all.set(k, [...(all.get(k) ?? []), v]);
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (a.startsWith("--")) {
      const eq = a.indexOf("=");
      const name = (eq >= 0 ? a.slice(2, eq) : a.slice(2)).toLowerCase();
      if (!name) throw new UsageError(`bad option "${a}"`);
      if (eq >= 0) set(name, a.slice(eq + 1));
      else if (name.startsWith("no-")) set(name.slice(3), "false");
      else if (booleans.has(name)) set(name, "true");
      else {
        const v = argv[i + 1];
        if (v === undefined || (v.startsWith("--") && v.length > 2)) throw new UsageError(`option --${name} needs a value`);
        set(name, v);
        i++;
      }
    } else if (/^-[a-zA-Z]$/.test(a)) {
      const name = SHORT[a.slice(1)];
      if (!name) throw new UsageError(`unknown option "${a}"`);
      set(name, "true");
    } else positionals.push(a);
  }
  return { positionals, options, all };
}
