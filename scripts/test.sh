#!/usr/bin/env bash
# `npm test`, and what CI runs: build, lint + typecheck, the docs check (scripts/docs-check.mjs), Helm chart and
# compose file checks, unit tests, then integration tests, end-to-end tests and the schema fuzzer (scripts/fuzz.sh).
# Stops at the first failing phase, always stops what it started, and ends with a per-phase table, which
# infrastructure the integration tests ran on, and one line: "N passed, N failed[, N skipped]".
#
# Integration tests run on testcontainers: each workspace's run starts the containers it needs (PostgreSQL, Redis,
# Kafka, MinIO, mail sink) on random ports, from the images compose.yaml names (built here as local stand-ins, with
# the engine, by scripts/test-engine.sh). When no engine can be started (not root, or its preparation fails), or with
# FLOWBOARD_TEST_INTEGRATION=native, they run on the native stack instead, as before. End-to-end tests and the fuzzer
# run on a throw-away native stack (real PostgreSQL, Redis, Kafka, MinIO, mail sink; the services as processes) on
# test ports, so it never collides with a running `npm start`.
#
# Endpoints already in the environment (DATABASE_URL, with the other variables of infra.env) mean an external
# stack: then no infrastructure is started here, and the integration tests use it too.
set -euo pipefail

# Test ports: a block of 21 where nothing listens, below the kernel's range for the local ports of outgoing
# connections (any client socket may hold a port inside it at any moment: a Kafka test port once was). Chosen before
# lib.sh is read, so its defaults do not apply, and exported so e2e tests that restart Kafka through infra.sh reach
# this stack. FLOWBOARD_TEST_PORT_BASE=<B> fixes the block; single FLOWBOARD_TEST_* variables override one port.
read -r EPHEMERAL_LOW EPHEMERAL_HIGH </proc/sys/net/ipv4/ip_local_port_range
listening() { timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null; }
free_port_block() {
  local base port
  for ((base = 20000; base + 21 <= 65535; base += 100)); do
    ((base + 21 <= EPHEMERAL_LOW || base > EPHEMERAL_HIGH)) || continue
    for ((port = base; port < base + 21; port++)); do listening "$port" && continue 2; done
    echo "$base"
    return 0
  done
  echo "error: no block of 21 free ports outside the ephemeral range $EPHEMERAL_LOW-$EPHEMERAL_HIGH" >&2
  return 1
}
B=${FLOWBOARD_TEST_PORT_BASE:-$(free_port_block)}
echo "==> test ports: $B-$((B + 20)) (outside the kernel's ephemeral range $EPHEMERAL_LOW-$EPHEMERAL_HIGH)"
export FLOWBOARD_PG_PORT=${FLOWBOARD_TEST_PG_PORT:-$B}
export FLOWBOARD_REDIS_PORT=${FLOWBOARD_TEST_REDIS_PORT:-$((B + 1))}
export FLOWBOARD_KAFKA_PORT=${FLOWBOARD_TEST_KAFKA_PORT:-$((B + 2))}
export FLOWBOARD_KAFKA_CONTROLLER_PORT=${FLOWBOARD_TEST_KAFKA_CONTROLLER_PORT:-$((B + 3))}
export FLOWBOARD_S3_PORT=${FLOWBOARD_TEST_S3_PORT:-$((B + 4))}
export FLOWBOARD_S3_CONSOLE_PORT=${FLOWBOARD_TEST_S3_CONSOLE_PORT:-$((B + 5))}
export FLOWBOARD_SMTP_PORT=${FLOWBOARD_TEST_SMTP_PORT:-$((B + 6))}
export FLOWBOARD_MAILPIT_PORT=${FLOWBOARD_TEST_MAILPIT_PORT:-$((B + 7))}
export FLOWBOARD_GATEWAY_PORT=${FLOWBOARD_TEST_GATEWAY_PORT:-$((B + 8))}
export FLOWBOARD_NOTIFIER_PORT=${FLOWBOARD_TEST_NOTIFIER_PORT:-$((B + 9))}
export FLOWBOARD_BOARDS_PORT=${FLOWBOARD_TEST_BOARDS_PORT:-$((B + 10))}
export FLOWBOARD_MEMBERSHIP_PORT=${FLOWBOARD_TEST_MEMBERSHIP_PORT:-$((B + 11))}
export FLOWBOARD_FILES_PORT=${FLOWBOARD_TEST_FILES_PORT:-$((B + 12))}
export FLOWBOARD_FILES_HTTP_PORT=${FLOWBOARD_TEST_FILES_HTTP_PORT:-$((B + 13))}
export FLOWBOARD_GATEWAY_METRICS_PORT=${FLOWBOARD_TEST_GATEWAY_METRICS_PORT:-$((B + 14))}
export FLOWBOARD_MEMBERSHIP_METRICS_PORT=${FLOWBOARD_TEST_MEMBERSHIP_METRICS_PORT:-$((B + 15))}
export FLOWBOARD_BOARDS_METRICS_PORT=${FLOWBOARD_TEST_BOARDS_METRICS_PORT:-$((B + 16))}
export FLOWBOARD_FILES_METRICS_PORT=${FLOWBOARD_TEST_FILES_METRICS_PORT:-$((B + 17))}
export FLOWBOARD_NOTIFIER_METRICS_PORT=${FLOWBOARD_TEST_NOTIFIER_METRICS_PORT:-$((B + 18))}
export FLOWBOARD_WEBHOOKS_PORT=${FLOWBOARD_TEST_WEBHOOKS_PORT:-$((B + 19))}
export FLOWBOARD_WEBHOOKS_METRICS_PORT=${FLOWBOARD_TEST_WEBHOOKS_METRICS_PORT:-$((B + 20))}
export FLOWBOARD_EPHEMERAL=1
# A fresh stack home per run; mode 755 because PostgreSQL runs as another user.
FLOWBOARD_HOME=$(mktemp -d -t flowboard-XXXXXX)
chmod 755 "$FLOWBOARD_HOME"
export FLOWBOARD_HOME

# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
cd "$REPO"

RESULTS=$(mktemp -d -t flowboard-results-XXXXXX)   # one folder per tier; the jest reporter drops JSON there
EXTERNAL_INFRA=0
[ -n "${DATABASE_URL:-}" ] && EXTERNAL_INFRA=1
INFRA_STARTED=0
SERVICES_STARTED=0
STOP_ENGINE=0   # 1 when this run started our container engine (deploy/cluster/lib.sh's dockerd)
INTEGRATION_ON="(not reached)"
ON_CONTAINERS=0   # 1 when the integration tests run on testcontainers
T_START=$(now_ms)
PHASE_LOG=phase
TEST_TIERS="unit integration e2e"
# shellcheck source=scripts/lib/phases.sh
source "$REPO/scripts/lib/phases.sh"   # run_phase, record_phase, phases_summary, prepare_test_engine

# After a failure, before the test home goes: each service's last warnings and errors, one short line each (the
# stack's logs die with the home, and CI keeps only the tail of this output, so this stays small enough to leave
# the failing tests above it in view); all logs are copied to FLOWBOARD_TEST_KEEP_LOGS if set.
report_service_logs() {
  [ -d "$FLOWBOARD_HOME/logs" ] || return 0
  if [ -n "${FLOWBOARD_TEST_KEEP_LOGS:-}" ]; then
    mkdir -p "$FLOWBOARD_TEST_KEEP_LOGS" && cp "$FLOWBOARD_HOME"/logs/*.log "$FLOWBOARD_TEST_KEEP_LOGS"/ 2>/dev/null
    log "logs of this run copied to $FLOWBOARD_TEST_KEEP_LOGS"
  fi
  node -e '
    const fs = require("node:fs");
    for (const service of ["gateway", "boards", "membership", "files", "notifier", "webhooks"]) {
      let text = "";
      try { text = fs.readFileSync(`${process.argv[1]}/${service}.log`, "utf8"); } catch { continue; }
      const lines = text
        .split("\n")
        // the retry chatter of kafkajs itself ("component":"kafka") would crowd out the lines of the service
        .filter((l) => /"level":"(warn|error|fatal)"/.test(l) && !/"component":"kafka"/.test(l))
        .slice(-5);
      if (lines.length) console.log(`--- ${service}: last warnings and errors`);
      for (const line of lines) {
        try {
          const e = JSON.parse(line);
          const why = e.err?.message ?? e.error ?? "";
          console.log(`${String(e.time).slice(11, 23)} ${e.level} ${e.msg ?? ""}${why ? `: ${why}` : ""}`.slice(0, 180));
        } catch { console.log(line.slice(0, 180)); }
      }
    }' "$FLOWBOARD_HOME/logs" || true
}

cleanup() {
  local rc=$?
  set +e
  echo
  rc=$(phases_status "$rc")
  ((rc == 0)) || report_service_logs
  if ((SERVICES_STARTED)); then bash deploy/local/services.sh stop; fi
  if ((INFRA_STARTED)); then bash deploy/local/infra.sh stop; fi
  # Our engine, when this run started it (its containers went with the integration tests). Another one stays.
  if ((STOP_ENGINE)); then (source deploy/cluster/lib.sh && if is_running dockerd; then stop_process dockerd 15; fi); fi
  # Anything else with a pid file in the test home (e.g. a Kafka an e2e test restarted, a half-started stack).
  for pidfile in "$RUN_DIR"/*.pid; do [ -e "$pidfile" ] && stop_process "$(basename "$pidfile" .pid)" 10; done
  # The PostgreSQL cluster may live outside the home (see infra.sh pg_dir); the home links to it.
  [ -L "$FLOWBOARD_HOME/postgres" ] && rm -rf "$(readlink "$FLOWBOARD_HOME/postgres")"
  rm -rf "$FLOWBOARD_HOME"
  phases_summary "$rc" Summary "$INTEGRATION_ON"
  rm -rf "$RESULTS"
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

t0=$(now_ms)
ensure_node_deps
ensure_chromium # the e2e browser test of /docs
record_phase deps ok "$t0"

run_phase build npx turbo run build --output-logs=errors-only
run_phase format npx prettier --check . --log-level warn
run_phase lint npm run --silent lint   # the whole tree with one config: sources, tests, scripts
run_phase typecheck npx turbo run typecheck --output-logs=errors-only
run_phase imports npm run --silent check:imports   # no import circles; the layer rules of docs/design.md
run_phase docs node scripts/docs-check.mjs check selftest   # every path, link, npm script and variable the docs name
run_phase chart bash scripts/chart-check.sh
run_phase rules bash scripts/rules-check.sh check selftest   # the chart's alerts (promtool test rules), dashboard queries vs exported metrics
run_phase compose bash scripts/compose-check.sh
run_phase contracts bash scripts/contract-check.sh check selftest   # protos, events, OpenAPI vs contracts/released
# Test tiers run with --continue: every workspace's tests run and count even when one fails.
# --force: a cache hit would replay the logs without running Jest, and its results would be missing here;
# --only: the builds it depends on were just done, don't force those too.
run_phase unit npx turbo run test --only --force --continue

# Where the integration tests get their infrastructure (INTEGRATION_ON, printed with the summary).
if ((EXTERNAL_INFRA)); then
  INTEGRATION_ON="the stack from the environment (DATABASE_URL is set)"
elif [ "${FLOWBOARD_TEST_INTEGRATION:-containers}" = native ]; then
  INTEGRATION_ON="the native stack (FLOWBOARD_TEST_INTEGRATION=native)"
else
  # The engine as the tests' own setup finds it, once for all.
  echo
  log "phase engine: the container engine and images for testcontainers"
  t0=$(now_ms)
  (source deploy/cluster/lib.sh && docker_up) || STOP_ENGINE=1
  if prepare_test_engine; then
    ON_CONTAINERS=1
    record_phase engine ok "$t0"
    INTEGRATION_ON="testcontainers, a container per piece of infrastructure per workspace, on $ENGINE_DESCRIPTION"
  else
    INTEGRATION_ON="the native stack: no container engine could be started (the reason is above)"
    warn "integration tests: falling back to the native stack; no container engine could be started"
  fi
fi
start_infra() {
  ((EXTERNAL_INFRA)) && return 0
  INFRA_STARTED=1
  run_phase infra bash deploy/local/infra.sh start
  # shellcheck source=/dev/null
  source "$FLOWBOARD_HOME/infra.env"
  export DATABASE_URL=$PG_ADMIN_URL   # integration tests connect as the admin and make their own schemas
}
if ((ON_CONTAINERS)); then
  # Two workspaces at a time: each has containers of its own (2m20s instead of 3m50s on 2 cores, 2026-11-25).
  run_phase integration npx turbo run test:integration --concurrency=2 --continue
  start_infra
else
  start_infra
  run_phase integration npx turbo run test:integration --concurrency=1 --continue
fi

SERVICES_STARTED=1
run_phase services bash deploy/local/services.sh start
export GATEWAY_URL=http://127.0.0.1:$FLOWBOARD_GATEWAY_PORT MAILPIT_URL
# The stack's operator token (services.sh made it), for the admin API's e2e tests.
FLOWBOARD_OPERATOR_TOKEN=$(cat "$FLOWBOARD_HOME/operator-token")
export FLOWBOARD_OPERATOR_TOKEN
run_phase e2e npx turbo run e2e --concurrency=1 --continue
# Last: it writes a lot of random data. The served OpenAPI document against the running stack (schemathesis).
run_phase fuzz bash scripts/fuzz.sh
# The backup and restore drill (docs/operations.md): back up the stack, fuzz data and all, wipe it, restore it, check.
run_phase drill bash scripts/backup-drill.sh
