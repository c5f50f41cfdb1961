#!/usr/bin/env bash
# Local infrastructure without Docker: PostgreSQL, Redis, Kafka, MinIO (S3) and a Mailpit-compatible mail sink,
# as plain processes on 127.0.0.1 (or $FLOWBOARD_INFRA_HOST: see lib.sh).
#
#   deploy/local/infra.sh start|stop|status [postgres redis kafka minio mail]   (default: all)
#
# Data in $FLOWBOARD_HOME/<component>, logs in $FLOWBOARD_HOME/logs, pid files in $FLOWBOARD_HOME/run.
# FLOWBOARD_EPHEMERAL=1 (tests) trades durability for speed; otherwise data survives stop/start.
# After `start`, $FLOWBOARD_HOME/infra.env holds the connection settings (`source` it).
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ALL=(postgres redis kafka minio mail)
PG_URL_BASE=$INFRA_HOST:$FLOWBOARD_PG_PORT/flowboard
S3_ACCESS_KEY=flowboard
S3_SECRET_KEY=flowboard-secret   # MinIO wants >= 8 characters
S3_BUCKET=flowboard-attachments
SERVICE_SCHEMAS=(boards membership files webhooks)   # one role + schema per service, in one database

# ---------------------------------------------------------------------------------------------------------
# PostgreSQL: its binaries refuse to run as root, so they run as `postgres` via runuser; pg_ctl drives our own
# data dir and port, no systemd needed.

as_pg() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

