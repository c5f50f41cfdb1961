#!/usr/bin/env bash
# `npm run test:compose` (and CI after the cluster test): deploy/compose.yaml for real, on this machine's container
# engine: `docker compose up --wait` of everything, then the cluster's smoke test (test/cluster smoke.cluster.test.ts)
# through the gateway's published port, JSON and XML; `down -v` at the end (FLOWBOARD_COMPOSE_KEEP=1 keeps it up).
#
# The six Flowboard images are built from deploy/docker/Dockerfile (deploy/cluster/images.sh, tagged `dev` as
# compose names them). The infrastructure images compose names come from a registry we cannot reach, so local
# stand-ins are built with those exact names first (deploy/compose/standins/build.sh; its README says what each
# honours).
set -euo pipefail
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/cluster/lib.sh"
cd "$REPO"
[ "$(id -u)" = 0 ] || die "the container engine needs root"

T0=$(now_ms)
COMPOSE_FILE=deploy/compose.yaml
PUBLISHED=(8080 25432 26379 29092 29000 1025 8025)   # what compose.yaml publishes on 127.0.0.1
STARTED_DOCKER=0

compose() {
  env -u FLOWBOARD_OPERATOR_TOKEN -u FLOWBOARD_WEBHOOKS_SECRET_ENCRYPTION_KEY -u FLOWBOARD_WEBHOOK_ALLOWED_HOSTS \
    -u COMPOSE_PROFILES "$COMPOSE" --env-file /dev/null -f "$COMPOSE_FILE" "$@"
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
  bash deploy/compose/standins/build.sh
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
