#!/usr/bin/env bash
# `npm run test:compose` (and CI after the cluster test): deploy/compose.yaml for real, on this machine's container
# engine: `docker compose up --wait` of everything, then the cluster's smoke test (test/cluster smoke.cluster.test.ts)
# through the gateway's published port, JSON and XML; `down -v` at the end (FLOWBOARD_COMPOSE_KEEP=1 keeps it up).
#
# The six Flowboard images are built from deploy/docker/Dockerfile (deploy/cluster/images.sh, tagged `dev` as
# compose names them). The infrastructure images compose names come from a registry we cannot reach, so local
# stand-ins are built with those exact names first (deploy/compose/standins/README.md says what each honours).
set -euo pipefail
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/cluster/lib.sh"
cd "$REPO"
[ "$(id -u)" = 0 ] || die "the container engine needs root"

T0=$(now_ms)
COMPOSE_FILE=deploy/compose.yaml
STANDINS=deploy/compose/standins
PUBLISHED=(8080 25432 26379 29092 29000 1025 8025)   # what compose.yaml publishes on 127.0.0.1
STARTED_DOCKER=0

compose() {
  env -u FLOWBOARD_OPERATOR_TOKEN -u FLOWBOARD_WEBHOOKS_SECRET_ENCRYPTION_KEY -u FLOWBOARD_WEBHOOK_ALLOWED_HOSTS \
    -u COMPOSE_PROFILES "$COMPOSE" --env-file /dev/null -f "$COMPOSE_FILE" "$@"
}

# The image compose.yaml names for one of its services.
image_of() { compose config --format json | node -e 'let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.parse(s).services[process.argv[1]].image))' "$1"; }

# One stand-in: its folder of deploy/compose/standins plus staged files, built with --network host (apt, npm).
build_standin() {  # build_standin <service> [<file or dir to stage>...]
  local svc=$1 image ctx
  shift
  image=$(image_of "$svc")
  ctx=$(mktemp -d)
  cp -r "$STANDINS/$svc/." "$ctx/"
  # Links followed (the JVM's conf and certificates live under /etc); dangling ones (a JDK's src.zip) skipped.
  while (($#)); do
    { tar -C "$(dirname "$1")" --dereference --ignore-failed-read -cf - "$(basename "$1")" 2>/dev/null || true; } |
      tar -C "$ctx" -xf -
    shift
  done
  log "stand-in: $image (deploy/compose/standins/$svc)"
  docker build --network host -q -t "$image" "$ctx" >"$LOG_DIR/standin-$svc.log" 2>&1 \
    || { show_log "$LOG_DIR/standin-$svc.log" 30; rm -rf "$ctx"; die "stand-in $image failed to build"; }
  rm -rf "$ctx"
}

standins() {
  local jvm minio tmp
  ensure_kafka
  minio=$(ensure_go_tool minio "$MINIO_MODULE") || die "minio: build failed"
  [ -f packages/mail-sink/dist/main.js ] || npx turbo run build --filter=@flowboard/mail-sink --output-logs=errors-only
  jvm=$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")
  tmp=$(mktemp -d)
  ln -s "$jvm" "$tmp/jvm" && ln -s "$KAFKA_HOME/libs" "$tmp/libs"
  build_standin postgres
  build_standin redis
  build_standin kafka "$tmp/jvm" "$tmp/libs"
  build_standin minio "$minio"
  build_standin mailpit packages/mail-sink/dist packages/mail-sink/package.json
  rm -rf "$tmp"
}

cleanup() {
  local rc=$?
  if [ "${FLOWBOARD_COMPOSE_KEEP:-0}" = 1 ]; then
    log "FLOWBOARD_COMPOSE_KEEP=1: the stack stays up (docker-compose -f $COMPOSE_FILE down -v removes it)"
  else
    if ((rc != 0)) && [ -n "${COMPOSE:-}" ]; then
      compose ps -a >&2 || true
      compose logs --no-color --tail=15 >&2 || true
    fi
    [ -z "${COMPOSE:-}" ] || compose down -v --remove-orphans >/dev/null 2>&1 || true
    ((STARTED_DOCKER == 0)) || stop_process dockerd 15
  fi
  echo
  if ((rc == 0)); then echo "compose test: passed in $(((($(now_ms) - T0) + 500) / 1000))s"; else echo "compose test: FAILED"; fi
  exit "$rc"
}
trap cleanup EXIT

main() {
  mkdir -p "$LOG_DIR"
  local port
  for port in "${PUBLISHED[@]}"; do
    port_in_use "$port" 127.0.0.1 && die "127.0.0.1:$port is in use (npm stop?); compose.yaml publishes it"
  done
  step "tools: container engine, Docker Compose"
  ensure_cluster_packages
  docker_up || STARTED_DOCKER=1
  ensure_docker
  ensure_compose
  ensure_node_deps
  step "images: the six services (tagged dev) and the infrastructure's stand-ins"
  bash deploy/cluster/images.sh --tag dev --out "$CLUSTER_HOME/images-compose"
  standins
  ensure_test_build
  step "docker compose up --wait"
  compose up -d --no-build --wait --wait-timeout 300
  compose ps
  step "smoke test through the gateway's published port"
  (
    cd test/cluster
    GATEWAY_URL=http://127.0.0.1:8080 MAILPIT_URL=http://127.0.0.1:8025 \
      npx jest --selectProjects cluster --runInBand test/smoke.cluster.test.ts
  )
}

main
