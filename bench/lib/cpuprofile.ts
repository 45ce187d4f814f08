/** Top self-time functions of a V8 .cpuprofile (what `node --cpu-prof` or the inspector writes). */
import { readFileSync } from "node:fs";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

export function topSelf(file: string, n = 25): string[] {
  const p = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const self = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const c = byId.get(p.samples[i])?.callFrame;
    if (!c) continue;
    const where = c.url
      ? c.url
          .replace(/^file:\/\//, "")
          .replace(/^.*\/node_modules\//, "~/")
          .replace(/^.*\/dist-bench\//, "")
      : "";
    const key = `${c.functionName || "(anonymous)"} ${where}${where ? `:${c.lineNumber + 1}` : ""}`;
    const dt = p.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    total += dt;
  }
  return [...self]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / 1000).toFixed(0).padStart(6)} ms  ${k}`);
}

/** Self time grouped by package (node_modules/<pkg>) or by our top-level folder. */
export function byPackage(file: string, n = 15): string[] {
  const p = JSON.parse(readFileSync(file, "utf8")) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((x) => [x.id, x]));
  const agg = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < p.samples.length; i++) {
    const c = byId.get(p.samples[i])?.callFrame;
    if (!c) continue;
    let k: string;
    const nm = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(c.url);
    if (nm) k = nm[1];
    else if (c.url.startsWith("node:")) k = "node core";
    else if (!c.url) k = c.functionName.startsWith("(") ? c.functionName : "native";
    else {
      const ours = /dist-bench\/([^/]+)/.exec(c.url);
      k = ours ? `ours: ${ours[1]}` : c.url;
    }
    const dt = p.timeDeltas[i] ?? 0;
    agg.set(k, (agg.get(k) ?? 0) + dt);
    total += dt;
  }
  return [...agg]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${k}`);
}

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

/** Top allocating functions of a sampled heap profile (HeapProfiler.stopSampling), bytes per `per` (orders). */
export function topAllocations(file: string, per: number, n = 30): string[] {
  const p = JSON.parse(readFileSync(file, "utf8")) as { head: HeapNode };
  const self = new Map<string, number>();
  let total = 0;
  const walk = (x: HeapNode) => {
    const c = x.callFrame;
    const where = c.url
      ? c.url
          .replace(/^file:\/\//, "")
          .replace(/^.*\/node_modules\//, "~/")
          .replace(/^.*\/dist-bench\//, "")
      : "";
    const key = `${c.functionName || "(anonymous)"} ${where}${where ? `:${c.lineNumber + 1}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + x.selfSize);
    total += x.selfSize;
    for (const k of x.children) walk(k);
  };
  walk(p.head);
  return [
    `sampled total ${(total / per / 1024).toFixed(1)} KiB per order`,
    ...[...self]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / per).toFixed(0).padStart(7)} B  ${k}`),
  ];
}