# The postgres user must reach its data dir. Under a home it cannot traverse (e.g. /root, mode 700) we do not
# loosen the home's permissions; the cluster lives in /var/tmp instead, keyed by FLOWBOARD_HOME, with a symlink
# from $FLOWBOARD_HOME/postgres for humans. Unix-socket paths are limited to 107 bytes, hence the length check.
pg_dir() {
  local dir=$FLOWBOARD_HOME/postgres
  if { [ "$(id -u)" = 0 ] && ! runuser -u postgres -- test -x "$FLOWBOARD_HOME" 2>/dev/null; } || ((${#dir} > 80)); then
    dir=/var/tmp/flowboard-pg-$(printf %s "$FLOWBOARD_HOME" | sha1sum | cut -c1-12)
  fi
  echo "$dir"
}

running_postgres() {
  local dir
  dir=$(pg_dir)
  [ -f "$dir/data/PG_VERSION" ] && as_pg "$(pg_bin)/pg_ctl" -D "$dir/data" status >/dev/null 2>&1
}

launch_postgres() {
  ensure_postgres
  local bin dir logfile=$LOG_DIR/postgres.log opts
  bin=$(pg_bin)
  dir=$(pg_dir)
  require_free_port postgres "$FLOWBOARD_PG_PORT" FLOWBOARD_PG_PORT
  mkdir -p "$dir"
  if [ "$dir" != "$FLOWBOARD_HOME/postgres" ]; then
    # Relocated: the server log must be writable by postgres too, so it lives beside the data; symlinks
    # keep the usual paths working for humans.
    logfile=$dir/postgres.log
    ln -sfn "$dir" "$FLOWBOARD_HOME/postgres"
    ln -sfn "$logfile" "$LOG_DIR/postgres.log"
  fi
  touch "$logfile"
  if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$dir" "$logfile"; fi
  if [ ! -f "$dir/data/PG_VERSION" ]; then
    log "postgres: initdb in $dir/data"
    local nosync=()
    [ "$EPHEMERAL" = 1 ] && nosync=(--no-sync)
    as_pg "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --locale=C.UTF-8 "${nosync[@]}" \
      >>"$logfile" 2>&1 || { show_log "$logfile"; return 1; }
  fi
  pg_allow_infra_net "$dir/data/pg_hba.conf"
  # max_connections: room for the services at two replicas each plus a rolling upgrade's surge pod (the cluster
  # test's scale phase: 4 databases' services × 3 pods × 10 connections), the tests and psql. The chart's budget
  # check is told the same figure (deploy/cluster/values.yaml, postgresql.maxConnections).
  opts="-p $FLOWBOARD_PG_PORT -k $dir -c listen_addresses=$INFRA_HOST -c max_connections=200"
  # Throw-away clusters skip durability; the npm start cluster keeps PostgreSQL's safe defaults.
  [ "$EPHEMERAL" = 1 ] && opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  log "postgres: starting on $INFRA_HOST:$FLOWBOARD_PG_PORT"
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$logfile" -w -t 60 -o "$opts" start >/dev/null \
    || { show_log "$logfile"; return 1; }
}

# initdb trusts loopback only; on another address (the cluster's bridge) trust that network too, as the loopback
# stack does: the services' roles have no passwords.
pg_allow_infra_net() {  # pg_allow_infra_net <pg_hba.conf>
  [ "$INFRA_HOST" = 127.0.0.1 ] && return 0
  local line="host all all $INFRA_NET trust"
  grep -qxF "$line" "$1" || as_pg sh -c "echo '$line' >>'$1'"
}

# pg_ctl -w already waited for connections; now the database, roles and schemas. Explicit `return 1`s:
# callers run this as `ready_postgres || die`, where bash ignores `set -e` inside the function.
ready_postgres() {
  local psql svc
  psql=("$(pg_bin)/psql" -h "$INFRA_HOST" -p "$FLOWBOARD_PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qAt)
  "${psql[@]}" -d postgres -c "SELECT 1 FROM pg_database WHERE datname = 'flowboard'" | grep -q 1 \
    || "${psql[@]}" -d postgres -c 'CREATE DATABASE flowboard' || return 1
  for svc in "${SERVICE_SCHEMAS[@]}"; do
    "${psql[@]}" -d flowboard >/dev/null <<SQL || return 1
SET client_min_messages = warning;
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$svc') THEN CREATE ROLE $svc LOGIN; END IF;
END \$\$;
CREATE SCHEMA IF NOT EXISTS $svc AUTHORIZATION $svc;
SQL
  done
  log "postgres: database flowboard ready (roles and schemas: ${SERVICE_SCHEMAS[*]})"
}

stop_postgres() {
  local dir
  dir=$(pg_dir)
  if running_postgres; then
    log "postgres: stopping"
    as_pg "$(pg_bin)/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null \
      || { warn "postgres: pg_ctl stop failed; killing the postmaster"; kill -KILL "$(head -1 "$dir/data/postmaster.pid")" 2>/dev/null || true; }
  fi
}

# ---------------------------------------------------------------------------------------------------------
# Redis: in the foreground of its own process group, so the generic pid-file control applies.

running_redis() { is_running redis; }

launch_redis() {
  ensure_redis
  require_free_port redis "$FLOWBOARD_REDIS_PORT" FLOWBOARD_REDIS_PORT
  mkdir -p "$FLOWBOARD_HOME/redis"
  local persist=(--appendonly yes)   # npm start: sessions and caches survive a restart
  [ "$EPHEMERAL" = 1 ] && persist=(--save "" --appendonly no)
  # Protected mode refuses every non-loopback client of a server without a password; the one other address we ever
  # listen on is the cluster's pod bridge, private to this machine, whose pods are the clients.
  [ "$INFRA_HOST" = 127.0.0.1 ] || persist+=(--protected-mode no)
  log "redis: starting on $INFRA_HOST:$FLOWBOARD_REDIS_PORT"
  start_detached redis "$LOG_DIR/redis.log" redis-server --bind "$INFRA_HOST" --port "$FLOWBOARD_REDIS_PORT" \
    --daemonize no --dir "$FLOWBOARD_HOME/redis" "${persist[@]}"
}

redis_pong() { redis-cli -h "$INFRA_HOST" -p "$FLOWBOARD_REDIS_PORT" ping 2>/dev/null | grep -q PONG; }
ready_redis() { wait_ready redis "$LOG_DIR/redis.log" 30 redis_pong; }
stop_redis() { stop_process redis 10; }   # SIGTERM: Redis writes its append-only file and exits

# ---------------------------------------------------------------------------------------------------------
# Kafka (KRaft, single node) from the cached Maven jars (recipe §4).

KAFKA_LOG_OFFSET=0
running_kafka() { is_running kafka; }

# A KRaft cluster id is 16 random bytes in unpadded base64url; Kafka never hands out ids starting with '-'.
kafka_cluster_id() {
  local id
  until id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '='); [[ $id != -* ]]; do :; done
  echo "$id"
}

launch_kafka() {
  ensure_kafka
  require_free_port kafka "$FLOWBOARD_KAFKA_PORT" FLOWBOARD_KAFKA_PORT
  require_free_port "kafka controller" "$FLOWBOARD_KAFKA_CONTROLLER_PORT" FLOWBOARD_KAFKA_CONTROLLER_PORT 127.0.0.1
  local kdir=$FLOWBOARD_HOME/kafka logfile=$LOG_DIR/kafka.log here
  here=$REPO/deploy/local/kafka
  mkdir -p "$kdir"
  sed -e "s|@RUN@|$FLOWBOARD_HOME|g" -e "s|@HOST@|$INFRA_HOST|g" -e "s|@PORT@|$FLOWBOARD_KAFKA_PORT|g" \
    -e "s|@CONTROLLER_PORT@|$FLOWBOARD_KAFKA_CONTROLLER_PORT|g" "$here/server.properties" >"$kdir/server.properties"
  local java_opts=(-Dlog4j2.configurationFile="$here/log4j2.properties" -Dkafka.logs.dir="$LOG_DIR"
    -Djava.awt.headless=true -cp "$KAFKA_HOME/libs/*")
  # Format only a fresh data dir; --ignore-formatted keeps an existing one (and its data) as it is.
  if [ ! -f "$kdir/data/meta.properties" ]; then
    log "kafka: formatting storage in $kdir/data"
    java "${java_opts[@]}" kafka.tools.StorageTool format -t "$(kafka_cluster_id)" \
      -c "$kdir/server.properties" --ignore-formatted >>"$logfile" 2>&1 || { show_log "$logfile"; return 1; }
  fi
  # Remember where this run's output starts, so an old "Kafka Server started" line cannot fool the wait.
  KAFKA_LOG_OFFSET=$(stat -c %s "$logfile" 2>/dev/null || echo 0)
  log "kafka: starting on $INFRA_HOST:$FLOWBOARD_KAFKA_PORT (controller $FLOWBOARD_KAFKA_CONTROLLER_PORT)"
  start_detached kafka "$logfile" java -Xms512m -Xmx512m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    "${java_opts[@]}" kafka.Kafka "$kdir/server.properties"
}

kafka_started() { tail -c "+$((KAFKA_LOG_OFFSET + 1))" "$LOG_DIR/kafka.log" | grep -q 'Kafka Server started'; }

ready_kafka() {
  wait_ready kafka "$LOG_DIR/kafka.log" 90 kafka_started || return 1
  # The log line comes before the group coordinator can serve: probe with a real client (kafkajs).
  if (cd "$REPO" && node -e "require.resolve('kafkajs')" 2>/dev/null); then
    KAFKA_BROKERS=$INFRA_HOST:$FLOWBOARD_KAFKA_PORT node "$REPO/deploy/local/kafka/ready.js" \
      || { show_log "$LOG_DIR/kafka.log"; return 1; }
  else
    warn "kafka: kafkajs is not installed (npm ci), so only the broker's log line was checked"
  fi
  log "kafka: ready"
}

stop_kafka() { stop_process kafka 30; }   # SIGTERM = controlled shutdown, a few seconds

# ---------------------------------------------------------------------------------------------------------
# S3: MinIO built from source with `go install` (recipe §5); S3Proxy on the JVM when that build fails, or
# when FLOWBOARD_S3_IMPL=s3proxy. Both run under the component name `minio` and serve the same S3 API.

running_minio() { is_running minio; }

launch_minio() {
  require_free_port minio "$FLOWBOARD_S3_PORT" FLOWBOARD_S3_PORT
  local data=$FLOWBOARD_HOME/minio logfile=$LOG_DIR/minio.log minio=""
  if [ "${FLOWBOARD_S3_IMPL:-minio}" = minio ]; then
    minio=$(ensure_go_tool minio "$MINIO_MODULE") || warn "minio: build failed; falling back to S3Proxy"
  fi
  if [ -n "$minio" ]; then
    require_free_port "minio console" "$FLOWBOARD_S3_CONSOLE_PORT" FLOWBOARD_S3_CONSOLE_PORT
    mkdir -p "$data"
    log "minio: starting on $INFRA_HOST:$FLOWBOARD_S3_PORT"
    start_detached minio "$logfile" env MINIO_ROOT_USER="$S3_ACCESS_KEY" MINIO_ROOT_PASSWORD="$S3_SECRET_KEY" \
      MINIO_BROWSER=off MINIO_UPDATE=off "$minio" server "$data" --address "$INFRA_HOST:$FLOWBOARD_S3_PORT" \
      --console-address "$INFRA_HOST:$FLOWBOARD_S3_CONSOLE_PORT" --quiet
  else
    ensure_s3proxy
    data=$FLOWBOARD_HOME/s3proxy   # plain files, not MinIO's on-disk format: keep the two apart
    mkdir -p "$data"
    sed -e "s|@PORT@|$FLOWBOARD_S3_PORT|g" -e "s|@DATA@|$data|g" \
      "$REPO/deploy/local/s3proxy/s3proxy.properties" >"$FLOWBOARD_HOME/s3proxy.properties"
    log "minio: starting S3Proxy $S3PROXY_VERSION (fallback) on $INFRA_HOST:$FLOWBOARD_S3_PORT"
    start_detached minio "$logfile" java -Xmx256m -Dlogback.configurationFile="$REPO/deploy/local/s3proxy/logback.xml" \
      -cp "$S3PROXY_HOME/libs/*" org.gaul.s3proxy.Main \
      --properties "$FLOWBOARD_HOME/s3proxy.properties"
  fi
}

# Any HTTP answer (even 403 to an unsigned request) means the S3 server is up; MinIO also has a health URL.
s3_up() {
  http_ok "http://$INFRA_HOST:$FLOWBOARD_S3_PORT/minio/health/live" \
    || curl -s -o /dev/null --max-time 2 -w '%{http_code}' "http://$INFRA_HOST:$FLOWBOARD_S3_PORT/" | grep -q '^[2-4]'
}

# Creates the bucket with a SigV4-signed PUT (curl signs it itself): 200 new, 409 already there. The payload
# hash header (SHA-256 of the empty body) is one curl does not add by itself and S3Proxy insists on.
s3_bucket() {
  local code
  code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --aws-sigv4 'aws:amz:us-east-1:s3' \
    -H 'x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855' \
    --user "$S3_ACCESS_KEY:$S3_SECRET_KEY" "http://$INFRA_HOST:$FLOWBOARD_S3_PORT/$S3_BUCKET")
  [[ $code == 200 || $code == 409 ]]
}

ready_minio() {
  wait_ready minio "$LOG_DIR/minio.log" 60 s3_up || return 1
  wait_for 15 "bucket $S3_BUCKET" s3_bucket || { show_log "$LOG_DIR/minio.log"; return 1; }
  log "minio: ready, bucket $S3_BUCKET"
}

stop_minio() { stop_process minio 10; }

# ---------------------------------------------------------------------------------------------------------
# Mail: packages/mail-sink speaks SMTP and Mailpit's REST API (Mailpit itself is not on the module proxy).

running_mail() { is_running mail; }

launch_mail() {
  local main=$REPO/packages/mail-sink/dist/main.js store=()
  [ -f "$main" ] || die "mail: $main is missing; build it first: npx turbo run build --filter=@flowboard/mail-sink"
  require_free_port "mail (SMTP)" "$FLOWBOARD_SMTP_PORT" FLOWBOARD_SMTP_PORT
  require_free_port "mail (HTTP)" "$FLOWBOARD_MAILPIT_PORT" FLOWBOARD_MAILPIT_PORT
  mkdir -p "$FLOWBOARD_HOME/mail"
  [ "$EPHEMERAL" = 1 ] || store=(MAILSINK_STORE="$FLOWBOARD_HOME/mail/messages.json")
  log "mail: starting SMTP on $INFRA_HOST:$FLOWBOARD_SMTP_PORT, REST on $INFRA_HOST:$FLOWBOARD_MAILPIT_PORT"
  start_detached mail "$LOG_DIR/mail.log" env MAILSINK_HOST="$INFRA_HOST" MAILSINK_SMTP_PORT="$FLOWBOARD_SMTP_PORT" \
    MAILSINK_HTTP_PORT="$FLOWBOARD_MAILPIT_PORT" "${store[@]}" node "$main"
}

ready_mail() { wait_ready mail "$LOG_DIR/mail.log" 30 http_ok "http://$INFRA_HOST:$FLOWBOARD_MAILPIT_PORT/readyz"; }
stop_mail() { stop_process mail 5; }

# ---------------------------------------------------------------------------------------------------------

write_env() {  # connection settings for services.sh, tests and humans
  local pg=$PG_URL_BASE
  cat >"$FLOWBOARD_HOME/infra.env.tmp" <<EOF
# Written by deploy/local/infra.sh start. Use: source $FLOWBOARD_HOME/infra.env
export PG_ADMIN_URL=postgresql://postgres@$pg
export BOARDS_DATABASE_URL=postgresql://boards@$pg
export MEMBERSHIP_DATABASE_URL=postgresql://membership@$pg
export FILES_DATABASE_URL=postgresql://files@$pg
export WEBHOOKS_DATABASE_URL=postgresql://webhooks@$pg
export REDIS_URL=redis://$INFRA_HOST:$FLOWBOARD_REDIS_PORT
export KAFKA_BROKERS=$INFRA_HOST:$FLOWBOARD_KAFKA_PORT
export S3_ENDPOINT=http://$INFRA_HOST:$FLOWBOARD_S3_PORT
export S3_REGION=us-east-1
export S3_ACCESS_KEY=$S3_ACCESS_KEY
export S3_SECRET_KEY=$S3_SECRET_KEY
export S3_BUCKET=$S3_BUCKET
export SMTP_URL=smtp://$INFRA_HOST:$FLOWBOARD_SMTP_PORT
export MAILPIT_URL=http://$INFRA_HOST:$FLOWBOARD_MAILPIT_PORT
EOF
  mv "$FLOWBOARD_HOME/infra.env.tmp" "$FLOWBOARD_HOME/infra.env"
}

port_of() {
  case $1 in
    postgres) echo "$FLOWBOARD_PG_PORT" ;; redis) echo "$FLOWBOARD_REDIS_PORT" ;;
    kafka) echo "$FLOWBOARD_KAFKA_PORT" ;; minio) echo "$FLOWBOARD_S3_PORT" ;;
    mail) echo "$FLOWBOARD_SMTP_PORT/$FLOWBOARD_MAILPIT_PORT" ;;
  esac
}

