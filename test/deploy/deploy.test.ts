/**
 * The deployment files against the code, without Docker or a Kubernetes cluster: Dockerfile,
 * .dockerignore, docker-compose.yml and every manifest under k8s/ are parsed and checked against
 * lib/config.ts (roles, the variables it reads, what cluster mode requires), the services that use
 * storage, the gateway's port, liveness and readiness, the single-writer roles, the one entry point of
 * compose, probes that never change state, and each other (HPA targets,
 * PDB selectors, one image). The probe scripts the files embed are also run for real.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { connect, createServer, type AddressInfo, type Server } from "node:net";
import { join, relative } from "node:path";
import { ALL_SERVICES, parseServices, type ServiceName } from "../../lib/config";
import { parseTrustedProxyList, trustedProxies } from "../../lib/proxies";

// js-yaml is already installed (through Jest); it ships no types, hence the narrow shape here.
const jsYaml = require("js-yaml") as {
  safeLoad?: (s: string) => unknown;
  safeLoadAll?: (s: string) => unknown[];
  load: (s: string) => unknown;
  loadAll: (s: string) => unknown[];
};
const loadYaml = (s: string) => (jsYaml.safeLoad ?? jsYaml.load)(s);
const loadYamlAll = (s: string) => (jsYaml.safeLoadAll ?? jsYaml.loadAll)(s).filter((d) => d !== null && d !== undefined);

type Any = any;

const ROOT = join(__dirname, "..", "..");
const read = (p: string) => readFileSync(join(ROOT, p), "utf8");

// ---------------------------------------------------------------------------------------------
// What the code says
// ---------------------------------------------------------------------------------------------

/** Every variable lib/config.ts reads: `env.NAME` and `"NAME"` (passed to int/bps/nano). */
const configSrc = read("lib/config.ts");
const KNOWN_ENV = new Set<string>([
  ...[...configSrc.matchAll(/\benv\.([A-Z][A-Z0-9_]*)\b/g)].map((m) => m[1]),
  ...[...configSrc.matchAll(/"([A-Z][A-Z0-9_]*)"/g)].map((m) => m[1]),
]);
/**
 * Allowlist of variables the deployment sets ahead of the code: the Prometheus reporter (METRICS,
 * METRICS_PORT) is being added to lib/config.ts. A name leaves this list by itself once
 * lib/config.ts reads it; remove the list when it is empty.
 */
const PENDING_ENV = ["METRICS", "METRICS_PORT"].filter((n) => !KNOWN_ENV.has(n));
const isKnownEnv = (name: string) => KNOWN_ENV.has(name) || PENDING_ENV.includes(name);

/** Variables holding secrets: never literal in compose, always from a Secret in k8s. */
const SECRET_ENV = ["JWT_SECRET", "ADMIN_KEY", "MASTER_SECRET", "TELEGRAM_BOT_TOKEN", "TON_API_KEY"];

/** Services that open storage (the db mixin, or the ledger's money store): they need MONGO_URI in a cluster. */
const STORAGE_SERVICES = ALL_SERVICES.filter((s) => {
  const file = join(ROOT, "services", `${s}.service.ts`);
  return existsSync(file) && /from "\.\.\/(mixins\/db\.mixin|ledger\/money-store)"/.test(readFileSync(file, "utf8"));
});
/** One writer at a time (docs/operations.md, "Running as a cluster"): exactly one node runs each of these. */
const SINGLE_WRITERS: ServiceName[] = ["ledger", "catalog", "auth", "chain"];

/** Moleculer's requestTimeout: the drain after SIGTERM may last that long. */
const requestTimeoutSec = (() => {
  const m = read("moleculer.config.ts").match(/requestTimeout:\s*([0-9_]+)/);
  return m ? Number(m[1].replace(/_/g, "")) / 1000 : 0;
})();

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

/** Compose environment as a map (accepts both the map and the KEY=VALUE list forms). */
function composeEnv(svc: Any): Record<string, string> {
  const env = svc.environment ?? {};
  if (Array.isArray(env)) return Object.fromEntries(env.map((e: string) => [e.split("=")[0], e.slice(e.indexOf("=") + 1)]));
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? "" : String(v)]));
}

/** "${NAME:-default}" -> default, "${NAME:?msg}" -> undefined (required from the host), else the literal. */
function composeDefault(v: string): string | undefined {
  const m = v.match(/^\$\{[A-Z0-9_]+(?::?-([^}]*)|:?\?[^}]*)?\}$/);
  if (!m) return v;
  return m[1];
}

const hostOf = (url: string) => new URL(url).hostname;

