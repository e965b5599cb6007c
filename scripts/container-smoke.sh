#!/usr/bin/env bash
# Opt-in smoke test of the image (docs/operations.md "Compose"), not part of `npm test`: builds it with
# podman, then runs what docker-compose.yml runs (the same commands and entrypoints, read from the
# file): the sandbox, migrate, `pns setup --print --sandbox`, api and worker, on the host's network
# against this machine's PostgreSQL and Redis (a database and queue prefix of its own), and checks
# the image holds no front-end package, both probes pass, a first send reaches the sandbox's inbox
# and SIGTERM stops api and worker with exit 0. Needs podman; BASE_IMAGE where no registry answers:
#   scripts/container-base.sh && BASE_IMAGE=localhost/pns-base:24.21.0-bookworm scripts/container-smoke.sh
# SKIP_BUILD=1 reuses $IMAGE. Compose itself (its network, depends_on, profiles) is not run here.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
IMAGE="${IMAGE:-localhost/push-notification-service:local}"
PG_URL="${PG_URL:-postgres://postgres@127.0.0.1:5432}"
REDIS_URL="${REDIS_URL:-redis://127.0.0.1:6379}"
run="$(node -p 'require("node:crypto").randomBytes(4).toString("hex")')"
db="pns_smoke_$run" prefix="smoke-$run" volume="pns-smoke-$run" name="pns-smoke-$run"
APP_KEY="$(node -p 'require("node:crypto").randomBytes(32).toString("base64")')"
step() { printf '\n== %s\n' "$*" >&2; }
fail() { printf 'FAILED: %s\n' "$*" >&2; exit 1; }
compose() { node -e 'const y = require("yaml"); const c = y.parse(require("node:fs").readFileSync("docker-compose.yml", "utf8"), { merge: true }); process.stdout.write(JSON.stringify(eval(process.argv[1])))' "$1"; }
sql() { node -e 'const { Client } = require("pg"); const c = new Client({ connectionString: process.argv[1] + "/postgres" }); c.connect().then(() => c.query(process.argv[2])).finally(() => c.end())' "$PG_URL" "$1"; }

cleanup() {
  podman rm -f "$name-sandbox" "$name-api" "$name-worker" >/dev/null 2>&1 || true
  podman volume rm -f "$volume" >/dev/null 2>&1 || true
  sql "DROP DATABASE IF EXISTS $db" || true
  node -e 'const R = require("ioredis"); const r = new R(process.argv[1]); r.keys(process.argv[2] + "*").then((k) => k.length && r.del(...k)).finally(() => r.quit())' "$REDIS_URL" "$prefix" || true
}
trap cleanup EXIT

if [ -z "${SKIP_BUILD:-}" ]; then
  step "podman build ${BASE_IMAGE:+(BASE_IMAGE=$BASE_IMAGE)}"
  # Docker's image format: the OCI one has no HEALTHCHECK.
  podman build --format docker --network host ${BASE_IMAGE:+--build-arg "BASE_IMAGE=$BASE_IMAGE"} -t "$IMAGE" .
fi

step "the image: production modules without front-end packages, the dashboard built, pns on PATH"
podman run --rm "$IMAGE" sh -c 'for p in react react-dom vite @pns/admin pns-web-sdk chart.js; do [ ! -e "node_modules/$p" ] || { echo "node_modules/$p is in the image"; exit 1; }; done
  test -f dist/admin/index.html && pns --help >/dev/null && echo "$(ls node_modules | wc -l) top-level packages, dist/admin/index.html, pns"'
