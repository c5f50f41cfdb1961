#!/usr/bin/env bash
# The six Flowboard services as plain Node processes against the local infrastructure.
#
#   deploy/local/services.sh start|stop|status
#
# Needs a built repo (npx turbo run build) and running infrastructure (infra.sh start), whose settings come from
# $FLOWBOARD_HOME/infra.env; without that file, the same variables must already be in the environment.
# Logs in $FLOWBOARD_HOME/logs/<service>.log, pid files in $FLOWBOARD_HOME/run.
# FLOWBOARD_NODE_ARGS adds node options NODE_OPTIONS refuses, for profiling (docs/benchmarks.md):
#   FLOWBOARD_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/profiles" deploy/local/services.sh start
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SERVICES=(boards membership files notifier webhooks gateway)   # start order: back ends before the gateway
MIGRATED=(boards membership files webhooks)                    # the services that own a database schema

load_infra_env() {
  if [ -f "$FLOWBOARD_HOME/infra.env" ]; then
    # shellcheck source=/dev/null
    source "$FLOWBOARD_HOME/infra.env"
  fi
  local v missing=()
  for v in BOARDS_DATABASE_URL MEMBERSHIP_DATABASE_URL FILES_DATABASE_URL WEBHOOKS_DATABASE_URL REDIS_URL \
    KAFKA_BROKERS S3_ENDPOINT S3_REGION S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET SMTP_URL; do
    [ -n "${!v:-}" ] || missing+=("$v")
  done
  ((${#missing[@]} == 0)) || die "no infrastructure settings (${missing[*]}): run deploy/local/infra.sh start first"
}

# The gateway's operator token (PUT /api/v1/admin/...): random, made once per stack home, readable by its owner only.
OPERATOR_TOKEN_FILE=$FLOWBOARD_HOME/operator-token
operator_token() {
  if [ ! -s "$OPERATOR_TOKEN_FILE" ]; then
    mkdir -p "$FLOWBOARD_HOME"
    (umask 077 && node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("hex"))' >"$OPERATOR_TOKEN_FILE")
  fi
  cat "$OPERATOR_TOKEN_FILE"
}

# The webhooks service's SECRET_ENCRYPTION_KEY, which seals the webhooks' signing secrets in its database: made once
# per stack home like the operator token, and kept with the data (a new key would make every stored secret unusable).
WEBHOOKS_KEY_FILE=$FLOWBOARD_HOME/webhooks-secret-key
webhooks_secret_key() {
  if [ ! -s "$WEBHOOKS_KEY_FILE" ]; then
    mkdir -p "$FLOWBOARD_HOME"
    (umask 077 && node -e 'process.stdout.write(require("node:crypto").randomBytes(32).toString("base64"))' >"$WEBHOOKS_KEY_FILE")
  fi
  cat "$WEBHOOKS_KEY_FILE"
}

# The environment of one service: exactly what it is configured with, nothing inherited by accident.
service_env() {  # service_env <service>: sets SVC_ENV
  SVC_ENV=(PATH="$PATH" HOME="$HOME" LOG_LEVEL="${LOG_LEVEL:-info}")
  [ -n "${NODE_ENV:-}" ] && SVC_ENV+=(NODE_ENV="$NODE_ENV")
  [ -n "${NODE_OPTIONS:-}" ] && SVC_ENV+=(NODE_OPTIONS="$NODE_OPTIONS")
  # Tracing is configured by the standard OTEL_* variables only (off unless they ask for an exporter).
  local otel
  while IFS= read -r otel; do SVC_ENV+=("$otel"); done < <(env | grep '^OTEL_' || true)
  SVC_ENV+=(METRICS_PORT="$(metrics_port "$1")")
  case $1 in
    boards) SVC_ENV+=(GRPC_PORT="$FLOWBOARD_BOARDS_PORT" DATABASE_URL="$BOARDS_DATABASE_URL"
      KAFKA_BROKERS="$KAFKA_BROKERS") ;;
    membership) SVC_ENV+=(GRPC_PORT="$FLOWBOARD_MEMBERSHIP_PORT" DATABASE_URL="$MEMBERSHIP_DATABASE_URL"
      KAFKA_BROKERS="$KAFKA_BROKERS") ;;
    files) SVC_ENV+=(GRPC_PORT="$FLOWBOARD_FILES_PORT" HTTP_PORT="$FLOWBOARD_FILES_HTTP_PORT"
      DATABASE_URL="$FILES_DATABASE_URL" S3_ENDPOINT="$S3_ENDPOINT" S3_REGION="$S3_REGION"
      S3_ACCESS_KEY="$S3_ACCESS_KEY" S3_SECRET_KEY="$S3_SECRET_KEY" S3_BUCKET="$S3_BUCKET"
      KAFKA_BROKERS="$KAFKA_BROKERS"
      MAX_FILE_BYTES="${FLOWBOARD_MAX_FILE_BYTES:-104857600}") ;;  # raise it for `npm run bench:upload` (200 MB)
    webhooks) SVC_ENV+=(GRPC_PORT="$FLOWBOARD_WEBHOOKS_PORT" DATABASE_URL="$WEBHOOKS_DATABASE_URL"
      KAFKA_BROKERS="$KAFKA_BROKERS" SECRET_ENCRYPTION_KEY="$(webhooks_secret_key)"
      # Loopback receivers (a developer's, the e2e tests') are allowed on this development stack only; elsewhere
      # webhooks reach public addresses only, as FLOWBOARD_WEBHOOK_ALLOWED_HOSTS= (empty) makes it here too.
      WEBHOOK_ALLOWED_HOSTS="${FLOWBOARD_WEBHOOK_ALLOWED_HOSTS-127.0.0.1,::1}"
      MEMBERSHIP_ADDR="127.0.0.1:$FLOWBOARD_MEMBERSHIP_PORT") ;;
    notifier) SVC_ENV+=(HTTP_PORT="$FLOWBOARD_NOTIFIER_PORT" KAFKA_BROKERS="$KAFKA_BROKERS"
      REDIS_URL="$REDIS_URL" SMTP_URL="$SMTP_URL"
      # The local mail sink answers in milliseconds: a send killed midway may be retried after 15 s (not 120 s),
      # and retries during an outage wait at most 10 s (not 60 s).
      DEDUPE_PENDING_TTL_SECONDS=15 RETRY_MAX_MS=10000) ;;
    gateway) SVC_ENV+=(PORT="$FLOWBOARD_GATEWAY_PORT" REDIS_URL="$REDIS_URL"
      BOARDS_ADDR="127.0.0.1:$FLOWBOARD_BOARDS_PORT" MEMBERSHIP_ADDR="127.0.0.1:$FLOWBOARD_MEMBERSHIP_PORT"
      FILES_ADDR="127.0.0.1:$FLOWBOARD_FILES_PORT" FILES_HTTP_URL="http://127.0.0.1:$FLOWBOARD_FILES_HTTP_PORT"
      WEBHOOKS_ADDR="127.0.0.1:$FLOWBOARD_WEBHOOKS_PORT"
      KAFKA_BROKERS="$KAFKA_BROKERS"   # the change stream (GET /api/v1/projects/{id}/events)
      OPERATOR_TOKEN="$(operator_token)"
      TRUST_PROXY=loopback) ;;  # local callers may name a client address (the rate-limit e2e test does)
  esac
}