/** MongoDB shell calls that change state: a probe must never run one (it runs every few seconds). */
const STATE_CHANGING = /\brs\.(initiate|reconfig|add|remove|stepDown)\b|\.(insert|update|delete|drop|createUser|createCollection)\w*\(/;
const portOf = (url: string, dflt: number) => Number(new URL(url).port || dflt);

// ---------------------------------------------------------------------------------------------
// Loaded files
// ---------------------------------------------------------------------------------------------

const compose = loadYaml(read("docker-compose.yml")) as Any;
const composeServices: Record<string, Any> = compose.services;
const appServices = Object.entries(composeServices).filter(([, s]) => composeEnv(s).SERVICES !== undefined);
const rolesOf = (svcEnv: Record<string, string>) => parseServices(svcEnv.SERVICES);

const k8sFiles = walk(join(ROOT, "k8s")).filter((f) => /\.ya?ml$/.test(f));
const k8sDocs: Array<{ file: string; doc: Any }> = k8sFiles.flatMap((file) =>
  loadYamlAll(readFileSync(file, "utf8")).map((doc) => ({ file: relative(ROOT, file), doc: doc as Any })),
);
const manifests = k8sDocs.filter((d) => d.doc.kind !== "Kustomization");
const ofKind = (kind: string) => manifests.filter((d) => d.doc.kind === kind).map((d) => d.doc);
const configMaps = new Map<string, Record<string, string>>(ofKind("ConfigMap").map((c) => [c.metadata.name, c.data ?? {}]));
const secrets = new Map<string, Record<string, string>>(
  ofKind("Secret").map((s) => [s.metadata.name, { ...(s.data ?? {}), ...(s.stringData ?? {}) }]),
);
const WORKLOAD_KINDS = ["Deployment", "StatefulSet", "DaemonSet", "Job"];
const workloads = manifests.filter((d) => WORKLOAD_KINDS.includes(d.doc.kind)).map((d) => d.doc);
const podSpecOf = (w: Any) => (w.kind === "Job" ? w.spec.template.spec : w.spec.template.spec);

/** Every env variable a k8s container gets: env[], plus envFrom ConfigMaps and Secrets. */
function containerEnv(c: Any): Map<string, Any> {
  const out = new Map<string, Any>();
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef)
      for (const [k, v] of Object.entries(configMaps.get(from.configMapRef.name) ?? {}))
        out.set(k, { value: String(v), from: "configMap" });
    if (from.secretRef)
      for (const k of Object.keys(secrets.get(from.secretRef.name) ?? {}))
        out.set(k, { from: "secret", secretKeyRef: { name: from.secretRef.name, key: k } });
  }
  for (const e of c.env ?? [])
    out.set(
      e.name,
      e.valueFrom?.secretKeyRef
        ? { from: "secret", secretKeyRef: e.valueFrom.secretKeyRef }
        : e.valueFrom
          ? { from: "ref" }
          : { value: String(e.value ?? ""), from: "literal" },
    );
  return out;
}
const envValue = (c: Any, name: string): string | undefined => containerEnv(c).get(name)?.value;

/** App Deployments: a container with SERVICES. */
const appDeployments = ofKind("Deployment").filter((d) =>
  d.spec.template.spec.containers.some((c: Any) => containerEnv(c).has("SERVICES")),
);
const appContainer = (d: Any) => d.spec.template.spec.containers.find((c: Any) => containerEnv(c).has("SERVICES"));
const k8sRolesOf = (d: Any) => parseServices(envValue(appContainer(d), "SERVICES"));
const isGateway = (roles: ServiceName[]) => roles.includes("api");

/** The NATS-connection probe script of non-HTTP roles (compose is the reference copy). */
const natsProbeScript: string = composeServices.core.healthcheck.test[3];
const gatewayProbeScript: string = composeServices.gateway1.healthcheck.test[3];

// ---------------------------------------------------------------------------------------------

describe("what the checks are built on", () => {
  test("lib/config.ts variables are found, storage users are derived from the services", () => {
    for (const n of [
      "TRANSPORTER",
      "JWT_SECRET",
      "MONGO_URI",
      "REDIS_URL",
      "PORT",
      "SERVICES",
      "NODE_ID",
      "ADMIN_KEY",
      "APP_DOMAIN",
      "SEED_DEMO",
      "MASTER_SECRET",
      "TELEGRAM_BOT_TOKEN",
      "WITHDRAW_MIN",
    ])
      expect(KNOWN_ENV).toContain(n);
    expect(STORAGE_SERVICES).toEqual(expect.arrayContaining(["ledger", "auth", "catalog"]));
    expect(STORAGE_SERVICES).not.toContain("api");
    expect(requestTimeoutSec).toBeGreaterThan(0);
  });

  test("parseServices refuses unknown roles (so the role checks below mean something)", () => {
    expect(() => parseServices("engine,nope")).toThrow(/unknown service or role/);
    expect(parseServices("engine")).toEqual(["book", "amm", "router"]);
  });
});

describe("Dockerfile", () => {
  const df = read("Dockerfile");
  const instr = df
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"));
  const froms = instr.filter((l) => /^FROM /i.test(l));

  test("multi-stage on node:20-bookworm-slim: install, build, prune dev deps", () => {
    expect(df).toMatch(/ARG NODE_IMAGE=node:20-bookworm-slim/);
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const f of froms) expect(f).toMatch(/^FROM (\$\{NODE_IMAGE\}|node:20-bookworm-slim)(\s|$)/);
    expect(df).toMatch(/npm ci/);
    expect(df).toMatch(/npm run build/);
    expect(df).toMatch(/npm prune --omit=dev/);
    // The runtime stage takes dist/ and pruned node_modules from the build stage.
    expect(df).toMatch(/COPY --from=build .*\/app\/dist/);
    expect(df).toMatch(/COPY --from=build .*\/app\/node_modules/);
  });

  test("runs dist/server.js as a non-root numeric user, SIGTERM, no image-wide HEALTHCHECK", () => {
    const user = instr.filter((l) => /^USER /.test(l)).pop();
    expect(user).toMatch(/^USER [1-9][0-9]*(:[0-9]+)?$/);
    expect(instr).toContain('CMD ["node", "dist/server.js"]');
    expect(instr).toContain("STOPSIGNAL SIGTERM");
    expect(instr.some((l) => /^HEALTHCHECK/.test(l))).toBe(false);
    // `npm run build` writes dist/server.js: tsconfig.build.json compiles server.ts into dist/.
    const pkg = JSON.parse(read("package.json"));
    expect(pkg.scripts.build).toMatch(/tsc -[pb] tsconfig\.build\.json/);
    expect(JSON.parse(read("tsconfig.json")).compilerOptions.outDir).toBe("dist");
    expect(existsSync(join(ROOT, "server.ts"))).toBe(true);
  });

  test("the uid matches the pod securityContext of every app Deployment", () => {
    const uid = Number(
      instr
        .filter((l) => /^USER /.test(l))
        .pop()!
        .slice(5)
        .split(":")[0],
    );
    for (const d of appDeployments) {
      const sc = d.spec.template.spec.securityContext;
      expect(sc.runAsNonRoot).toBe(true);
      expect(sc.runAsUser).toBe(uid);
    }
  });

  test(".dockerignore keeps everything the build compiles and drops local state", () => {
    const patterns = read(".dockerignore")
      .split("\n")
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith("#"));
    const ignored = (name: string) =>
      patterns.some((p) => new RegExp(`^${p.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")}$`).test(name));
    const include: string[] = JSON.parse(read("tsconfig.build.json")).include;
    // npm run build also compiles the SDK (client/) and bundles the web app (web/, which imports the SDK).
    for (const entry of [
      ...include,
      "package.json",
      "package-lock.json",
      "tsconfig.json",
      "tsconfig.build.json",
      "server.ts",
      "moleculer.config.ts",
      "client",
      "web",
    ])
      expect({ entry, ignored: ignored(entry) }).toEqual({ entry, ignored: false });
    for (const entry of ["node_modules", "dist", ".git", "data", ".env"])
      expect({ entry, ignored: ignored(entry) }).toEqual({ entry, ignored: true });
  });
});

