#!/usr/bin/env bash
# Backup and restore of the local stack's state (docs/operations.md, "Backup and restore"):
#
#   deploy/local/backup.sh backup <dir>              the running stack's state into <dir> (new or empty)
#   deploy/local/backup.sh restore [--force] <dir>   that state back into a stack whose services are stopped
#
# What a backup holds: one pg_dump per service schema (boards, membership, files, webhooks; each service owns its
# schema and could have a server of its own), every object of the attachments bucket, the webhooks service's sealing
# key ($FLOWBOARD_HOME/webhooks-secret-key, made by services.sh) and manifest.json (what, when, size and sha256 of
# every file). The four dumps share one snapshot of the database, taken before the bucket is copied: every attachment
# row of the dumps then has its object (an object without a row, uploaded during the copy, is harmless: the files
# service's sweeper removes it). Redis and Kafka are not backed up: the document says what losing them costs.
#
# restore checks the manifest's checksums first, then refuses to write over a schema with data (rows outside its
# `migrations` table), a non-empty bucket or another sealing key unless --force; empty schemas are dropped and
# replaced. The services' roles must exist (infra.sh start makes them). Settings from $FLOWBOARD_HOME/infra.env,
# as services.sh reads them; PostgreSQL's client tools are the server's (lib.sh pg_bin).
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

SCHEMAS=(boards membership files webhooks)                   # infra.sh SERVICE_SCHEMAS
SERVICES=(boards membership files notifier webhooks gateway) # services.sh SERVICES
WEBHOOKS_KEY_FILE=$FLOWBOARD_HOME/webhooks-secret-key        # services.sh webhooks_secret_key
HELPER=$REPO/deploy/local/backup.mjs                         # the bucket and the manifest

