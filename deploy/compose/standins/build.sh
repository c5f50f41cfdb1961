#!/usr/bin/env bash
# Local stand-ins for the infrastructure images deploy/compose.yaml names (README.md here says what each honours),
# built under those exact names, so that compose (scripts/compose-test.sh) and the integration tests (testcontainers,
# scripts/test-engine.sh) find them on this machine, which reaches no container registry.
#
#   deploy/compose/standins/build.sh
#
# Builds only what is missing or out of date: each image carries a digest of what it is made of (its folder here and
# the pins of what gets staged into it) as a label, and is built again when that changes. Needs the engine running
# (deploy/cluster/lib.sh ensure_docker); builds the two base images first when needed (images.sh --bases-only).
set -euo pipefail
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../cluster/lib.sh"
cd "$REPO"

STANDINS=deploy/compose/standins
DIGEST_LABEL=org.flowboard.standin-digest
(($# == 0)) || die "usage: $0"

# What a stand-in is made of: its folder, and the pins or sources of what build_standin stages into it.
standin_digest() {  # standin_digest <service>
  local svc=$1
  {
    (cd "$STANDINS/$svc" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
    case $svc in
      kafka) echo "kafka $KAFKA_VERSION" ;;
      minio) echo "$MINIO_MODULE" ;;
      mailpit) (cd packages/mail-sink && find src package.json -type f -print0 | sort -z | xargs -0 sha256sum) ;;
    esac
  } | sha256sum | cut -c1-16
}

up_to_date() {  # up_to_date <service>
  [ "$(docker image inspect -f "{{ index .Config.Labels \"$DIGEST_LABEL\" }}" "${IMAGE[$1]}" 2>/dev/null)" = \
    "$(standin_digest "$1")" ]
}

# The names, read from compose.yaml by the same code the integration tests use (@flowboard/testing's images.ts).
declare -A IMAGE=()
read_image_names() {
  local name image
  [ -f packages/testing/dist/containers/images.js ] || ensure_test_build
  while read -r name image; do IMAGE[$name]=$image; done < <(node -e '
    const images = require(process.argv[1]).infrastructureImages();
    for (const [name, image] of Object.entries(images)) console.log(name, image);' \
    "$REPO/packages/testing/dist/containers/images.js")
}

# One stand-in: its folder here plus staged files, built with --network host (apt, npm).
build_standin() {  # build_standin <service> [<file or dir to stage>...]
  local svc=$1 image=${IMAGE[$1]} ctx
  shift
  ctx=$(mktemp -d)
  cp -r "$STANDINS/$svc/." "$ctx/"
  # Links followed (the JVM's conf and certificates live under /etc); dangling ones (a JDK's src.zip) skipped.
  while (($#)); do
    { tar -C "$(dirname "$1")" --dereference --ignore-failed-read -cf - "$(basename "$1")" 2>/dev/null || true; } |
      tar -C "$ctx" -xf -
    shift
  done
  log "stand-in: $image ($STANDINS/$svc)"
  docker build --network host -q --label "$DIGEST_LABEL=$(standin_digest "$svc")" -t "$image" "$ctx" \
    >"$LOG_DIR/standin-$svc.log" 2>&1 \
    || { show_log "$LOG_DIR/standin-$svc.log" 30; rm -rf "$ctx"; die "stand-in $image failed to build"; }
  rm -rf "$ctx"
}

main() {
  mkdir -p "$LOG_DIR"
  read_image_names
  local svc todo=()
  for svc in postgres redis kafka minio mailpit; do
    up_to_date "$svc" || todo+=("$svc")
  done
  if ((${#todo[@]} == 0)); then
    log "stand-ins: all five up to date"
    return 0
  fi
  log "stand-ins to build (missing or changed): ${todo[*]}"
  bash deploy/cluster/images.sh --bases-only
  local jvm minio tmp
  tmp=$(mktemp -d)
  for svc in "${todo[@]}"; do
    case $svc in
      kafka)
        ensure_kafka
        jvm=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
        ln -s "$jvm" "$tmp/jvm" && ln -s "$KAFKA_HOME/libs" "$tmp/libs"
        build_standin kafka "$tmp/jvm" "$tmp/libs" ;;
      minio)
        minio=$(ensure_go_tool minio "$MINIO_MODULE") || die "minio: build failed"
        build_standin minio "$minio" ;;
      mailpit)
        [ -f packages/mail-sink/dist/main.js ] ||
          npx turbo run build --filter=@flowboard/mail-sink --output-logs=errors-only
        build_standin mailpit packages/mail-sink/dist packages/mail-sink/package.json ;;
      *) build_standin "$svc" ;;
    esac
  done
  rm -rf "$tmp"
}

main
