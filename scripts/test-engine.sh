#!/usr/bin/env bash
# The container engine for the integration tests (testcontainers) on a machine that has none and reaches no
# registry, such as ours: Debian's docker.io started on a socket of its own (deploy/cluster/lib.sh ensure_docker),
# and the infrastructure images deploy/compose.yaml names built here as local stand-ins when missing or out of date
# (deploy/compose/standins/build.sh). Idempotent: about a second when all is there; one-time builds otherwise (the
# Debian base ~2 min, MinIO from source 5-12 min, each stand-in under a minute).
#
# Progress goes to stderr; stdout gets one line, the DOCKER_HOST to use. @flowboard/testing's containers/engine.ts
# runs this when it finds no engine; scripts/test.sh runs it before the integration tests.
set -euo pipefail
exec 3>&1 1>&2   # everything but the answer to stderr
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/cluster/lib.sh"
cd "$REPO"

[ "$(id -u)" = 0 ] || die "starting the container engine needs root (apt, dockerd); without it, run the integration tests against a native stack (README: Tests)"
mkdir -p "$LOG_DIR" "$FLOWBOARD_CACHE"
# One preparation at a time: turbo may start several workspaces' tests at once, each asking for the engine.
exec 7>"$FLOWBOARD_CACHE/.test-engine.lock"
flock -n 7 || { log "test engine: another preparation is running; waiting for it"; flock 7; }
ensure_apt docker.io debootstrap
ensure_docker
ensure_node_deps
bash deploy/compose/standins/build.sh
echo "$DOCKER_HOST" >&3
