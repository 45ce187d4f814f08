/**
 * Free-text matching and ranking of events, framework-free.
 *
 * Matching: the query is split into words (letters and digits); an event matches when EVERY word
 * occurs, case-insensitively, inside some word of its title, subtitle, tags or market titles.
 * The store pre-filters with the same rule on a denormalised `searchText`; ranking happens here.
 *
 * Ranking, per query word, the best hit over the event's fields, lexicographic:
 *   field:  title > tag > market title > subtitle
 *   match:  exact word > word prefix > substring
 * summed over the query words, plus a bonus when the whole phrase appears in the title.
 * Ties keep the list order (beginAt, then id).
 */

export interface Searchable {
  title: string;
  subtitle?: string;
  tags: string[];
  marketTitles: string[];
}

export const FIELD_WEIGHT = { title: 4, tags: 3, markets: 2, subtitle: 1 } as const;
export const MATCH_WEIGHT = { exact: 3, prefix: 2, substring: 1 } as const;
const PHRASE_BONUS = 100;

/** Lower-case words of letters and digits ("E-sports: BTC/USD" -> ["e", "sports", "btc", "usd"]). */
export function words(text: string): string[] {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/** The query's distinct words, in order; empty when it holds no letters or digits. */
export function queryTokens(q: string): string[] {
  return [...new Set(words(q))];
}

/** What the store matches against: every searchable word, space separated. */
export function searchTextOf(e: Searchable): string {
  return [e.title, e.subtitle ?? "", ...e.tags, ...e.marketTitles].map((s) => words(s).join(" ")).join(" ");
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Mongo-style filter (understood by NeDB and MongoDB) requiring every token in `searchText`.
 * Tokens hold no spaces, so a hit always lies inside one word, exactly as `scoreEvent` sees it.
 */
export function tokensFilter(tokens: string[]): Record<string, unknown> {
  return { $and: tokens.map((t) => ({ searchText: { $regex: new RegExp(escapeRegex(t)) } })) };
}

function matchQuality(token: string, fieldWords: string[]): number {
  let best = 0;
  for (const w of fieldWords) {
    if (w === token) return MATCH_WEIGHT.exact;
    if (w.startsWith(token)) best = Math.max(best, MATCH_WEIGHT.prefix);
    else if (w.includes(token)) best = Math.max(best, MATCH_WEIGHT.substring);
  }
  return best;
}

/** Relevance of an event for the query tokens; 0 when some token is missing (no match). */
export function scoreEvent(e: Searchable, tokens: string[]): number {
  if (tokens.length === 0) return 0;
  const fields: Array<[number, string[]]> = [
    [FIELD_WEIGHT.title, words(e.title)],
    [FIELD_WEIGHT.tags, e.tags.flatMap(words)],
    [FIELD_WEIGHT.markets, e.marketTitles.flatMap(words)],
    [FIELD_WEIGHT.subtitle, words(e.subtitle ?? "")],
  ];
  let score = 0;
  for (const token of tokens) {
    let best = 0;
    for (const [weight, fieldWords] of fields) {
      const q = matchQuality(token, fieldWords);
      // Field first, then match kind: 10 * field + match keeps the order lexicographic.
      if (q) best = Math.max(best, weight * 10 + q);
    }
    if (!best) return 0;
    score += best;
  }
  if (tokens.length > 1 && ` ${words(e.title).join(" ")} `.includes(` ${tokens.join(" ")}`)) score += PHRASE_BONUS;
  return score;
}

/** Matching items, best first; stable for equal scores so the caller's order breaks ties. */
export function rankBySearch<T extends Searchable>(items: T[], tokens: string[]): T[] {
  return items
    .map((item, i) => ({ item, i, score: scoreEvent(item, tokens) }))
    .filter((x) => x.score > 0)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .map((x) => x.item);
}
