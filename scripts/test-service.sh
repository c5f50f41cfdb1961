#!/usr/bin/env bash
# `npm run test:service -- <service>`: one service's tests alone, as its team runs them before a pull request.
# Phases, stopping at the first failure: build (the service and the workspaces it depends on, nothing else),
# lint + typecheck, unit tests, the container engine and images (the integration tests' testcontainers), then the
# integration tests. Ends with a per-phase table and one line "N passed, N failed[, N skipped]"; the exit status is
# non-zero when any phase failed.
#
# The engine phase is npm test's (scripts/test.sh): @flowboard/testing's prepareEngine() finds DOCKER_HOST, a Docker
# on its usual socket, or runs scripts/test-engine.sh (Debian's docker.io on its own socket, the stand-in images).
# An engine started here stays up for the next run, as one started by `npx jest` does (`npm test` stops its own).
# Endpoints already in the environment (`set -a; source .flowboard/infra.env; set +a` of a running `npm start`, with
# DATABASE_URL=$PG_ADMIN_URL) are used instead of containers, by the integration tests' own global setup.
set -euo pipefail

usage() { echo "usage: npm run test:service -- <service>   (one of: $(ls "$REPO/services" | paste -sd ' '))" >&2; }
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"   # log, die, now_ms, ensure_node_deps; starts nothing
cd "$REPO"

SVC=${1:-}
[ $# -eq 1 ] && [ -n "$SVC" ] && [ -f "services/$SVC/package.json" ] || { usage; exit 2; }
PKG=$(node -p "require('./services/$SVC/package.json').name")

RESULTS=$(mktemp -d -t flowboard-service-results-XXXXXX)   # the jest summary reporter's JSON, one folder per tier
T_START=$(now_ms)
ENGINE_ON="(not reached)"
PHASE_LOG="$SVC: phase"
TEST_TIERS="unit integration"
# shellcheck source=scripts/lib/phases.sh
source "$REPO/scripts/lib/phases.sh"   # run_phase, record_phase, phases_summary, prepare_test_engine (as npm test)

cleanup() {
  local rc=$?
  set +e
  rc=$(phases_status "$rc")
  phases_summary "$rc" "Summary: $SVC" "$ENGINE_ON"
  rm -rf "$RESULTS"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(now_ms)
ensure_node_deps
record_phase deps ok "$t0"

# `<pkg>...`: the service and every workspace it depends on (packages, proto), not the other services.
run_phase build npx turbo run build --filter="$PKG..." --output-logs=errors-only
run_phase lint+typecheck npx turbo run lint typecheck --filter="$PKG" --output-logs=errors-only
# Jest straight from the workspace's own scripts: never a cache replay, so the counts above are this run's.
run_phase unit npm run --silent test -w "$PKG"

if [ -n "${DATABASE_URL:-}" ]; then
  ENGINE_ON="the endpoints in the environment (DATABASE_URL is set)"
else
  t0=$(now_ms)
  echo
  log "$SVC: phase engine: the container engine and images for testcontainers"
  if prepare_test_engine; then
    record_phase engine ok "$t0"
    ENGINE_ON="testcontainers on $ENGINE_DESCRIPTION"
  else
    record_phase engine FAILED "$t0"
    ENGINE_ON="(none: no container engine could be started; the reason is above)"
  fi
  log "$SVC: phase engine: ${STATUS[engine]} in ${SECS[engine]}s"
  [ "${STATUS[engine]}" = ok ]
fi

if node -e 'process.exit(require(process.argv[1]).scripts?.["test:integration"] ? 0 : 1)' "$REPO/services/$SVC/package.json"; then
  run_phase integration npm run --silent test:integration -w "$PKG"
else
  log "$SVC: no integration tests (no test:integration script)"
fi
