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
REDIS_USER=flowboard   # the services' ACL user when FLOWBOARD_INFRA_SECURE=1

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
  pg_tls "$dir"
  # max_connections: room for the services at two replicas each plus a rolling upgrade's surge pod (the cluster
  # test's scale phase: 4 databases' services × 3 pods × 10 connections), the tests and psql. The chart's budget
  # check is told the same figure (deploy/cluster/values.yaml, postgresql.maxConnections).
  opts="-p $FLOWBOARD_PG_PORT -k $dir -c listen_addresses=$INFRA_HOST -c max_connections=200"
  # Throw-away clusters skip durability; the npm start cluster keeps PostgreSQL's safe defaults.
  [ "$EPHEMERAL" = 1 ] && opts+=" -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  [ "$INFRA_SECURE" = 1 ] && opts+=" -c ssl=on -c ssl_cert_file=$dir/tls/server.crt -c ssl_key_file=$dir/tls/server.key"
  log "postgres: starting on $INFRA_HOST:$FLOWBOARD_PG_PORT"
  as_pg "$bin/pg_ctl" -D "$dir/data" -l "$logfile" -w -t 60 -o "$opts" start >/dev/null \
    || { show_log "$logfile"; return 1; }
}

# initdb trusts loopback only; on another address (the cluster's bridge) trust that network too, as the loopback
# stack does: the services' roles have no passwords. Secure (FLOWBOARD_INFRA_SECURE=1): that network gets TLS and
# SCRAM passwords only (no line matches a connection without TLS, so it is refused); the host's own scripts use the
# Unix socket, still trusted. The other mode's line is removed, so a data dir may switch modes.
pg_allow_infra_net() {  # pg_allow_infra_net <pg_hba.conf>
  [ "$INFRA_HOST" = 127.0.0.1 ] && return 0
  local line="host all all $INFRA_NET trust" other="hostssl all all $INFRA_NET scram-sha-256"
  [ "$INFRA_SECURE" = 1 ] && { other=$line; line="hostssl all all $INFRA_NET scram-sha-256"; }
  as_pg sed -i "\\|^$other\$|d" "$1"
  grep -qxF "$line" "$1" || as_pg sh -c "echo '$line' >>'$1'"
}

# Secure: the server certificate from the shared CA (lib.sh), copied beside the data because PostgreSQL reads its
# key as its own user and insists the key is private to it.
pg_tls() {  # pg_tls <pg dir>
  [ "$INFRA_SECURE" = 1 ] || return 0
  local crt
  crt=$(infra_server_cert postgres)
  mkdir -p "$1/tls"
  install -m 644 "$crt" "$1/tls/server.crt"
  install -m 600 "${crt%.crt}.key" "$1/tls/server.key"
  if [ "$(id -u)" = 0 ]; then chown -R postgres:postgres "$1/tls"; fi
}

# Where the host's own psql reaches the server: the infrastructure's address, or (secure) the Unix socket, which
# needs no password.
pg_host() { if [ "$INFRA_SECURE" = 1 ]; then pg_dir; else echo "$INFRA_HOST"; fi; }

