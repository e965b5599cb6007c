# syntax=docker/dockerfile:1
# One image for every mode: APP_MODE=api | worker | all (see docs/operations.md).
# BASE_IMAGE: Node 24 on Debian bookworm with npm and a `node` user (uid 1000), as the official image.
# scripts/container-base.sh makes an equivalent where no registry is reachable (docs/operations.md).
ARG BASE_IMAGE=node:24.21.0-bookworm-slim

FROM ${BASE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm workspaces (clients/*): npm ci needs each one's package.json, and npm run build builds them too.
COPY clients/web/package.json ./clients/web/
COPY clients/admin/package.json ./clients/admin/
COPY clients/node/package.json ./clients/node/
COPY clients/react-native/package.json ./clients/react-native/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY clients ./clients
# Also builds the operator dashboard (clients/admin) into dist/admin, which the api serves at /admin.
RUN npm run build

FROM ${BASE_IMAGE} AS runtime
# tini is PID 1: it forwards SIGTERM to Node (which drains requests and jobs, then exits 0) and
# reaps zombies. Node itself as PID 1 would ignore a SIGTERM arriving before main.ts installs its
# handler, since the kernel gives PID 1 no default signal actions.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# The workspaces' package.json files make the tree match the lockfile; --workspaces=false installs
# the root's production dependencies only: no front-end package (React, Vite) enters the image, the
# dashboard arrives built, in dist/admin.
COPY clients/web/package.json ./clients/web/
COPY clients/admin/package.json ./clients/admin/
COPY clients/node/package.json ./clients/node/
COPY clients/react-native/package.json ./clients/react-native/
RUN npm ci --omit=dev --workspaces=false --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# The web SDK's script-tag builds, which the api serves at /sdk/v1/ (docs/api.md#web-sdk).
COPY --from=build /app/clients/web/dist/pns.iife.js /app/clients/web/dist/worker.iife.js ./clients/web/dist/
# `pns` on PATH, as `npm install -g` would give it: `docker compose run --rm api pns setup --print`.
RUN ln -s /app/dist/src/cli.js /usr/local/bin/pns
# Compose's entrypoint for api and worker: delivers to the sandbox when one answers (docker-compose.yml).
COPY scripts/container-sandbox-env.sh /usr/local/bin/pns-sandbox-env
# The QA sandbox (`node dist/src/cli.js sandbox`, docs/testing.md#in-a-container) keeps its CA and
# credentials here; made now and owned by node, so a named volume mounted on it is writable.
ENV PNS_SANDBOX_DIR=/home/node/.pns-sandbox
RUN mkdir -p "$PNS_SANDBOX_DIR" && chown node:node "$PNS_SANDBOX_DIR"
USER node
# 3000: the API (api/all); 9464: Prometheus /metrics (METRICS_PORT; 9465 by default in worker mode);
# 4400-4403: the sandbox's API, APNs, FCM and Web Push, when the image runs `cli.js sandbox`.
EXPOSE 3000 9464 9465 4400-4403
# Probes /health/live on PORT, or on METRICS_PORT in worker mode (a worker has no API port).
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "dist/src/health/healthcheck.js"]
ENTRYPOINT ["/usr/bin/tini", "--"]
CMD ["node", "dist/src/main.js"]
