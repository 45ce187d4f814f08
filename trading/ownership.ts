/**
 * Which engine node owns a market: rendezvous (highest-random-weight) hashing of the market id
 * over the live engine nodes. Every node that sees the same set of engines picks the same owner,
 * from the market id alone, and a node joining or leaving moves only the markets it takes or held
 * (Moleculer's Shard strategy reshuffles most keys; see ../shared/STYLE.md).
 */
export function ownerOf(marketId: string, nodes: readonly string[]): string | null {
  let best: string | null = null;
  let bestWeight = -1;
  for (const node of nodes) {
    const w = weight(marketId, node);
    if (w > bestWeight || (w === bestWeight && best !== null && node < best)) {
      best = node;
      bestWeight = w;
    }
  }
  return best;
}

/** 32-bit FNV-1a over `marketId|node` with a murmur3 finaliser: cheap, well spread, stable across processes. */
function weight(marketId: string, node: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < marketId.length; i++) h = Math.imul(h ^ marketId.charCodeAt(i), 0x01000193);
  h = Math.imul(h ^ 0x7c, 0x01000193);
  for (let i = 0; i < node.length; i++) h = Math.imul(h ^ node.charCodeAt(i), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