describe("package-lock.json (the image and CI install with `npm ci`)", () => {
  const pkg = JSON.parse(read("package.json"));
  const lock = JSON.parse(read("package-lock.json"));
  const packages: Record<string, Any> = lock.packages;

  /** Where Node finds `name` from the package at `from` (its own node_modules, then each parent's). */
  function resolveIn(from: string, name: string): string | undefined {
    let base = from;
    for (;;) {
      const candidate = `${base ? `${base}/` : ""}node_modules/${name}`;
      if (packages[candidate]) return candidate;
      if (!base) return undefined;
      const cut = base.lastIndexOf("/node_modules/");
      base = cut < 0 ? "" : base.slice(0, cut);
    }
  }

  test("the root entry states package.json's dependencies exactly", () => {
    expect(packages[""].dependencies).toEqual(pkg.dependencies);
    expect(packages[""].devDependencies).toEqual(pkg.devDependencies);
  });

  test("every dependency, optional ones for other platforms included, has its entry (npm 11's `npm ci` refuses a lock without them)", () => {
    const missing: string[] = [];
    for (const [path, entry] of Object.entries(packages)) {
      for (const field of ["dependencies", "optionalDependencies"]) {
        for (const name of Object.keys(entry[field] ?? {})) if (!resolveIn(path, name)) missing.push(`${path || "(root)"} -> ${name}`);
      }
    }
    expect(missing).toEqual([]);
  });

  test("every dependency install script is reviewed in allowScripts (npm 11 skips unlisted ones silently)", () => {
    const withScripts = Object.entries(packages)
      .filter(([, e]) => e.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf("node_modules/") + "node_modules/".length));
    const reviewed = new Set(Object.keys(pkg.allowScripts ?? {}).map((k) => k.replace(/(.)@[^@]*$/, "$1")));
    expect(withScripts.filter((n) => !reviewed.has(n))).toEqual([]);
  });
});