probe="$(podman image inspect "$IMAGE" --format '{{json .HealthCheck.Test}}')"
[ "$probe" = '["CMD","node","dist/src/health/healthcheck.js"]' ] || fail "the image's HEALTHCHECK is $probe"
# The probes are run below with podman exec: podman schedules HEALTHCHECKs with systemd timers.
common=(--no-healthcheck --network host -e "DATABASE_URL=$PG_URL/$db" -e "REDIS_URL=$REDIS_URL" -e "QUEUE_PREFIX=$prefix" -e "APP_KEY=$APP_KEY" -e LOG_LEVEL=info)
sandbox_command="$(compose 'c.services.sandbox.command')"
entrypoint="$(compose 'c.services.api.entrypoint')"
mapfile -t migrate < <(compose 'c.services.migrate.command' | node -e 'for (const a of JSON.parse(require("node:fs").readFileSync(0, "utf8"))) console.log(a)')
mapfile -t service < <(compose 'c.services.api.command' | node -e 'for (const a of JSON.parse(require("node:fs").readFileSync(0, "utf8"))) console.log(a)')
mapfile -t sandbox_args < <(node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$sandbox_command")
mount="$(compose 'c.services.api.volumes[0]' | node -p 'JSON.parse(require("node:fs").readFileSync(0, "utf8")).split(":")[1]')"

step "the sandbox (${sandbox_args[*]}), on loopback and a free port here"
podman run -d --name "$name-sandbox" --no-healthcheck --network host -v "$volume:$mount" "$IMAGE" "${sandbox_args[@]}" --host 127.0.0.1 --port 0 >/dev/null
info=""
for _ in $(seq 60); do
  info="$(podman logs "$name-sandbox" 2>/dev/null | sed -n '/^{/{p;q}')"
  [ -n "$info" ] && break
  sleep 1
done
[ -n "$info" ] || fail "the sandbox printed no JSON: $(podman logs "$name-sandbox" 2>&1)"
url="$(node -p 'JSON.parse(process.argv[1]).url' "$info")"
local_url="${url/\/\/sandbox:/\/\/127.0.0.1:}"
echo "$url" >&2
sandboxed=(--add-host sandbox:127.0.0.1 -v "$volume:$mount:ro" -e "PNS_SANDBOX_URL=$url" --entrypoint "$entrypoint")

step "migrate: ${migrate[*]}"
sql "CREATE DATABASE $db"
podman run --rm "${common[@]}" "$IMAGE" "${migrate[@]}"

step "pns setup --print --sandbox $url"
setup="$(podman run --rm "${common[@]}" "${sandboxed[@]}" "$IMAGE" pns setup --print --sandbox "$url")"
token="$(node -p 'JSON.parse(process.argv[1]).token.token' "$setup")"
[ -n "$token" ] && [ "$token" != null ] || fail "setup printed no token: $setup"

step "api and worker: ${service[*]} through $entrypoint"
api_port="$(node -e 's = require("node:net").createServer().listen(0, () => { console.log(s.address().port); s.close(); })')"
metrics_port="$(node -e 's = require("node:net").createServer().listen(0, () => { console.log(s.address().port); s.close(); })')"
podman run -d --name "$name-api" "${common[@]}" "${sandboxed[@]}" -e APP_MODE=api -e "PORT=$api_port" -e METRICS_PORT=0 "$IMAGE" "${service[@]}" >/dev/null
podman run -d --name "$name-worker" "${common[@]}" "${sandboxed[@]}" -e APP_MODE=worker -e "METRICS_PORT=$metrics_port" "$IMAGE" "${service[@]}" >/dev/null
for _ in $(seq 90); do curl -fsS "http://127.0.0.1:$api_port/health/live" >/dev/null 2>&1 && break; sleep 1; done
for c in api worker; do
  podman exec "$name-$c" node dist/src/health/healthcheck.js >/dev/null || fail "$c: the image's probe failed: $(podman logs "$name-$c" 2>&1 | tail -20)"
  logs="$(podman logs "$name-$c" 2>&1)"
  [[ "$logs" == *"Delivering to the sandbox at $url"* ]] || fail "$c was not pointed at the sandbox: $(tail -20 <<<"$logs")"
done
echo "both probes pass; both deliver to $url" >&2

step "a first send reaches the sandbox's inbox"
auth=(-H "Authorization: Bearer $token" -H 'Content-Type: application/json')
push_token="$(node -p 'require("node:crypto").randomBytes(32).toString("hex")')"
curl -fsS -X PUT "http://127.0.0.1:$api_port/api/v1/installations/smoke-iphone" "${auth[@]}" -d "{\"platform\":\"ios\",\"push_token\":\"$push_token\",\"user_id\":\"smoke\"}" >/dev/null
sent="$(curl -fsS -X POST "http://127.0.0.1:$api_port/api/v1/notifications" "${auth[@]}" -d '{"recipients":{"user_ids":["smoke"]},"notification":{"title":"From the image","body":"Hello"}}')"
id="$(node -p 'JSON.parse(process.argv[1]).data.id' "$sent")"
for _ in $(seq 60); do
  inbox="$(curl -fsS "$local_url/inbox?notification_id=$id")"
  node -e 'process.exit(JSON.parse(process.argv[1]).data.some((e) => e.token === process.argv[2]) ? 0 : 1)' "$inbox" "$push_token" && break
  inbox=""
  sleep 1
done
[ -n "$inbox" ] || fail "notification $id never reached the inbox: $(podman logs "$name-worker" 2>&1 | tail -20)"
echo "notification $id is in the sandbox's inbox" >&2

step "SIGTERM: api and worker drain and exit 0"
podman stop -t 40 "$name-api" "$name-worker" >/dev/null
for c in api worker; do
  code="$(podman inspect --format '{{.State.ExitCode}}' "$name-$c")"
  [ "$code" = 0 ] || fail "$c exited $code"
done
printf '\nOK: image %s built and ran migrate, sandbox, setup --print, api and worker; a first send reached the inbox.\n' "$IMAGE"