# pg_ctl -w already waited for connections; now the database, roles and schemas. Explicit `return 1`s:
# callers run this as `ready_postgres || die`, where bash ignores `set -e` inside the function.
ready_postgres() {
  local psql svc
  psql=("$(pg_bin)/psql" -h "$(pg_host)" -p "$FLOWBOARD_PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qAt)
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
    # Secure: each role's password (lib.sh's infra_secret), set every start so the file is what counts; through
    # stdin, not argv, so it does not show in ps.
    if [ "$INFRA_SECURE" = 1 ]; then
      "${psql[@]}" -d flowboard >/dev/null <<SQL || return 1
SET client_min_messages = warning;
ALTER ROLE $svc PASSWORD '$(infra_secret "pg-$svc")';
SQL
    fi
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
  # Secure: TLS only (the port speaks nothing else; the certificate from the shared CA, no client certificates) and an
  # ACL user with a password, the passwordless default user off. Both from a config file (root only), so neither the
  # password nor the key's path is in ps.
  local conf=() port=(--port "$FLOWBOARD_REDIS_PORT")
  if [ "$INFRA_SECURE" = 1 ]; then
    local crt
    crt=$(infra_server_cert redis)
    conf=("$FLOWBOARD_HOME/redis/secure.conf")
    port=(--port 0)
    (umask 077 && printf '%s\n' "user default off resetpass" \
      "user $REDIS_USER on >$(infra_secret redis) ~* &* +@all" \
      "tls-port $FLOWBOARD_REDIS_PORT" "tls-cert-file $crt" "tls-key-file ${crt%.crt}.key" \
      "tls-ca-cert-file $(infra_ca)" "tls-auth-clients no" >"${conf[0]}")
  fi
  log "redis: starting on $INFRA_HOST:$FLOWBOARD_REDIS_PORT${conf:+ (TLS, ACL user $REDIS_USER)}"
  start_detached redis "$LOG_DIR/redis.log" redis-server "${conf[@]}" --bind "$INFRA_HOST" "${port[@]}" \
    --daemonize no --dir "$FLOWBOARD_HOME/redis" "${persist[@]}"
}

# redis-cli as the ACL user over TLS when secure (the password through the environment, not argv).
redis_cli() {
  if [ "$INFRA_SECURE" = 1 ]; then
    REDISCLI_AUTH=$(infra_secret redis) redis-cli --tls --cacert "$(infra_ca)" --user "$REDIS_USER" \
      -h "$INFRA_HOST" -p "$FLOWBOARD_REDIS_PORT" "$@"
  else
    redis-cli -h "$INFRA_HOST" -p "$FLOWBOARD_REDIS_PORT" "$@"
  fi
}
redis_pong() { redis_cli ping 2>/dev/null | grep -q PONG; }
ready_redis() { wait_ready redis "$LOG_DIR/redis.log" 30 redis_pong; }
stop_redis() { stop_process redis 10; }   # SIGTERM: Redis writes its append-only file and exits

# ---------------------------------------------------------------------------------------------------------
# Kafka (KRaft, single node) from the cached Maven jars (recipe §4).

KAFKA_LOG_OFFSET=0
# Secure mode (FLOWBOARD_INFRA_SECURE=1): clients authenticate as this SCRAM user (password: lib.sh's infra_secret
# kafka-flowboard) over TLS; the broker talks to itself on a loopback PLAINTEXT listener at this port.
KAFKA_SASL_USER=flowboard
KAFKA_INTERNAL_PORT=${FLOWBOARD_KAFKA_INTERNAL_PORT:-$((FLOWBOARD_KAFKA_PORT + 2))}
running_kafka() { is_running kafka; }

# The client settings of this Kafka (the services' variables): nothing in plain mode; TLS and SCRAM when secure.
kafka_client_env() {
  [ "$INFRA_SECURE" = 1 ] || return 0
  echo "KAFKA_TLS=true"
  echo "KAFKA_SASL_MECHANISM=scram-sha-512"
  echo "KAFKA_SASL_USERNAME=$KAFKA_SASL_USER"
  echo "KAFKA_SASL_PASSWORD=$(infra_secret "kafka-$KAFKA_SASL_USER")"
  echo "NODE_EXTRA_CA_CERTS=$(infra_ca)"
}

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
  local templates=("$here/server.properties") scram=()
  if [ "$INFRA_SECURE" = 1 ]; then
    require_free_port "kafka (broker's loopback listener)" "$KAFKA_INTERNAL_PORT" FLOWBOARD_KAFKA_INTERNAL_PORT 127.0.0.1
    templates+=("$here/server-secure.properties")
    infra_server_cert kafka >/dev/null
    # Both SCRAM mechanisms for the one client user, so either setting of KAFKA_SASL_MECHANISM works.
    scram=(--add-scram "SCRAM-SHA-512=[name=$KAFKA_SASL_USER,password=$(infra_secret "kafka-$KAFKA_SASL_USER")]"
      --add-scram "SCRAM-SHA-256=[name=$KAFKA_SASL_USER,password=$(infra_secret "kafka-$KAFKA_SASL_USER")]")
  fi
  # Root-only when secure (it names the key file); as before otherwise.
  local mask=022
  [ "$INFRA_SECURE" = 1 ] && mask=077
  (umask "$mask" && cat "${templates[@]}" | sed -e "s|@RUN@|$FLOWBOARD_HOME|g" -e "s|@HOST@|$INFRA_HOST|g" \
    -e "s|@PORT@|$FLOWBOARD_KAFKA_PORT|g" -e "s|@CONTROLLER_PORT@|$FLOWBOARD_KAFKA_CONTROLLER_PORT|g" \
    -e "s|@INTERNAL_PORT@|$KAFKA_INTERNAL_PORT|g" -e "s|@KEYSTORE@|$FLOWBOARD_HOME/pki/kafka.pem|g" \
    >"$kdir/server.properties")
  # Opt-in, secure mode only: a second, PLAINTEXT client listener on the same address for clients that predate TLS
  # and SASL (a release before them, during an upgrade: how an operator migrates a Kafka's clients). Unset: none.
  if [ "$INFRA_SECURE" = 1 ] && [ -n "${FLOWBOARD_KAFKA_PLAINTEXT_PORT:-}" ]; then
    require_free_port "kafka (plaintext listener)" "$FLOWBOARD_KAFKA_PLAINTEXT_PORT" FLOWBOARD_KAFKA_PLAINTEXT_PORT
    local p=$FLOWBOARD_KAFKA_PLAINTEXT_PORT i=127.0.0.1:$KAFKA_INTERNAL_PORT
    warn "kafka: FLOWBOARD_KAFKA_PLAINTEXT_PORT: also PLAINTEXT without authentication on $INFRA_HOST:$p"
    printf '%s\n' "listeners=SASL_SSL://$INFRA_HOST:$FLOWBOARD_KAFKA_PORT,LEGACY://$INFRA_HOST:$p,INTERNAL://$i,CONTROLLER://127.0.0.1:$FLOWBOARD_KAFKA_CONTROLLER_PORT" \
      "advertised.listeners=SASL_SSL://$INFRA_HOST:$FLOWBOARD_KAFKA_PORT,LEGACY://$INFRA_HOST:$p,INTERNAL://$i" \
      "listener.security.protocol.map=CONTROLLER:PLAINTEXT,INTERNAL:PLAINTEXT,SASL_SSL:SASL_SSL,LEGACY:PLAINTEXT" \
      >>"$kdir/server.properties"
  fi
  local java_opts=(-Dlog4j2.configurationFile="$here/log4j2.properties" -Dkafka.logs.dir="$LOG_DIR"
    -Djava.awt.headless=true -cp "$KAFKA_HOME/libs/*")
  # Format only a fresh data dir; --ignore-formatted keeps an existing one (and its data) as it is. SCRAM users are
  # written into the metadata log at format time, so a data dir made without them (plain mode) is made again.
  if [ "$INFRA_SECURE" = 1 ] && [ -f "$kdir/data/meta.properties" ] && [ ! -f "$kdir/data/.scram" ]; then
    warn "kafka: $kdir/data has no SCRAM users (formatted in plain mode): formatting it again, its topics are lost"
    rm -rf "$kdir/data"
  fi
  if [ ! -f "$kdir/data/meta.properties" ]; then
    log "kafka: formatting storage in $kdir/data"
    # The password is on this short-lived command line (StorageTool reads it nowhere else); the file is root-only.
    java "${java_opts[@]}" kafka.tools.StorageTool format -t "$(kafka_cluster_id)" \
      -c "$kdir/server.properties" --ignore-formatted "${scram[@]}" >>"$logfile" 2>&1 || { show_log "$logfile"; return 1; }
    if ((${#scram[@]})); then touch "$kdir/data/.scram"; fi
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
    # Secure: through the clients' SASL_SSL listener, as the services connect (TLS verified against the shared CA).
    local client_env
    mapfile -t client_env < <(kafka_client_env)
    env "${client_env[@]}" KAFKA_BROKERS="$INFRA_HOST:$FLOWBOARD_KAFKA_PORT" node "$REPO/deploy/local/kafka/ready.js" \
      || { show_log "$LOG_DIR/kafka.log"; return 1; }
  else
    warn "kafka: kafkajs is not installed (npm ci), so only the broker's log line was checked"
  fi
  if [ "$INFRA_SECURE" = 1 ]; then log "kafka: ready (SASL_SSL, SCRAM user $KAFKA_SASL_USER)"; else log "kafka: ready"; fi
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
  local pg=$PG_URL_BASE admin redis svc secure_lines=""
  local -A db
  admin=postgresql://postgres@$pg
  redis=redis://$INFRA_HOST:$FLOWBOARD_REDIS_PORT
  for svc in "${SERVICE_SCHEMAS[@]}"; do db[$svc]=postgresql://$svc@$pg; done
  if [ "$INFRA_SECURE" = 1 ]; then
    # Passwords, and verify-full against the shared CA (sslrootcert: psql and node-postgres both read it); quoted,
    # for the query's `&`. The admin goes through the Unix socket, which needs no password. The file is then root's.
    for svc in "${SERVICE_SCHEMAS[@]}"; do
      db[$svc]="'postgresql://$svc:$(infra_secret "pg-$svc")@$pg?sslmode=verify-full&sslrootcert=$(infra_ca)'"
    done
    admin="'postgresql://postgres@/flowboard?host=$(pg_dir)&port=$FLOWBOARD_PG_PORT'"
    redis=rediss://$REDIS_USER:$(infra_secret redis)@$INFRA_HOST:$FLOWBOARD_REDIS_PORT
    secure_lines="export FLOWBOARD_INFRA_CA=$(infra_ca)"
    touch "$FLOWBOARD_HOME/infra.env.tmp" && chmod 600 "$FLOWBOARD_HOME/infra.env.tmp"
  fi
  cat >"$FLOWBOARD_HOME/infra.env.tmp" <<EOF
# Written by deploy/local/infra.sh start. Use: source $FLOWBOARD_HOME/infra.env
export PG_ADMIN_URL=$admin
export BOARDS_DATABASE_URL=${db[boards]}
export MEMBERSHIP_DATABASE_URL=${db[membership]}
export FILES_DATABASE_URL=${db[files]}
export WEBHOOKS_DATABASE_URL=${db[webhooks]}
export REDIS_URL=$redis
export KAFKA_BROKERS=$INFRA_HOST:$FLOWBOARD_KAFKA_PORT
export S3_ENDPOINT=http://$INFRA_HOST:$FLOWBOARD_S3_PORT
export S3_REGION=us-east-1
export S3_ACCESS_KEY=$S3_ACCESS_KEY
export S3_SECRET_KEY=$S3_SECRET_KEY
export S3_BUCKET=$S3_BUCKET
export SMTP_URL=smtp://$INFRA_HOST:$FLOWBOARD_SMTP_PORT
export MAILPIT_URL=http://$INFRA_HOST:$FLOWBOARD_MAILPIT_PORT
EOF
  [ -z "$secure_lines" ] || echo "$secure_lines" >>"$FLOWBOARD_HOME/infra.env.tmp"
  # Kafka's TLS and SCRAM settings (none in plain mode), NODE_EXTRA_CA_CERTS included: kafkajs trusts the CA that way.
  kafka_client_env | sed 's/^/export /' >>"$FLOWBOARD_HOME/infra.env.tmp"
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
