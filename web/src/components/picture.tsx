/**
 * A market's or event's picture, drawn here from its title (no image host, no CDN): a colour
 * pair chosen by a hash of the title, its initials, and a soft shape. Decorative: the title is
 * always printed beside it.
 */
const PALETTE: Array<[string, string]> = [
  ["#1d4ed8", "#93c5fd"],
  ["#047857", "#6ee7b7"],
  ["#b45309", "#fcd34d"],
  ["#7c3aed", "#c4b5fd"],
  ["#be123c", "#fda4af"],
  ["#0e7490", "#67e8f9"],
  ["#4d7c0f", "#bef264"],
  ["#334155", "#cbd5e1"],
];

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** Up to two initials from the title's significant words ("Will BTC close above…" -> "BC"). */
export function initials(title: string): string {
  const skip = new Set([
    "will",
    "the",
    "a",
    "an",
    "of",
    "in",
    "on",
    "at",
    "to",
    "be",
    "by",
    "for",
    "and",
    "or",
    "is",
    "who",
    "what",
    "which",
  ]);
  const words = title
    .replace(/[^\p{L}\p{N}\s]/gu, " ")
    .split(/\s+/)
    .filter((w) => w && !skip.has(w.toLowerCase()));
  return (
    words
      .slice(0, 2)
      .map((w) => w[0].toUpperCase())
      .join("") || "?"
  ).slice(0, 2);
}

export function EventImage({ title, size = 48 }: { title: string; size?: number }) {
  const h = hash(title);
  const [dark, light] = PALETTE[h % PALETTE.length];
  const cx = 20 + ((h >>> 8) % 60);
  const cy = 20 + ((h >>> 16) % 60);
  return (
    <svg class="event-image" width={size} height={size} viewBox="0 0 100 100" aria-hidden="true" focusable="false">
      <rect width="100" height="100" rx="18" fill={dark} />
      <circle cx={cx} cy={cy} r="42" fill={light} opacity="0.35" />
      <text x="50" y="50" dy="0.35em" text-anchor="middle" font-size="40" font-weight="700" fill="#fff" font-family="system-ui, sans-serif">
        {initials(title)}
      </text>
    </svg>
  );
}
