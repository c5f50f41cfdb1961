#!/usr/bin/env bash
# `npm run bench`: seeds one project with BENCH_STORIES stories (default 100,000) straight into the boards
# schema, then load-tests the board API through the gateway of the RUNNING local stack (`npm start` first; for
# another stack, export its FLOWBOARD_HOME and FLOWBOARD_*_PORT as for deploy/local). Not part of `npm test`.
# Knobs: BENCH_STORIES, BENCH_CONNECTIONS (32), BENCH_DURATION seconds per scenario (10), BENCH_WARMUP (5),
# BENCH_KEYS (64). Options: --reuse, --only 1,5, --board (docs/benchmarks.md).
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
[ -f "$FLOWBOARD_HOME/infra.env" ] || die "no local stack in $FLOWBOARD_HOME: run 'npm start' first"
# shellcheck disable=SC1091
source "$FLOWBOARD_HOME/infra.env"
export GATEWAY_URL="http://127.0.0.1:$FLOWBOARD_GATEWAY_PORT"
http_ok "$GATEWAY_URL/readyz" || die "the gateway at $GATEWAY_URL is not ready: run 'npm start' first"
export BOARDS_DATABASE_URL FLOWBOARD_HOME FLOWBOARD_BOARDS_METRICS_PORT FLOWBOARD_GATEWAY_METRICS_PORT
exec node "$REPO/bench/bench.mjs" "$@"
