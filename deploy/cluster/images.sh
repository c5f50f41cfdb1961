#!/usr/bin/env bash
# Container images without a registry: a Debian base made with debootstrap from this machine's own apt mirror, a
# Node base from the pinned Node (scripts/lib/node.sh) and the host's npm (named like the Dockerfile's FROM, so FROM
# resolves locally), then the six service images from deploy/docker/Dockerfile.
#
#   deploy/cluster/images.sh [--ref <commit>] [--version <v>] [--out <file>] [--import] [--tag <t>] [--jobs <n>]
#                            [--bases-only]
#
# builds what changed and writes "<service> <tag> <version> <kafka>" lines to <file> (default $CLUSTER_HOME/images); --import
# also loads them into the running node's containerd; --tag also names each image flowboard/<service>:<t> (compose's
# `dev`); --bases-only stops after the two base images.
#
# --ref <commit> builds that commit's tree instead of the working tree (`git archive` into a temporary folder), the
# same way: with that tree's own deploy/docker/Dockerfile and .dockerignore. The cluster test builds the previous
# release so (the commit in contracts/released/SOURCE) for its version-skew phases.
#
# Each service image is tagged by its content (sha-<12 hex of its image id>), so a rebuild of unchanged sources gives
# the same tag and the cluster restarts only what changed. A service's version is its package.json "version" (the
# chart's components.<service>.version; the image's version label); a tree whose packages all said 0.0.0, from before
# services were released one by one, was released as a whole as its chart's appVersion, which stands in for it.
# --version sets every image's version label instead. --jobs builds that many services at once (default 2): one
# build's npm ci waits on the network while another's TypeScript build uses the CPU.
set -euo pipefail
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVICES=(gateway boards membership files notifier webhooks)
VERSION=
OUT=$CLUSTER_HOME/images
IMPORT=0
EXTRA_TAG=
BASES_ONLY=0
REF=
JOBS=${FLOWBOARD_IMAGE_JOBS:-2}
while (($#)); do
  case $1 in
    --ref) REF=$2; shift 2 ;;
    --version) VERSION=$2; shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --import) IMPORT=1; shift ;;
    --tag) EXTRA_TAG=$2; shift 2 ;;
    --jobs) JOBS=$2; shift 2 ;;
    --bases-only) BASES_ONLY=1; shift ;;
    *) die "usage: $0 [--ref <commit>] [--version <v>] [--out <file>] [--import] [--tag <t>] [--jobs <n>] [--bases-only]" ;;
  esac
done

DEBIAN_IMAGE=local/debian:bookworm
NODE_IMAGE=$(sed -n 's/^ARG NODE_IMAGE=//p' "$REPO/deploy/docker/Dockerfile")   # node:24-bookworm-slim
ROOTFS_TAR=$FLOWBOARD_CACHE/cluster/rootfs-bookworm.tar

have_image() { docker image inspect "$1" >/dev/null 2>&1; }

# The machine's own Debian mirror, read from its apt sources (never a host name written here).
apt_mirror() {
  # Either file may be missing (cat then fails, and pipefail would end the script): only awk's answer counts.
  { cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true; } |
    awk '/^URIs:/ { print $2; exit } /^deb / { for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) { print $i; exit } }'
}

