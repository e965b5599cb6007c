#!/bin/sh
# The entrypoint of Compose's api and worker (docker-compose.yml, docs/operations.md "Compose"):
# when PNS_SANDBOX_URL names a `pns sandbox` that answers, the `env` its GET / gives (provider URLs,
# its CA in the shared volume) is exported, so the command delivers to it; when none answers (no
# `--profile sandbox`), the command runs unchanged, against Apple, Google and the browsers' services.
set -eu
if [ -n "${PNS_SANDBOX_URL:-}" ]; then
  if sandbox_env="$(node -e '
    const url = process.env.PNS_SANDBOX_URL;
    fetch(new URL("/", url), { signal: AbortSignal.timeout(5000) })
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(`GET / answered ${response.status}`))))
      .then((info) => {
        if (!info || typeof info.env !== "object") throw new Error("not a pns sandbox");
        const q = String.fromCharCode(39);
        const quote = (value) => q + String(value).split(q).join(q + "\\" + q + q) + q;
        for (const [name, value] of Object.entries(info.env)) {
          if (!/^[A-Z][A-Z0-9_]*$/.test(name)) throw new Error(`unexpected variable ${name}`);
          process.stdout.write(`export ${name}=${quote(value)}\n`);
        }
        process.stderr.write(`Delivering to the sandbox at ${url} (its inbox: ${url}/inbox).\n`);
      })
      .catch((error) => {
        process.stderr.write(`No sandbox at ${url} (${error.cause?.code ?? error.message}): delivering to the real providers.\n`);
        process.exit(1);
      });
  ')"; then
    eval "$sandbox_env"
  fi
fi
exec "$@"
