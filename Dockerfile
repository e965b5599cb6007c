# syntax=docker/dockerfile:1
# One image for every mode: APP_MODE=api | worker | all (see docs/operations.md).

FROM node:24.21.0-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm workspaces (clients/*): npm ci needs each one's package.json, and npm run build builds them too.
COPY clients/web/package.json ./clients/web/
COPY clients/admin/package.json ./clients/admin/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ormconfig.ts ./
COPY src ./src
COPY clients ./clients
# Also builds the operator dashboard (clients/admin) into dist/admin, which the api serves at /admin.
RUN npm run build

FROM node:24.21.0-bookworm-slim AS runtime
# tini is PID 1: it forwards SIGTERM to Node (which drains requests and jobs, then exits 0) and
# reaps zombies. Node itself as PID 1 would ignore a SIGTERM arriving before main.ts installs its
# handler, since the kernel gives PID 1 no default signal actions.
RUN apt-get update \
  && apt-get install -y --no-install-recommends tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
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
