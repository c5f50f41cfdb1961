# shellcheck shell=bash
# The Node.js that Flowboard's services, tests, tools and images run on: Node 24 LTS, pinned by .nvmrc (read here,
# as nvm, fnm and CI's setup steps read it, so the pins cannot drift apart). Sourced, never run: deploy/local/lib.sh,
# which every entry script sources (scripts/*.sh, deploy/local, deploy/cluster, bench), calls ensure_node.
#
# Where `node --version` is not the pin (CI starts `npm test` with the machine's Node 20 and its npm), ensure_node
# installs the pinned version once into $FLOWBOARD_CACHE/node-<version>/ and puts its bin folder first on PATH, so
# every node, npm, npx and turbo started afterwards, and their children, run on it. The binaries come from the npm
# package node-linux-<arch>: Node's official release build (bin/node and the headers) republished as-is. It is
# fetched with the machine's own npm (`npm pack` checks the registry's checksum; the tarball must also match the
# integrity pinned below). That package has no npm: the machine's npm then runs on the pinned Node, as its bin
# scripts start with `#!/usr/bin/env node` (checked after each install; npm 11 here).
#
# To move the pin: the new version in .nvmrc, and its integrity from `npm view node-linux-<arch>@<v> dist.integrity`
# in NODE_INTEGRITY below, for each architecture.

FLOWBOARD_CACHE=$(realpath -m "${FLOWBOARD_CACHE:-$HOME/.cache/flowboard}")   # as deploy/local/lib.sh
NODE_VERSION=$(tr -d ' \t\r\nv' <"$(dirname "${BASH_SOURCE[0]}")/../../.nvmrc")
declare -gA NODE_INTEGRITY=(
  [x64-24.21.0]=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
  [arm64-24.21.0]=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==
)

# ensure_node: the pinned Node first on PATH (installed once when missing). Exports PATH, and npm_config_nodedir
# when the cached Node is used: native addons (ssh2's and cpu-features', optional dependencies of testcontainers)
# are built by node-gyp, which would otherwise take the headers of the machine's Node (this machine's ~/.npmrc
# names /usr) and build addons the pinned Node refuses to load. Fails with the reason on stderr.
ensure_node() {
  local want=v$NODE_VERSION arch dir had
  had=$(node --version 2>/dev/null) || had=none
  if [ "$had" = "$want" ]; then return 0; fi
  case $(uname -m) in
    x86_64) arch=x64 ;;
    aarch64 | arm64) arch=arm64 ;;
    *)
      echo "error: no Node $NODE_VERSION build for $(uname -m) here: install it (node --version must say $want)" >&2
      return 1 ;;
  esac
  dir=$FLOWBOARD_CACHE/node-$NODE_VERSION
  [ -x "$dir/bin/node" ] || install_node "$arch" "$dir" || return 1
  PATH=$dir/bin:$PATH
  hash -r
  if [ "$(node --version 2>/dev/null)" != "$want" ]; then
    echo "error: node --version says '$(node --version 2>&1)' with $dir/bin first on PATH, not $want" >&2
    return 1
  fi
  echo "==> node: Node $NODE_VERSION from $dir (the machine's: $had)" >&2
  # npm exports the Node it runs on to its scripts (npm test: the machine's): the pinned one from here on.
  NODE=$dir/bin/node npm_node_execpath=$dir/bin/node npm_config_nodedir=$dir
  export PATH NODE npm_node_execpath npm_config_nodedir
}

# install_node <arch> <dir>: node-linux-<arch>@$NODE_VERSION into <dir>, through a temporary folder renamed into
# place, so an interrupted install never looks finished. One install at a time per cache (others wait for it).
install_node() {
  local arch=$1 dir=$2 pkg=node-linux-$1@$NODE_VERSION integrity=${NODE_INTEGRITY[$1-$NODE_VERSION]:-}
  if [ -z "$integrity" ]; then
    echo "error: no integrity pinned for $pkg in scripts/lib/node.sh (npm view $pkg dist.integrity)" >&2
    return 1
  fi
  if ! command -v npm >/dev/null 2>&1; then
    echo "error: Node $NODE_VERSION is fetched with npm, and there is none: install Node.js and npm (any recent)" >&2
    return 1
  fi
  mkdir -p "$FLOWBOARD_CACHE" || return 1
  (
    exec 8>"$FLOWBOARD_CACHE/.node.lock"
    if ! flock -n 8; then
      echo "==> node: another script is installing Node $NODE_VERSION; waiting for it" >&2
      flock 8
    fi
    [ -x "$dir/bin/node" ] && exit 0   # installed while this one waited
    echo "==> node: installing Node $NODE_VERSION ($pkg, ~50 MB) into $dir (one-time)" >&2
    tmp=$(mktemp -d "$FLOWBOARD_CACHE/.node.XXXXXX") || exit 1
    trap 'rm -rf "$tmp"' EXIT
    if ! (cd "$tmp" && npm pack "$pkg" --silent >/dev/null); then
      echo "error: npm pack $pkg failed" >&2
      exit 1
    fi
    tgz=$tmp/node-linux-$arch-$NODE_VERSION.tgz
    # The machine's Node computes the checksum: it is there, since npm ran on it.
    got=$(node -e 'const h = require("node:crypto").createHash("sha512");
      h.update(require("node:fs").readFileSync(process.argv[1]));
      process.stdout.write(`sha512-${h.digest("base64")}`);' "$tgz") || exit 1
    if [ "$got" != "$integrity" ]; then
      echo "error: $pkg: integrity $got, not the pinned $integrity" >&2
      exit 1
    fi
    # bin/node, and the headers node-gyp builds native addons against (npm_config_nodedir).
    mkdir "$tmp/node" || exit 1
    tar -xzf "$tgz" -C "$tmp/node" --strip-components=1 package/bin package/include package/LICENSE || exit 1
    v=$("$tmp/node/bin/node" --version) || { echo "error: $pkg: bin/node does not run on this machine" >&2; exit 1; }
    [ "$v" = "v$NODE_VERSION" ] || { echo "error: $pkg: bin/node says $v" >&2; exit 1; }
    if ! PATH=$tmp/node/bin:$PATH npm --version >/dev/null 2>&1; then
      echo "error: the machine's npm ($(command -v npm) $(npm --version 2>&1)) fails on Node $NODE_VERSION: update it" >&2
      exit 1
    fi
    rm -rf "$dir" && mv "$tmp/node" "$dir"
  )
}
