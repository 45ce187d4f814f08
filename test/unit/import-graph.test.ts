/**
 * No import cycle anywhere in the tree (ARCHITECTURE.md, Layers): the graph as TypeScript resolves
 * it, type-only imports, re-exports and `import("x")` types included. A cycle is reported as the
 * circle of files it runs through.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { cyclePath, cycles, importGraph } from "../support/import-graph";

describe("the import graph", () => {
  const graph = importGraph();

  test("is read from the whole tree: server, scripts, tests, benches, SDK and web app", () => {
    expect(graph.size).toBeGreaterThan(300);
    // Edges of each kind: a type-only import, a re-export, an import through the SDK's path alias.
    expect(graph.get("contract/actions.ts")).toContain("models/trading.ts");
    expect(graph.get("contract/index.ts")).toContain("contract/actions.ts");
    expect(graph.get("web/src/api.ts")).toContain("client/src/client.ts");
  });

  test("holds no source deeper than the lint's layer rule reaches (eslint.config.mjs MAX_DEPTH, 5 folders)", () => {
    const deeper = [...graph.keys()].filter((f) => f.split("/").length - 1 > 5);
    expect(deeper).toEqual([]);
  });

  test("has no cycle", () => {
    const found = cycles(graph).map((c) => `${c.length} files: ${cyclePath(graph, c).join(" -> ")}`);
    expect(found).toEqual([]);
  });
});

describe("the cycle finder", () => {
  let root: string;
  const write = (files: Record<string, string>) => {
    for (const [name, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, name)), { recursive: true });
      writeFileSync(join(root, name), text);
    }
  };
  beforeEach(() => (root = mkdtempSync(join(tmpdir(), "import-graph-"))));
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  test("finds a circle made of a type import, a re-export and an import() type, and shows its path", () => {
    write({
      "core/a.ts": 'import type { B } from "../contract";\nexport interface A { b: B }\n',
      "contract/index.ts": 'export * from "./b";\n',
      "contract/b.ts": 'export interface B { a: import("../core/a").A }\n',
      "services/s.ts": 'import type { A } from "../core/a";\nexport const s = (a: A) => a;\n',
    });
    const g = importGraph(root);
    const found = cycles(g);
    expect(found).toEqual([["contract/b.ts", "contract/index.ts", "core/a.ts"]]);
    expect(cyclePath(g, found[0])).toEqual(["contract/b.ts", "core/a.ts", "contract/index.ts", "contract/b.ts"]);
  });

  test("a chain that goes downwards only has none; a self-import is one", () => {
    write({
      "lib/x.ts": "export const x = 1;\n",
      "models/y.ts": 'import { x } from "../lib/x";\nexport const y = x;\n',
      "services/z.ts": 'import { y } from "../models/y";\nimport "node:fs";\nexport const z = y;\n',
    });
    expect(cycles(importGraph(root))).toEqual([]);
    write({ "lib/x.ts": 'export * from "./x";\nexport const x = 1;\n' });
    expect(cycles(importGraph(root))).toEqual([["lib/x.ts"]]);
  });
});