cmd_start() {
  mkdir -p "$FLOWBOARD_HOME" "$RUN_DIR" "$LOG_DIR"
  chmod 755 "$FLOWBOARD_HOME"   # PostgreSQL runs as another user and must traverse it
  local c launched=() order=()
  # Kafka first: its JVM is the slow one, so it warms up while the others start.
  for c in kafka "$@"; do [[ " $* " == *" $c "* && " ${order[*]} " != *" $c "* ]] && order+=("$c"); done
  for c in "${order[@]}"; do
    if "running_$c"; then
      log "$c: already running on $INFRA_HOST:$(port_of "$c")"
    else
      "launch_$c"
      launched+=("$c")
    fi
  done
  # Readiness in the given order, Kafka last for the same reason.
  for c in "$@"; do
    [[ " ${launched[*]} " == *" $c "* && $c != kafka ]] && { "ready_$c" || die "$c failed to start (npm stop cleans up)"; }
  done
  [[ " ${launched[*]} " == *" kafka "* ]] && { ready_kafka || die "kafka failed to start (npm stop cleans up)"; }
  # postgres already running: make sure its database, roles and schemas exist anyway (cheap, idempotent).
  [[ " $* " == *" postgres "* && " ${launched[*]} " != *" postgres "* ]] && ready_postgres >/dev/null
  write_env
  log "infra: settings in $FLOWBOARD_HOME/infra.env"
}

cmd_stop() {
  local i
  for ((i = $# ; i >= 1 ; i--)); do "stop_${!i}"; done
}

cmd_status() {
  local c state
  for c in "$@"; do
    if "running_$c"; then state="running on $INFRA_HOST:$(port_of "$c")"; else state=stopped; fi
    printf '%-9s %s\n' "$c" "$state"
  done
}

main() {
  local cmd=${1:-} c
  shift || true
  local comps=("$@")
  ((${#comps[@]})) || comps=("${ALL[@]}")
  for c in "${comps[@]}"; do [[ " ${ALL[*]} " == *" $c "* ]] || die "unknown component '$c' (one of: ${ALL[*]})"; done
  # Keep the canonical order whatever order the arguments came in (stop runs it backwards).
  local ordered=()
  for c in "${ALL[@]}"; do [[ " ${comps[*]} " == *" $c "* ]] && ordered+=("$c"); done
  case $cmd in
    start) cmd_start "${ordered[@]}" ;;
    stop) cmd_stop "${ordered[@]}" ;;
    status) cmd_status "${ordered[@]}" ;;
    *) die "usage: $0 start|stop|status [${ALL[*]}]" ;;
  esac
}

main "$@"
