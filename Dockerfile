# syntax=docker/dockerfile:1
#
# One image for every role of the exchange: the node's role is chosen at run time with SERVICES
# (gateway | engine | auth,catalog,ledger,notifier | chain | ...; see lib/config.ts), never at
# build time. docker-compose.yml and k8s/ run this same image in each role.
#
# No HEALTHCHECK here on purpose: only gateway roles serve HTTP (GET /health on PORT); the other
# roles have no port, so the probes are declared per role in docker-compose.yml and k8s/.

ARG NODE_IMAGE=node:20-bookworm-slim

# --- build: full install (TypeScript, SWC), compile to dist/, then drop dev dependencies --------
FROM ${NODE_IMAGE} AS build
WORKDIR /app
ENV npm_config_update_notifier=false npm_config_fund=false npm_config_audit=false
COPY package.json package-lock.json ./
RUN npm ci
# Sources: everything .dockerignore lets through (tsconfig.build.json decides what compiles).
COPY . .
RUN npm run build \
 && npm prune --omit=dev \
 && npm cache clean --force

# --- runtime: compiled code + production dependencies, non-root ----------------------------------
FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    DATA_DIR=/data \
    PORT=3000
WORKDIR /app
# uid/gid 1000 is the `node` user of the official image; numeric so Kubernetes' runAsNonRoot can
# verify it. /data holds the embedded store and, on the chain node, the sandbox chain's state.
RUN mkdir -p /data && chown 1000:1000 /data
COPY --from=build --chown=1000:1000 /app/package.json ./package.json
COPY --from=build --chown=1000:1000 /app/node_modules ./node_modules
COPY --from=build --chown=1000:1000 /app/dist ./dist
USER 1000:1000
# 3000: HTTP + Socket.IO (/ws) on gateway roles; 3030: Prometheus metrics when METRICS=true.
EXPOSE 3000 3030
# server.ts drains on SIGTERM (broker.stop) and exits 0; run node directly as PID 1 so it gets it.
STOPSIGNAL SIGTERM
CMD ["node", "dist/server.js"]
