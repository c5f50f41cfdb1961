#!/bin/sh
# The official image's start, in what compose.yaml uses: initdb on an empty data folder with POSTGRES_HOST_AUTH_METHOD,
# POSTGRES_DB created, /docker-entrypoint-initdb.d/*.sql run once (the server on its socket only meanwhile), then the
# server on all interfaces, as the postgres user.
set -eu
[ "${1:-}" = postgres ] || exec "$@"
shift
mkdir -p "$PGDATA" /var/run/postgresql
chown -R postgres:postgres "$PGDATA" /var/run/postgresql
as_pg() { runuser -u postgres -- "$@"; }
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  auth=${POSTGRES_HOST_AUTH_METHOD:-scram-sha-256}
  as_pg initdb -D "$PGDATA" -U postgres -E UTF8 --auth-local=trust --auth-host="$auth" >/dev/null
  echo "host all all all $auth" >>"$PGDATA/pg_hba.conf"
  as_pg pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  db=${POSTGRES_DB:-postgres}
  [ "$db" = postgres ] || as_pg psql -v ON_ERROR_STOP=1 -q -U postgres -d postgres -c "CREATE DATABASE \"$db\""
  for f in /docker-entrypoint-initdb.d/*.sql; do
    [ -e "$f" ] || continue
    echo "running $f"
    as_pg psql -v ON_ERROR_STOP=1 -q -U postgres -d "$db" -f "$f"
  done
  as_pg pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
fi
exec runuser -u postgres -- postgres -D "$PGDATA" -c listen_addresses='*' "$@"