describe("docker-compose.yml", () => {
  test("backing services: NATS (no JetStream), MongoDB 8 single-node replica set initiated by a one-off service, Redis", () => {
    const { nats, mongo, redis } = composeServices;
    expect(nats.image).toMatch(/^nats:2(\b|-)/);
    expect(JSON.stringify(nats.command ?? [])).not.toMatch(/"(-js|--jetstream)"/);
    expect(nats.healthcheck).toBeDefined();
    expect(mongo.image).toMatch(/^mongo:8(\.|$)/);
    const replSet = mongo.command[mongo.command.indexOf("--replSet") + 1];
    expect(replSet).toBe("rs0");
    // The healthcheck only reads; the replica set is initiated once by mongo-init, which exits.
    const health = mongo.healthcheck.test.join(" ");
    expect(health).not.toMatch(STATE_CHANGING);
    expect(health).toMatch(/mongosh/);
    expect(health).toMatch(/isWritablePrimary/);
    const init = composeServices["mongo-init"];
    expect(init.image).toBe(mongo.image);
    expect(init.restart).toBe("no");
    const script = init.command.join(" ");
    expect(script).toMatch(/rs\.initiate\(\{ _id: 'rs0', members: \[\{ _id: 0, host: 'mongo:27017' \}\] \}\)/);
    expect(script).toMatch(/try \{ ok = rs\.status\(\)\.ok \}/);
    expect(script).not.toContain("$");
    expect(redis.image).toMatch(/^redis:/);
    expect(redis.healthcheck).toBeDefined();
  });

  test("no healthcheck of any service changes state", () => {
    for (const [name, svc] of Object.entries(composeServices))
      expect({ name, writes: STATE_CHANGING.test(JSON.stringify(svc.healthcheck ?? {})) }).toEqual({ name, writes: false });
  });

  test("every SERVICES value names real services or roles, and every service runs somewhere", () => {
    const all = new Set<string>();
    for (const [, svc] of appServices) for (const s of rolesOf(composeEnv(svc))) all.add(s);
    expect([...all].sort()).toEqual([...ALL_SERVICES].sort());
  });

  test("the expected roles: two gateways, engines, one core (with notifier), exactly one chain", () => {
    const byRoles = (pred: (r: ServiceName[]) => boolean) => appServices.filter(([, s]) => pred(rolesOf(composeEnv(s))));
    expect(byRoles((r) => r.join() === "api").length).toBe(2);
    expect(byRoles((r) => r.join() === "book,amm,router").length).toBeGreaterThanOrEqual(2);
    expect(byRoles((r) => r.join() === "auth,catalog,ledger,notifier").length).toBe(1);
    expect(byRoles((r) => r.includes("chain")).map(([n]) => n)).toEqual(["chain"]);
  });

  test("single writers (ledger, catalog, auth, chain) run in exactly one container", () => {
    for (const w of SINGLE_WRITERS) {
      const holders = appServices.filter(([, s]) => rolesOf(composeEnv(s)).includes(w));
      expect({ w, holders: holders.length }).toEqual({ w, holders: 1 });
      const [, svc] = holders[0];
      expect(svc.deploy?.replicas ?? 1).toBe(1);
      expect(svc.scale ?? 1).toBe(1);
    }
  });

  test("every variable set on an app container is one lib/config.ts reads", () => {
    for (const [name, svc] of appServices) {
      const unknown = Object.keys(composeEnv(svc)).filter((k) => !isKnownEnv(k));
      expect({ name, unknown }).toEqual({ name, unknown: [] });
    }
  });

  test("cluster-mode requirements on every app container; secrets only from the host environment", () => {
    const nodeIds = new Set<string>();
    for (const [name, svc] of appServices) {
      const env = composeEnv(svc);
      const roles = rolesOf(env);
      expect(env.TRANSPORTER).toMatch(/^nats:\/\//);
      // Required from the host (`${JWT_SECRET:?...}`): compose refuses to start without it.
      expect(env.JWT_SECRET).toMatch(/^\$\{JWT_SECRET:\?/);
      if (roles.some((r) => STORAGE_SERVICES.includes(r))) expect({ name, MONGO_URI: !!env.MONGO_URI }).toEqual({ name, MONGO_URI: true });
      if (isGateway(roles)) expect(env.REDIS_URL).toMatch(/^redis:\/\//);
      for (const k of ["ADMIN_KEY", "APP_DOMAIN", "NODE_ID", "SEED_DEMO"])
        expect({ name, k, set: k in env }).toEqual({ name, k, set: true });
      for (const k of SECRET_ENV)
        if (k in env) expect({ name, k, v: env[k] }).toEqual({ name, k, v: expect.stringMatching(new RegExp(`^\\$\\{${k}[:?-]`)) });
      expect(nodeIds.has(env.NODE_ID)).toBe(false);
      nodeIds.add(env.NODE_ID);
      // The demo catalog is loaded by the node running catalog only.
      expect({ name, SEED_DEMO: env.SEED_DEMO }).toEqual({ name, SEED_DEMO: roles.includes("catalog") ? "true" : "false" });
      // lib/config.ts accepts the literal values.
      expect(() => parseServices(env.SERVICES)).not.toThrow();
    }
  });

  test("URLs point at the backing services the file defines", () => {
    for (const [, svc] of appServices) {
      const env = composeEnv(svc);
      expect(composeServices[hostOf(env.TRANSPORTER)].image).toMatch(/^nats:/);
      expect(portOf(env.TRANSPORTER, 4222)).toBe(4222);
      const mongo = new URL(env.MONGO_URI);
      expect(composeServices[mongo.hostname].image).toMatch(/^mongo:/);
      expect(mongo.searchParams.get("replicaSet")).toBe("rs0");
      expect(composeServices[hostOf(env.REDIS_URL)].image).toMatch(/^redis:/);
    }
  });

  test("depends_on healthy backing services, restart policy, graceful stop", () => {
    for (const [name, svc] of appServices) {
      for (const dep of ["nats", "mongo", "redis"])
        expect({ name, dep, cond: svc.depends_on?.[dep]?.condition }).toEqual({ name, dep, cond: "service_healthy" });
      expect({ name, cond: svc.depends_on?.["mongo-init"]?.condition }).toEqual({ name, cond: "service_completed_successfully" });
      expect(svc.restart).toMatch(/^(unless-stopped|always|on-failure)/);
      expect(svc.stop_grace_period).toMatch(/^[0-9]+s$/);
      expect(parseInt(svc.stop_grace_period, 10)).toBeGreaterThan(requestTimeoutSec);
      expect(svc.deploy?.resources?.limits?.memory).toBeDefined();
    }
    for (const b of ["nats", "mongo", "redis"]) expect(composeServices[b].restart).toBe("unless-stopped");
  });

  test("one image for every role", () => {
    const images = new Set(appServices.map(([, s]) => s.image));
    const builds = new Set(appServices.map(([, s]) => JSON.stringify(s.build)));
    expect(images.size).toBe(1);
    expect(builds.size).toBe(1);
    expect(JSON.parse([...builds][0]).context).toBe(".");
  });

  test("gateways are probed for readiness (/health/ready on PORT) and not published; other roles by the NATS probe", () => {
    for (const [name, svc] of appServices) {
      const env = composeEnv(svc);
      const hc = svc.healthcheck.test as string[];
      expect(hc.slice(0, 3)).toEqual(["CMD", "node", "-e"]);
      // No `$` in probe scripts: compose would try to interpolate it.
      expect(hc[3]).not.toContain("$");
      expect({ name, ports: svc.ports }).toEqual({ name, ports: undefined });
      if (isGateway(rolesOf(env))) {
        expect(hc[3]).toBe(gatewayProbeScript);
        expect(hc[3]).toMatch(/process\.env\.PORT/);
        expect(hc[3]).toMatch(/'\/health\/ready'/);
      } else {
        expect(hc[3]).toBe(natsProbeScript);
      }
    }
  });

  test("one entry point: the proxy publishes one port, APP_DOMAIN is that address, every gateway is behind it and trusts it", () => {
    const proxy = composeServices.proxy;
    const published = Object.entries(composeServices).flatMap(([name, s]) => (s.ports ?? []).map((p: string) => ({ name, p: String(p) })));
    expect(published.map((x) => x.name)).toEqual(["proxy"]);
    const [hostPort, containerPort] = published[0].p.split(":");
    const conf = read("compose/nginx.conf");
    expect(proxy.volumes).toContain("./compose/nginx.conf:/etc/nginx/nginx.conf:ro");
    expect(conf).toMatch(new RegExp(`listen ${containerPort};`));
    // ton_proof is checked against APP_DOMAIN: the address users reach, the same on every gateway.
    const domains = new Set(appServices.map(([, svc]) => composeDefault(composeEnv(svc).APP_DOMAIN)));
    expect([...domains]).toEqual([`localhost:${hostPort}`]);
    // The upstream is exactly the gateways, at their PORT; websockets upgrade; the client is forwarded.
    const upstream = [...conf.matchAll(/^\s*server ([\w-]+):(\d+)/gm)].map((m) => `${m[1]}:${m[2]}`).sort();
    const gateways = appServices.filter(([, svc]) => isGateway(rolesOf(composeEnv(svc))));
    expect(upstream).toEqual(gateways.map(([n, svc]) => `${n}:${composeDefault(composeEnv(svc).PORT ?? "3000")}`).sort());
    for (const [n] of gateways) expect(proxy.depends_on?.[n]).toBeDefined();
    expect(conf).toMatch(/ip_hash;/);
    expect(conf).toMatch(/proxy_set_header Upgrade \$http_upgrade;/);
    expect(conf).toMatch(/proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;/);
    expect(conf).toMatch(/proxy_set_header Host \$http_host;/);
    // The gateways believe X-Forwarded-For from the compose network, whose range is fixed.
    const subnet: string = compose.networks.default.ipam.config[0].subnet;
    const inside = subnet.replace(/\.0\/\d+$/, ".10");
    for (const [n, svc] of gateways) {
      const trusted = trustedProxies(parseTrustedProxyList(composeEnv(svc).TRUSTED_PROXIES));
      expect({ n, trusts: trusted.has(inside), outside: trusted.has("203.0.113.1") }).toEqual({ n, trusts: true, outside: false });
    }
    expect(proxy.healthcheck.test.join(" ")).toMatch(/\/health\/ready/);
  });

  test("the chain node keeps DATA_DIR on a volume (sandbox chain state, generated master secret)", () => {
    const chain = composeServices.chain;
    expect(chain.volumes.some((v: string) => v.endsWith(":/data"))).toBe(true);
    expect(read("Dockerfile")).toMatch(/DATA_DIR=\/data/);
  });
});

describe("k8s manifests", () => {
  const kustomization = k8sDocs.find((d) => d.doc.kind === "Kustomization")!.doc;

  test("every document is a well-formed object in the pmx namespace", () => {
    expect(manifests.length).toBeGreaterThan(10);
    for (const { file, doc } of manifests) {
      expect({ file, apiVersion: typeof doc.apiVersion, kind: typeof doc.kind, name: typeof doc.metadata?.name }).toEqual({
        file,
        apiVersion: "string",
        kind: "string",
        name: "string",
      });
      if (doc.kind !== "Namespace") expect({ file, ns: doc.metadata.namespace }).toEqual({ file, ns: "pmx" });
    }
  });

  test("kustomization lists every top-level manifest except the secret example; its image is the app image", () => {
    expect(kustomization.namespace).toBe("pmx");
    const top = readdirSync(join(ROOT, "k8s")).filter((f) => /\.ya?ml$/.test(f) && f !== "kustomization.yaml");
    expect([...kustomization.resources].sort()).toEqual(top.filter((f) => !f.startsWith("secret")).sort());
    for (const r of kustomization.resources) expect(existsSync(join(ROOT, "k8s", r))).toBe(true);
    const images = new Set(appDeployments.map((d) => appContainer(d).image.split(":")[0]));
    expect([...images]).toEqual([kustomization.images[0].name]);
  });

  test("every SERVICES value names real services or roles, and every service runs somewhere", () => {
    const all = new Set<string>();
    for (const d of appDeployments) for (const s of k8sRolesOf(d)) all.add(s);
    expect([...all].sort()).toEqual([...ALL_SERVICES].sort());
    const names = appDeployments.map((d) => d.metadata.name).sort();
    expect(names).toEqual(["pmx-chain", "pmx-core", "pmx-engine", "pmx-gateway"]);
  });

  test("every variable set on an app container is one lib/config.ts reads; references resolve", () => {
    for (const d of appDeployments) {
      const c = appContainer(d);
      const unknown = [...containerEnv(c).keys()].filter((k) => !isKnownEnv(k));
      expect({ name: d.metadata.name, unknown }).toEqual({ name: d.metadata.name, unknown: [] });
      for (const from of c.envFrom ?? []) {
        if (from.configMapRef) expect(configMaps.has(from.configMapRef.name)).toBe(true);
        if (from.secretRef) expect(secrets.has(from.secretRef.name)).toBe(true);
      }
      for (const e of c.env ?? []) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) expect({ name: e.name, key: ref.key in (secrets.get(ref.name) ?? {}) }).toEqual({ name: e.name, key: true });
        if (e.valueFrom?.fieldRef) expect(e.valueFrom.fieldRef.fieldPath).toBe("metadata.name");
      }
    }
  });

  test("cluster-mode requirements on every app container; secrets come from the Secret", () => {
    for (const d of appDeployments) {
      const c = appContainer(d);
      const env = containerEnv(c);
      const roles = k8sRolesOf(d);
      const name = d.metadata.name;
      expect(env.get("TRANSPORTER")?.value).toMatch(/^nats:\/\//);
      const jwt = env.get("JWT_SECRET");
      expect({ name, jwt: jwt?.from, optional: jwt?.secretKeyRef?.optional ?? false }).toEqual({ name, jwt: "secret", optional: false });
      if (roles.some((r) => STORAGE_SERVICES.includes(r)))
        expect({ name, mongo: env.get("MONGO_URI")?.value }).toEqual({ name, mongo: expect.stringMatching(/^mongodb:\/\//) });
      if (isGateway(roles)) expect(env.get("REDIS_URL")?.value).toMatch(/^redis:\/\//);
      expect(env.get("NODE_ID")?.from).toBe("ref");
      for (const k of SECRET_ENV) if (env.has(k)) expect({ name, k, from: env.get(k).from }).toEqual({ name, k, from: "secret" });
      for (const [k, v] of Object.entries(configMaps.get("pmx-config") ?? {}))
        expect({ k, secret: SECRET_ENV.includes(k), v }).toEqual({ k, secret: false, v });
      // A real deployment has no demo catalog: nothing overrides the ConfigMap's "false".
      expect({ name, seed: env.get("SEED_DEMO")?.value }).toEqual({ name, seed: "false" });
      if (roles.includes("chain")) {
        const master = env.get("MASTER_SECRET");
        expect({ name, from: master?.from, optional: master?.secretKeyRef?.optional ?? false }).toEqual({
          name,
          from: "secret",
          optional: false,
        });
      }
    }
    // Placeholders in the example Secret: every secret an app container references.
    const example = secrets.get("pmx-secrets")!;
    for (const k of ["JWT_SECRET", "ADMIN_KEY", "MASTER_SECRET", "TELEGRAM_BOT_TOKEN"]) expect(k in example).toBe(true);
  });

  test("TRUSTED_PROXIES in the ConfigMap: a range the gateways parse, so anonymous clients behind the Ingress get their own rate-limit keys", () => {
    const cfg = configMaps.get("pmx-config")!;
    const entries = parseTrustedProxyList(cfg.TRUSTED_PROXIES);
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.some((e) => e.includes("/"))).toBe(true);
    // Public addresses are never trusted by it.
    expect(trustedProxies(entries).has("203.0.113.1")).toBe(false);
  });

  test("exactly one chain replica; every single writer in one Recreate Deployment of one replica, never autoscaled", () => {
    const hpaTargets = ofKind("HorizontalPodAutoscaler").map((h) => h.spec.scaleTargetRef.name);
    for (const w of SINGLE_WRITERS) {
      const holders = appDeployments.filter((d) => k8sRolesOf(d).includes(w));
      expect({ w, holders: holders.length }).toEqual({ w, holders: 1 });
      const d = holders[0];
      expect({ w, replicas: d.spec.replicas }).toEqual({ w, replicas: 1 });
      expect({ w, strategy: d.spec.strategy.type }).toEqual({ w, strategy: "Recreate" });
      expect(hpaTargets).not.toContain(d.metadata.name);
    }
    const chainReplicas = appDeployments.filter((d) => k8sRolesOf(d).includes("chain")).reduce((n, d) => n + d.spec.replicas, 0);
    expect(chainReplicas).toBe(1);
    expect(ofKind("StatefulSet").filter((s) => s.spec.template.spec.containers.some((c: Any) => containerEnv(c).has("SERVICES")))).toEqual(
      [],
    );
  });

  test("gateway: container port = PORT, liveness /health and readiness /health/ready at that port, Service and Ingress reach it", () => {
    const gws = appDeployments.filter((d) => isGateway(k8sRolesOf(d)));
    expect(gws.length).toBe(1);
    const gw = gws[0];
    const c = appContainer(gw);
    const port = Number(envValue(c, "PORT") ?? 3000);
    const http = c.ports.find((p: Any) => p.name === "http");
    expect(http.containerPort).toBe(port);
    const resolve = (p: string | number) => (typeof p === "number" ? p : c.ports.find((q: Any) => q.name === p)?.containerPort);
    // Liveness and startup on the cheap /health; readiness on /health/ready (services reachable).
    for (const [probe, path] of [
      ["startupProbe", "/health"],
      ["livenessProbe", "/health"],
      ["readinessProbe", "/health/ready"],
    ]) {
      expect({ probe, path: c[probe]?.httpGet?.path }).toEqual({ probe, path });
      expect({ probe, port: resolve(c[probe].httpGet.port) }).toEqual({ probe, port });
    }
    const svc = ofKind("Service").find((s) => s.metadata.name === gw.metadata.name);
    expect(svc.spec.type ?? "ClusterIP").toBe("ClusterIP");
    expect(Object.entries(svc.spec.selector).every(([k, v]) => gw.spec.template.metadata.labels[k] === v)).toBe(true);
    for (const p of svc.spec.ports) expect(resolve(p.targetPort)).toBe(port);
    const ing = ofKind("Ingress").find((i) => i.metadata.name === gw.metadata.name);
    const rule = ing.spec.rules[0];
    expect(rule.host).toBe(configMaps.get("pmx-config")!.APP_DOMAIN);
    expect(rule.http.paths.map((p: Any) => p.path).sort()).toEqual(["/api", "/ws"]);
    for (const p of rule.http.paths) {
      expect(p.backend.service.name).toBe(svc.metadata.name);
      expect(svc.spec.ports.map((q: Any) => q.name)).toContain(p.backend.service.port.name);
    }
    expect(ing.metadata.annotations["nginx.ingress.kubernetes.io/affinity"]).toBe("cookie");
  });

  test("non-HTTP roles: no Service, exec probes that run the same NATS-connection check as compose", () => {
    for (const d of appDeployments.filter((x) => !isGateway(k8sRolesOf(x)))) {
      const c = appContainer(d);
      expect(c.ports.map((p: Any) => p.name)).toEqual(["metrics"]);
      for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"]) {
        const cmd = c[probe]?.exec?.command;
        expect({ d: d.metadata.name, probe, cmd }).toEqual({ d: d.metadata.name, probe, cmd: ["node", "-e", natsProbeScript] });
      }
      // Liveness gives NATS a while before restarting the node.
      expect(c.livenessProbe.periodSeconds * c.livenessProbe.failureThreshold).toBeGreaterThanOrEqual(60);
    }
    const serviced = ofKind("Service")
      .filter((s) => s.spec.selector?.["app.kubernetes.io/name"] === "pmx")
      .map((s) => s.spec.selector["app.kubernetes.io/component"]);
    expect(serviced).toEqual(["gateway"]);
  });

  test("graceful stop: preStop sleep, then a grace period that covers the drain", () => {
    for (const d of appDeployments) {
      const spec = d.spec.template.spec;
      const pre = appContainer(d).lifecycle?.preStop?.exec?.command;
      expect(pre?.[0]).toBe("sleep");
      const sleep = Number(pre[1]);
      expect(sleep).toBeGreaterThan(0);
      expect({ name: d.metadata.name, ok: spec.terminationGracePeriodSeconds >= sleep + requestTimeoutSec + 5 }).toEqual({
        name: d.metadata.name,
        ok: true,
      });
    }
  });

  test("HPAs (autoscaling/v2, CPU) target existing Deployments: gateway and engine", () => {
    const hpas = ofKind("HorizontalPodAutoscaler");
    const deployments = new Map(ofKind("Deployment").map((d) => [d.metadata.name, d]));
    for (const h of hpas) {
      expect(manifests.find((m) => m.doc === h)!.doc.apiVersion).toBe("autoscaling/v2");
      expect(h.spec.scaleTargetRef.kind).toBe("Deployment");
      expect(h.spec.scaleTargetRef.apiVersion).toBe("apps/v1");
      const target = deployments.get(h.spec.scaleTargetRef.name);
      expect(target).toBeDefined();
      expect(h.spec.minReplicas).toBeGreaterThanOrEqual(2);
      expect(h.spec.maxReplicas).toBeGreaterThan(h.spec.minReplicas);
      expect(h.spec.metrics.some((m: Any) => m.type === "Resource" && m.resource.name === "cpu")).toBe(true);
      // CPU utilisation needs CPU requests on the target.
      for (const c of target.spec.template.spec.containers) expect(c.resources.requests.cpu).toBeDefined();
    }
    expect(hpas.map((h) => h.spec.scaleTargetRef.name).sort()).toEqual(["pmx-engine", "pmx-gateway"]);
  });

  test("PDB selectors match the labels of exactly one Deployment: gateway and engine", () => {
    const pdbs = ofKind("PodDisruptionBudget");
    for (const p of pdbs) {
      expect(manifests.find((m) => m.doc === p)!.doc.apiVersion).toBe("policy/v1");
      const sel = Object.entries(p.spec.selector.matchLabels as Record<string, string>);
      const matched = ofKind("Deployment").filter((d) => sel.every(([k, v]) => d.spec.template.metadata.labels?.[k] === v));
      expect({ pdb: p.metadata.name, matched: matched.map((d) => d.metadata.name) }).toEqual({
        pdb: p.metadata.name,
        matched: [p.metadata.name],
      });
      expect(p.spec.minAvailable !== undefined || p.spec.maxUnavailable !== undefined).toBe(true);
    }
    expect(pdbs.map((p) => p.metadata.name).sort()).toEqual(["pmx-engine", "pmx-gateway"]);
  });

  test("workload selectors match their pod template labels", () => {
    for (const w of workloads.filter((x) => x.kind !== "Job")) {
      const labels = w.spec.template.metadata.labels;
      for (const [k, v] of Object.entries(w.spec.selector.matchLabels as Record<string, string>))
        expect({ w: w.metadata.name, k, v: labels[k] }).toEqual({ w: w.metadata.name, k, v });
    }
  });

  test("one image for every app role", () => {
    expect(new Set(appDeployments.map((d) => appContainer(d).image)).size).toBe(1);
  });

  test("no probe of any workload changes state", () => {
    for (const w of workloads) {
      for (const c of podSpecOf(w).containers) {
        for (const probe of ["startupProbe", "readinessProbe", "livenessProbe"])
          expect({ w: w.metadata.name, probe, writes: STATE_CHANGING.test(JSON.stringify(c[probe] ?? {})) }).toEqual({
            w: w.metadata.name,
            probe,
            writes: false,
          });
      }
    }
  });

  test("resource requests and limits on every container of every workload", () => {
    for (const w of workloads) {
      const spec = podSpecOf(w);
      for (const c of [...(spec.initContainers ?? []), ...spec.containers]) {
        const r = c.resources ?? {};
        expect({
          w: w.metadata.name,
          c: c.name,
          r: { rc: !!r.requests?.cpu, rm: !!r.requests?.memory, lc: !!r.limits?.cpu, lm: !!r.limits?.memory },
        }).toEqual({ w: w.metadata.name, c: c.name, r: { rc: true, rm: true, lc: true, lm: true } });
      }
    }
  });

  test("Prometheus scrape annotations match the metrics port on every app pod", () => {
    const metricsPort = configMaps.get("pmx-config")!.METRICS_PORT;
    expect(metricsPort).toBe("3030");
    expect(configMaps.get("pmx-config")!.METRICS).toBe("true");
    for (const d of appDeployments) {
      const a = d.spec.template.metadata.annotations;
      expect({ name: d.metadata.name, a }).toEqual({
        name: d.metadata.name,
        a: { "prometheus.io/scrape": "true", "prometheus.io/port": metricsPort, "prometheus.io/path": "/metrics" },
      });
      expect(appContainer(d).ports.find((p: Any) => p.name === "metrics")?.containerPort).toBe(Number(metricsPort));
    }
  });

  test("the chain Deployment keeps DATA_DIR on its PersistentVolumeClaim", () => {
    const chain = appDeployments.find((d) => k8sRolesOf(d).includes("chain"))!;
    const dataDir = envValue(appContainer(chain), "DATA_DIR");
    const mount = appContainer(chain).volumeMounts.find((m: Any) => m.mountPath === dataDir);
    const vol = chain.spec.template.spec.volumes.find((v: Any) => v.name === mount.name);
    expect(ofKind("PersistentVolumeClaim").map((p) => p.metadata.name)).toContain(vol.persistentVolumeClaim.claimName);
  });

  test("ConfigMap URLs match the dev backing services", () => {
    const cfg = configMaps.get("pmx-config")!;
    const svcNames = new Set(ofKind("Service").map((s) => `${s.metadata.name}.${s.metadata.namespace}.svc.cluster.local`));
    expect(svcNames).toContain(hostOf(cfg.TRANSPORTER));
    expect(svcNames).toContain(hostOf(cfg.REDIS_URL));
    const mongoHost = hostOf(cfg.MONGO_URI); // mongo-0.mongo.pmx.svc.cluster.local: pod of the StatefulSet
    expect(svcNames).toContain(mongoHost.split(".").slice(1).join("."));
    const mongoSts = ofKind("StatefulSet").find((s) => s.metadata.name === "mongo");
    const image = mongoSts.spec.template.spec.containers[0].image;
    expect(image).toMatch(/^mongo:8(\.|$)/);
    // rs0 is initiated by a one-off Job with the same image and the ConfigMap's host, not by a probe.
    const job = ofKind("Job").find((j) => j.metadata.name === "mongo-rs-init");
    const init = job.spec.template.spec.containers[0];
    expect(init.image).toBe(image);
    expect(init.command.join(" ")).toContain(`rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: '${mongoHost}:27017' }] })`);
    expect(init.command).toContain(`${mongoHost}:27017`);
    expect(JSON.stringify(mongoSts)).not.toContain("rs.initiate");
    expect(new URL(cfg.MONGO_URI).searchParams.get("replicaSet")).toBe("rs0");
  });
});

// ---------------------------------------------------------------------------------------------
// The probe scripts, run for real
// ---------------------------------------------------------------------------------------------

/** Exit code of `node -e script` (async: the servers these probes talk to live in this process). */
const runNode = (script: string, env: Record<string, string>) =>
  new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, ["-e", script], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: "ignore",
      timeout: 10_000,
    });
    child.on("exit", (code) => resolve(code));
  });