# The Prometheus /metrics port of a service.
metrics_port() {
  local var
  var=FLOWBOARD_$(echo "$1" | tr '[:lower:]' '[:upper:]')_METRICS_PORT
  echo "${!var}"
}

# Ports a service listens on, as "port:ENV_VAR" pairs (for the free-port check and the listing).
service_ports() {
  local metrics
  metrics="$(metrics_port "$1"):FLOWBOARD_$(echo "$1" | tr '[:lower:]' '[:upper:]')_METRICS_PORT"
  case $1 in
    boards) echo "$FLOWBOARD_BOARDS_PORT:FLOWBOARD_BOARDS_PORT $metrics" ;;
    membership) echo "$FLOWBOARD_MEMBERSHIP_PORT:FLOWBOARD_MEMBERSHIP_PORT $metrics" ;;
    files) echo "$FLOWBOARD_FILES_PORT:FLOWBOARD_FILES_PORT $FLOWBOARD_FILES_HTTP_PORT:FLOWBOARD_FILES_HTTP_PORT $metrics" ;;
    webhooks) echo "$FLOWBOARD_WEBHOOKS_PORT:FLOWBOARD_WEBHOOKS_PORT $metrics" ;;
    notifier) echo "$FLOWBOARD_NOTIFIER_PORT:FLOWBOARD_NOTIFIER_PORT $metrics" ;;
    gateway) echo "$FLOWBOARD_GATEWAY_PORT:FLOWBOARD_GATEWAY_PORT $metrics" ;;
  esac
}