ensure_debian_base() {
  have_image "$DEBIAN_IMAGE" && return 0
  if [ ! -f "$ROOTFS_TAR" ]; then
    local mirror tmp
    mirror=$(apt_mirror)
    [ -n "$mirror" ] || die "no Debian mirror in /etc/apt/sources*"
    tmp=$(mktemp -d /var/tmp/flowboard-rootfs.XXXXXX)
    log "images: debootstrap --variant=minbase bookworm from the machine's apt mirror (one-time, ~2 min)"
    debootstrap --variant=minbase bookworm "$tmp" "$mirror" >"$LOG_DIR/debootstrap.log" 2>&1 \
      || { show_log "$LOG_DIR/debootstrap.log"; rm -rf "$tmp"; die "debootstrap failed"; }
    # Package lists and caches are of no use in an image.
    rm -rf "$tmp"/var/lib/apt/lists/* "$tmp"/var/cache/apt/* "$tmp"/usr/share/doc/* "$tmp"/usr/share/man/*
    mkdir -p "$(dirname "$ROOTFS_TAR")"
    tar -C "$tmp" -cf "$ROOTFS_TAR.tmp" . && mv "$ROOTFS_TAR.tmp" "$ROOTFS_TAR"
    rm -rf "$tmp"
  fi
  log "images: importing $DEBIAN_IMAGE"
  docker import "$ROOTFS_TAR" "$DEBIAN_IMAGE" >/dev/null
}

# A Node base named like a Dockerfile's FROM (node:<major>-…, so FROM resolves locally): the Debian base, a Node of
# that major from this machine, and the npm that runs here. For the Dockerfile's own base that Node is the one
# scripts/lib/node.sh pins (ensure_node put it first on PATH); an older release's tree (--ref) may name an older
# major, found the same way (the machine's /usr/bin/node, say). The host's CA bundle goes in because this machine's
# outbound TLS is intercepted (npm fails SELF_SIGNED_CERT_IN_CHAIN without it). Rebuilt when the image's
# org.flowboard.node-version label is not that Node's version.
ensure_node_base() {  # ensure_node_base [<image>] (default: the Dockerfile's NODE_IMAGE)
  local image=${1:-$NODE_IMAGE} major node= node_version npm_dir ctx n
  major=${image#node:}
  major=${major%%[-.@:]*}
  for n in $(type -ap node) /usr/local/bin/node /usr/bin/node; do
    if [[ $("$n" --version 2>/dev/null) == "v$major".* ]]; then node=$n && break; fi
  done
  [ -n "$node" ] || die "images: $image needs a Node $major binary; none here (PATH, /usr/local/bin, /usr/bin)"
  node_version=$("$node" --version)
  if have_image "$image" &&
    [ "$(docker image inspect -f '{{ index .Config.Labels "org.flowboard.node-version" }}' "$image")" = "$node_version" ]
  then
    return 0
  fi
  npm_dir=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")   # /usr/bin/npm -> …/npm/bin/npm-cli.js
  [ -f "$npm_dir/package.json" ] || die "images: no npm package behind $(command -v npm)"
  ctx=$(mktemp -d)
  # The layout of the machine's Debian packages, as before: node in /usr/bin, npm (and corepack) in /usr/lib.
  mkdir -p "$ctx/root/usr/bin" "$ctx/root/usr/lib/node_modules"
  cp "$(readlink -f "$node")" "$ctx/root/usr/bin/node"
  cp -a "$npm_dir" "$ctx/root/usr/lib/node_modules/npm"
  [ ! -d /usr/lib/node_modules/corepack ] || cp -a /usr/lib/node_modules/corepack "$ctx/root/usr/lib/node_modules/"
  tar -C "$ctx/root" -cf "$ctx/node.tar" usr && rm -rf "$ctx/root"
  cp /etc/ssl/certs/ca-certificates.crt "$ctx/"
  cat >"$ctx/Dockerfile" <<EOF
FROM $DEBIAN_IMAGE
LABEL org.flowboard.node-version="$node_version"
ADD node.tar /
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
RUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/bin/npm && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/bin/npx \\
 && groupadd --gid 1000 node && useradd --uid 1000 --gid node -m node
EOF
  log "images: $image from Node $node_version ($node) and npm $("$node" "$npm_dir/bin/npm-cli.js" --version)"
  docker build -q -t "$image" "$ctx" >"$LOG_DIR/build-node-base.log" 2>&1 \
    || { show_log "$LOG_DIR/build-node-base.log"; rm -rf "$ctx"; die "node base image build failed"; }
  rm -rf "$ctx"
}

# A service's release: its package.json "version"; 0.0.0 (a tree from before per-service releases) stands for the
# release of the whole, the tree's chart appVersion.
service_version() {  # service_version <tree> <service>
  local v
  v=$(node -p "require(process.argv[1]).version" "$1/services/$2/package.json")
  if [ "$v" = 0.0.0 ]; then
    v=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$1/deploy/helm/flowboard/Chart.yaml")
  fi
  echo "$v"
}

# What a tree's services can say to Kafka: `tls-sasl` when they have KAFKA_TLS and KAFKA_SASL_* (service-kit's
# config), `plaintext` for a release from before them, which the cluster test points at Kafka's plaintext listener
# (deploy/cluster/lib.sh, image_args) as an operator keeps one open while old clients remain.
kafka_security() {  # kafka_security <tree>
  if grep -q KAFKA_SASL_MECHANISM "$1/packages/service-kit/src/config.ts" 2>/dev/null; then echo tls-sasl; else echo plaintext; fi
}

# One service image of the tree <src>; writes "<service> <tag> <version> <kafka>" to <result>. Its log:
# build-<svc><suffix>.log.
build_service() {  # build_service <src> <service> <result> <log suffix>
  local src=$1 svc=$2 result=$3 log="$LOG_DIR/build-$2$4.log" t0 id tag version label
  t0=$(now_ms)
  version=$(service_version "$src" "$svc")
  label=${VERSION:-$version}
  docker build --network host -f "$src/deploy/docker/Dockerfile" --build-arg SERVICE="$svc" \
    --build-arg VERSION="$label" --iidfile "$result.iid" "$src" >"$log" 2>&1 \
    || { show_log "$log" 30; warn "images: $svc failed to build (log: $log)"; return 1; }
  id=$(cat "$result.iid")
  tag=sha-${id#sha256:}
  tag=${tag:0:16}
  docker tag "$id" "flowboard/$svc:$tag"
  log "images: flowboard/$svc:$tag, version $version${4:+ (commit ${4#-})} ($(((($(now_ms) - t0) + 500) / 1000))s)" >&2
  echo "$svc $tag $version $(kafka_security "$src")" >"$result"
}

main() {
  mkdir -p "$LOG_DIR"
  ensure_cluster_packages
  ensure_docker
  ensure_debian_base
  ensure_node_base
  # The tree of --ref builds FROM its own Dockerfile's base, which may be an older Node's (a release before Node 24).
  if [ -n "$REF" ]; then
    local ref_image
    ref_image=$(git -C "$REPO" show "$REF:deploy/docker/Dockerfile" 2>/dev/null | sed -n 's/^ARG NODE_IMAGE=//p')
    [ -z "$ref_image" ] || [ "$ref_image" = "$NODE_IMAGE" ] || ensure_node_base "$ref_image"
  fi
  ((BASES_ONLY == 0)) || return 0
  # One run at a time: a run's pruning (below) would drop the images another run has built but not yet listed.
  exec 7>"$FLOWBOARD_CACHE/.images.lock"
  flock -n 7 || { log "images: another images.sh is running; waiting for it"; flock 7; }
  local src=$REPO suffix= svc n=0 failed=0 t0 list=$OUT
  t0=$(now_ms)
  WORK=$(mktemp -d)
  trap 'rm -rf "$WORK"' EXIT
  local work=$WORK
  if [ -n "$REF" ]; then
    local commit
    commit=$(git -C "$REPO" rev-parse --verify "$REF^{commit}") || die "images: no commit $REF"
    src=$work/tree
    suffix="-${commit:0:12}"
    mkdir -p "$src"
    git -C "$REPO" archive --format=tar "$commit" | tar -x -C "$src"
    log "images: building the six services of ${commit:0:12} (git archive of $REF), $JOBS at a time"
  fi
  # Up to $JOBS builds at once; each writes its line to a file of its own, gathered in SERVICES' order.
  for svc in "${SERVICES[@]}"; do
    build_service "$src" "$svc" "$work/$svc" "$suffix" &
    n=$((n + 1))
    if ((n >= JOBS)); then wait -n || failed=1; n=$((n - 1)); fi
  done
  while ((n > 0)); do wait -n || failed=1; n=$((n - 1)); done
  ((failed == 0)) || die "images: a build failed (above)"
  mkdir -p "$(dirname "$list")"
  for svc in "${SERVICES[@]}"; do cat "$work/$svc"; done >"$list.tmp"
  mv "$list.tmp" "$list"
  if [ -n "$EXTRA_TAG" ]; then
    while read -r svc tag _; do docker tag "flowboard/$svc:$tag" "flowboard/$svc:$EXTRA_TAG"; done <"$list"
  fi
  log "images: six services${REF:+ of $REF} in $(((($(now_ms) - t0) + 500) / 1000))s ($list)"
  ((IMPORT == 0)) || import_images "$list"
  prune_old_images "$list"
}

# Every build of changed sources leaves a new image per service. Keep the ones an images file of this cluster names
# (this build's, the running install's, an upgrade's), drop the other tags. Not by age: a build of unchanged sources
# gets back an older image, which must stay. Not `docker image prune` either: the legacy builder's cache of the
# pruner and builder stages is untagged images, and pruning them made every next build redo `npm ci`.
prune_old_images() {  # prune_old_images <this build's images file>
  local keep svc ref
  keep=$(cat "$1" "$CLUSTER_HOME"/images* 2>/dev/null | awk '{ print "flowboard/" $1 ":" $2 }')
  for svc in "${SERVICES[@]}"; do
    # The filter alone: with a repository argument too, docker ORs the two references and lists every tag
    # (compose's `dev` went that way, and the next `compose up` found no image).
    for ref in $(docker image ls --filter "reference=flowboard/$svc:sha-*" --format '{{.Repository}}:{{.Tag}}'); do
      [[ $ref == "flowboard/$svc:sha-"* ]] || continue
      grep -qxF "$ref" <<<"$keep" || docker image rm "$ref" >/dev/null 2>&1 || true
    done
  done
}

main
