#!/usr/bin/env bash
# `npm start`: the whole product on this machine, without Docker. Idempotent: a second run reports what is
# already running. Data persists in $FLOWBOARD_HOME (default .flowboard/) until you delete it; `npm stop` stops.
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO"
t0=$(now_ms)

ensure_node_deps
log "build: npx turbo run build"
npx turbo run build --output-logs=errors-only
bash deploy/local/infra.sh start
bash deploy/local/services.sh start

cat <<EOF_INFO

Flowboard is running ($(( ($(now_ms) - t0) / 1000 ))s).
  Gateway (REST API)           http://127.0.0.1:$FLOWBOARD_GATEWAY_PORT
  Mail (Mailpit-compatible)    http://127.0.0.1:$FLOWBOARD_MAILPIT_PORT/api/v1/messages
  Metrics (Prometheus)         http://127.0.0.1:{$FLOWBOARD_GATEWAY_METRICS_PORT,$FLOWBOARD_MEMBERSHIP_METRICS_PORT,$FLOWBOARD_BOARDS_METRICS_PORT,$FLOWBOARD_FILES_METRICS_PORT,$FLOWBOARD_NOTIFIER_METRICS_PORT,$FLOWBOARD_WEBHOOKS_METRICS_PORT}/metrics
                               (gateway, membership, boards, files, notifier, webhooks)
  Logs                         $LOG_DIR/
  Data                         $FLOWBOARD_HOME/
  Operator token (admin API)   $FLOWBOARD_HOME/operator-token
  Webhook secrets' sealing key $FLOWBOARD_HOME/webhooks-secret-key (keep it with the data)
  Status                       bash deploy/local/infra.sh status; bash deploy/local/services.sh status
  Stop                         npm stop

Sign up a first user:
  curl -s -X POST http://127.0.0.1:$FLOWBOARD_GATEWAY_PORT/api/v1/users -H 'Content-Type: application/json' -d '{"userName":"alice","email":"alice@example.test"}'
EOF_INFO