# Ready = the HTTP services answer /readyz with 200, the gRPC (and files' HTTP) ports accept connections.
service_ready() {
  case $1 in
    gateway) http_ok "http://127.0.0.1:$FLOWBOARD_GATEWAY_PORT/readyz" ;;
    notifier) http_ok "http://127.0.0.1:$FLOWBOARD_NOTIFIER_PORT/readyz" ;;
    files) port_in_use "$FLOWBOARD_FILES_PORT" 127.0.0.1 && port_in_use "$FLOWBOARD_FILES_HTTP_PORT" 127.0.0.1 ;;
    boards) port_in_use "$FLOWBOARD_BOARDS_PORT" 127.0.0.1 ;;
    membership) port_in_use "$FLOWBOARD_MEMBERSHIP_PORT" 127.0.0.1 ;;
    webhooks) port_in_use "$FLOWBOARD_WEBHOOKS_PORT" 127.0.0.1 ;;
  esac
}

migrate() {  # migrate <service>: the service's own migrations, as its own database role
  local svc=$1 script=$REPO/services/$1/dist/db/migrate.js logfile=$LOG_DIR/$1.log
  [ -f "$script" ] || die "$svc: $script is missing; build first: npx turbo run build"
  service_env "$svc"
  log "$svc: running migrations"
  if ! (cd "$REPO/services/$svc" && env -i "${SVC_ENV[@]}" node "$script") >>"$logfile" 2>&1; then
    echo "error: $svc: migrations failed" >&2
    show_log "$logfile"
    exit 1
  fi
}

cmd_start() {
  load_infra_env
  mkdir -p "$RUN_DIR" "$LOG_DIR"
  local svc pair started=()
  for svc in "${SERVICES[@]}"; do
    if is_running "$svc"; then
      log "$svc: already running (pid $(pid_of "$svc"))"
      continue
    fi
    [ -f "$REPO/services/$svc/dist/main.js" ] || die "$svc: services/$svc/dist/main.js is missing; build first: npx turbo run build"
    for pair in $(service_ports "$svc"); do require_free_port "$svc" "${pair%%:*}" "${pair#*:}" 127.0.0.1; done
    started+=("$svc")
  done
  ((${#started[@]})) || return 0

  # Schemas first, so no service ever runs against an old one.
  for svc in "${MIGRATED[@]}"; do
    [[ " ${started[*]} " == *" $svc "* ]] && migrate "$svc"
  done
  for svc in "${started[@]}"; do
    service_env "$svc"
    log "$svc: starting on 127.0.0.1:$(service_ports "$svc" | sed 's/:[A-Z_]*//g; s/ /, /g')"
    # cwd = the service's folder, as `npm start` in that workspace would have it.
    (cd "$REPO/services/$svc" && start_detached "$svc" "$LOG_DIR/$svc.log" env -i "${SVC_ENV[@]}" \
      node ${FLOWBOARD_NODE_ARGS:-} dist/main.js)
  done
  for svc in "${started[@]}"; do
    wait_ready "$svc" "$LOG_DIR/$svc.log" 60 service_ready "$svc" || die "$svc failed to start (npm stop cleans up)"
    log "$svc: ready"
  done
}

cmd_stop() {
  local i
  for ((i = ${#SERVICES[@]} - 1; i >= 0; i--)); do stop_process "${SERVICES[i]}" 15; done
}

cmd_status() {
  local svc
  for svc in "${SERVICES[@]}"; do
    if is_running "$svc"; then
      printf '%-10s running (pid %s) on 127.0.0.1:%s\n' "$svc" "$(pid_of "$svc")" \
        "$(service_ports "$svc" | sed 's/:[A-Z_]*//g; s/ /, /g')"
    else
      printf '%-10s stopped\n' "$svc"
    fi
  done
}

case ${1:-} in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  *) die "usage: $0 start|stop|status" ;;
esac