const listen = (s: Server) => new Promise<number>((r) => s.listen(0, "127.0.0.1", () => r((s.address() as AddressInfo).port)));
const close = (s: { close(cb: () => void): void }) => new Promise<void>((r) => s.close(() => r()));
const hasProcNet = existsSync("/proc/net/tcp");

describe("probe scripts", () => {
  (hasProcNet ? test : test.skip)("NATS probe: healthy only with an ESTABLISHED connection to the TRANSPORTER port", async () => {
    const server = createServer(() => undefined);
    const port = await listen(server);
    const env = { TRANSPORTER: `nats://127.0.0.1:${port}` };
    expect(await runNode(natsProbeScript, env)).toBe(1); // listening is not connected
    const sock = connect(port, "127.0.0.1");
    await new Promise((r) => sock.once("connect", r));
    expect(await runNode(natsProbeScript, env)).toBe(0);
    expect(await runNode(natsProbeScript, { TRANSPORTER: `nats://127.0.0.1:${port},nats://127.0.0.2:1` })).toBe(0); // server lists
    sock.destroy();
    await close(server);
    await new Promise((r) => setTimeout(r, 100));
    expect(await runNode(natsProbeScript, env)).toBe(1);
  });

  test("gateway probe: GET /health/ready on PORT, healthy on 2xx only", async () => {
    let status = 200;
    const paths: string[] = [];
    const server = createHttpServer((req, res) => {
      paths.push(req.url ?? "");
      res.writeHead(status).end("{}");
    });
    const port = await listen(server as unknown as Server);
    expect(await runNode(gatewayProbeScript, { PORT: String(port) })).toBe(0);
    status = 503;
    expect(await runNode(gatewayProbeScript, { PORT: String(port) })).toBe(1);
    await close(server);
    expect(await runNode(gatewayProbeScript, { PORT: String(port) })).toBe(1);
    expect(paths).toEqual(["/health/ready", "/health/ready"]);
  });
});