load_settings() {
  if [ -f "$FLOWBOARD_HOME/infra.env" ]; then
    # shellcheck source=/dev/null
    source "$FLOWBOARD_HOME/infra.env"
  fi
  local v missing=()
  for v in PG_ADMIN_URL REDIS_URL S3_ENDPOINT S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET; do
    [ -n "${!v:-}" ] || missing+=("$v")
  done
  ((${#missing[@]} == 0)) || die "no infrastructure settings (${missing[*]}): run deploy/local/infra.sh start first"
  export S3_ENDPOINT S3_REGION S3_ACCESS_KEY S3_SECRET_KEY S3_BUCKET
  PG_BIN=$(pg_bin)
  [ -x "$PG_BIN/pg_dump" ] || die "no PostgreSQL client tools in /usr/lib/postgresql/*/bin: run deploy/local/infra.sh start first"
}

psql_admin() { "$PG_BIN/psql" -d "$PG_ADMIN_URL" -v ON_ERROR_STOP=1 -qAtX "$@"; }

# Steps print what they do, then how long it took.
STEP_T0=0
step() { STEP_T0=$(now_ms); log "$*"; }
done_step() { echo "    ${1:+$1, }$(awk -v ms=$(($(now_ms) - STEP_T0)) 'BEGIN { printf "%.1f", ms / 1000 }')s"; }

# The client tools must not be older than the server (pg_dump refuses, and a dump of an older pg_dump may miss
# what the newer server has).
check_versions() {
  local server client
  server=$(psql_admin -c 'SHOW server_version_num') || die "cannot reach PostgreSQL at ${PG_ADMIN_URL}"
  client=$("$PG_BIN/pg_dump" --version | sed -n 's/.* \([0-9][0-9]*\)\.[0-9].*/\1/p')
  ((server / 10000 <= client)) \
    || die "PostgreSQL server $((server / 10000)) is newer than the client tools in $PG_BIN ($client)"
  PG_SERVER_VERSION=$(psql_admin -c 'SHOW server_version')
}

# ---------------------------------------------------------------------------------------------------------

cmd_backup() {
  local dir=$1 snapshot taken line keys=() missing=() s t0 out
  [ ! -e "$dir" ] || [ -z "$(ls -A "$dir")" ] || die "$dir is not empty; a backup goes into a new or empty folder"
  load_settings
  check_versions
  [ -s "$WEBHOOKS_KEY_FILE" ] \
    || die "no webhooks sealing key at $WEBHOOKS_KEY_FILE: this stack home's services have never been started"
  umask 077   # the backup holds the sealing key and everyone's data
  mkdir -p "$dir/postgres" "$dir/secrets"
  dir=$(realpath "$dir")
  t0=$(now_ms)
  log "backup of $FLOWBOARD_HOME into $dir"

  # One snapshot for the four dumps: a transaction that stays open (a coprocess) while pg_dump --snapshot reads
  # from it, and while the bucket is copied, so that its attachment rows can be checked against the objects.
  step "postgres: exporting a snapshot (one point in time for every schema)"
  coproc SNAP { "$PG_BIN/psql" -d "$PG_ADMIN_URL" -v ON_ERROR_STOP=1 -qAtX 2>&1; }
  # shellcheck disable=SC2064  # the pid now, not when the trap runs (the coprocess's variables are gone by then)
  trap "kill $SNAP_PID 2>/dev/null || true" EXIT
  echo "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT pg_export_snapshot() || '|' || now();" >&"${SNAP[1]}"
  read -r -t 30 snapshot <&"${SNAP[0]}" || die "postgres: no snapshot (is PostgreSQL up?)"
  [[ $snapshot =~ ^[0-9A-F-]+\| ]] || die "postgres: could not export a snapshot: $snapshot"
  taken=${snapshot#*|} snapshot=${snapshot%%|*}
  done_step "snapshot $snapshot of $taken"

  for s in "${SCHEMAS[@]}"; do
    step "postgres: pg_dump -Fc -n $s"
    "$PG_BIN/pg_dump" -d "$PG_ADMIN_URL" -Fc -n "$s" --strict-names --snapshot="$snapshot" -f "$dir/postgres/$s.dump" \
      || die "postgres: pg_dump of schema $s failed"
    done_step "$(stat -c %s "$dir/postgres/$s.dump") bytes"
  done

  step "bucket: copying every object of $S3_BUCKET"
  out=$(node "$HELPER" bucket-dump "$dir") || die "bucket: copying $S3_BUCKET failed"
  done_step "$out"

  # Every attachment row of the snapshot must have its object (one deleted during the copy would not).
  step "bucket: checking the snapshot's attachment rows against the copied objects"
  echo "SELECT object_key FROM files.attachments ORDER BY 1; SELECT '-- end'; COMMIT;" >&"${SNAP[1]}"
  while read -r -t 60 line <&"${SNAP[0]}"; do
    [ "$line" = '-- end' ] && break
    keys+=("$line")
  done
  [ "$line" = '-- end' ] || die "postgres: could not list the attachment rows: $line"
  eval "exec ${SNAP[1]}>&-"
  wait "$SNAP_PID" 2>/dev/null || true
  mapfile -t missing < <(comm -23 <(printf '%s\n' "${keys[@]}" | sed '/^$/d' | sort) \
    <(node -e 'for (const o of require(process.argv[1])) console.log(o.key)' "$dir/bucket/index.json" | sort))
  if ((${#missing[@]})); then
    warn "bucket: ${#missing[@]} attachment rows have no object (deleted during the backup?): ${missing[*]:0:5}"
  fi
  done_step "${#keys[@]} rows, ${#missing[@]} without an object"

  step "secrets: the webhooks sealing key"
  cp "$WEBHOOKS_KEY_FILE" "$dir/secrets/webhooks-secret-key"
  done_step

  step "manifest: sizes and sha256 of every file"
  local meta
  # shellcheck disable=SC2016  # JavaScript's ${...}, not the shell's
  meta=$(node -e '
    const [home, pg, snapshot, taken, bucket, missing, ...schemas] = process.argv.slice(1);
    console.log(JSON.stringify({
      format: "flowboard-local-backup/1",
      createdAt: new Date().toISOString(),
      stackHome: home,
      postgres: { serverVersion: pg, snapshot, snapshotTime: taken, schemas: Object.fromEntries(schemas.map((s) => [s, `postgres/${s}.dump`])) },
      bucket: { name: bucket, index: "bucket/index.json", attachmentRowsWithoutObject: missing ? missing.split(" ") : [] },
      secrets: { WEBHOOKS_SECRET_ENCRYPTION_KEY: "secrets/webhooks-secret-key" },
      notBackedUp: ["redis (caches, rate-limit counters, Idempotency-Key records, notifier de-duplication)", "kafka (events in flight; the outbox tables hold unpublished ones)"],
      order: "one database snapshot for all schemas, then the bucket, then the key",
    }));' "$FLOWBOARD_HOME" "$PG_SERVER_VERSION" "$snapshot" "$taken" "$S3_BUCKET" "${missing[*]}" "${SCHEMAS[@]}")
  out=$(node "$HELPER" manifest-write "$dir" "$meta") || die "manifest: could not write it"
  done_step "$out"
  log "backup complete in $(awk -v ms=$(($(now_ms) - t0)) 'BEGIN { printf "%.1f", ms / 1000 }')s: $dir"
}

# ---------------------------------------------------------------------------------------------------------

# The tables of <schema> holding rows, apart from its migrations table (a freshly migrated schema is empty).
tables_with_rows() {  # tables_with_rows <schema>
  psql_admin <<SQL
SELECT format('SELECT %L WHERE EXISTS (SELECT 1 FROM %I.%I)', c.relname, n.nspname, c.relname)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = '$1' AND c.relkind IN ('r', 'p') AND c.relname <> 'migrations'
\gexec
SQL
}

cmd_restore() {
  local force=0 dir s svc rows objects problems=() t0 out
  [ "${1:-}" = --force ] && { force=1; shift; }
  [ $# = 1 ] || die "usage: $0 restore [--force] <dir>"
  dir=$1
  [ -d "$dir" ] || die "$dir: no such backup folder"
  dir=$(realpath "$dir")
  load_settings
  check_versions
  t0=$(now_ms)
  log "restore of $dir into $FLOWBOARD_HOME"

  step "manifest: checking size and sha256 of every file"
  out=$(node "$HELPER" manifest-verify "$dir") || die "restore: the backup does not match its manifest"
  done_step "$out"

  step "checking the target stack"
  for svc in "${SERVICES[@]}"; do
    ! is_running "$svc" || die "$svc is running: stop the services first (deploy/local/services.sh stop)"
  done
  for s in "${SCHEMAS[@]}"; do
    [ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname = '$s'")" = 1 ] \
      || die "postgres: role $s does not exist: run deploy/local/infra.sh start first"
    rows=$(tables_with_rows "$s" | paste -sd ' ')
    [ -z "$rows" ] || problems+=("schema $s has data (tables $rows)")
  done
  objects=$(node "$HELPER" bucket-count) || die "bucket: cannot list $S3_BUCKET"
  ((objects == 0)) || problems+=("bucket $S3_BUCKET holds $objects objects")
  if [ -s "$WEBHOOKS_KEY_FILE" ] && ! cmp -s "$WEBHOOKS_KEY_FILE" "$dir/secrets/webhooks-secret-key"; then
    problems+=("$WEBHOOKS_KEY_FILE holds another sealing key")
  fi
  if ((${#problems[@]})); then
    ((force)) || die "refusing to restore over data: $(printf '%s; ' "${problems[@]}")--force replaces it"
    warn "--force: replacing $(printf '%s; ' "${problems[@]}")"
  fi
  done_step

  for s in "${SCHEMAS[@]}"; do
    step "postgres: schema $s (drop if present, pg_restore)"
    psql_admin -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS $s CASCADE"
    "$PG_BIN/pg_restore" -d "$PG_ADMIN_URL" --exit-on-error --single-transaction "$dir/postgres/$s.dump" \
      || die "postgres: pg_restore of schema $s failed"
    done_step
  done

  step "bucket: loading the objects into $S3_BUCKET"
  out=$(node "$HELPER" bucket-load "$dir") || die "bucket: loading into $S3_BUCKET failed"
  done_step "$out"

  step "secrets: the webhooks sealing key into $WEBHOOKS_KEY_FILE"
  mkdir -p "$FLOWBOARD_HOME"
  install -m 600 "$dir/secrets/webhooks-secret-key" "$WEBHOOKS_KEY_FILE"
  done_step

  # Redis is not part of a backup; what it holds from after the backup (cached boards, versions) must go.
  local tls=()
  [[ $REDIS_URL == rediss:* ]] && tls=(--tls --cacert "${FLOWBOARD_INFRA_CA:-}")
  if have redis-cli && [ "$(redis-cli "${tls[@]}" -u "$REDIS_URL" DBSIZE 2>/dev/null || echo 0)" != 0 ]; then
    warn "redis: it still holds keys from before the restore (cached boards, versions, API keys): empty it before the services start (redis-cli ${tls[*]:+${tls[*]} }-u \$REDIS_URL FLUSHALL)"
  fi
  log "restore complete in $(awk -v ms=$(($(now_ms) - t0)) 'BEGIN { printf "%.1f", ms / 1000 }')s; start the services: deploy/local/services.sh start"
}

case ${1:-} in
  backup) [ $# = 2 ] || die "usage: $0 backup <dir>"; cmd_backup "$2" ;;
  restore) shift; cmd_restore "$@" ;;
  *) die "usage: $0 backup <dir> | restore [--force] <dir>" ;;
esac
