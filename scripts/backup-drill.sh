#!/usr/bin/env bash
# The backup and restore drill (the `drill` phase of `npm test`, its last; `npm run drill -- --yes`): seeds a running
# local stack through the API, backs it up with deploy/local/backup.sh, wipes it (services stopped, schemas dropped,
# bucket emptied, sealing key removed, Redis flushed), restores it and checks through the API that every story,
# comment and attachment is back exactly and that the webhook's signing secret still signs. Each step is timed.
# scripts/backup-drill.mjs does the work; docs/operations.md ("Backup and restore") says what is backed up and why.
#
#   bash scripts/backup-drill.sh [--yes]     the stack of $FLOWBOARD_HOME, its gateway at $GATEWAY_URL (default:
#                                            127.0.0.1:$FLOWBOARD_GATEWAY_PORT)
#
# It wipes that stack, so it runs by itself only on npm test's throw-away stacks (FLOWBOARD_EPHEMERAL=1); on another
# (npm start's), --yes says its data may go through the drill. A failed drill keeps its backup and names the folder.
# The services restart during the drill: nothing else may use the stack meanwhile.
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
cd "$REPO"

GATEWAY_URL=${GATEWAY_URL:-http://127.0.0.1:$FLOWBOARD_GATEWAY_PORT}
if [ ! -f "$FLOWBOARD_HOME/infra.env" ]; then
  # npm test on an external stack (DATABASE_URL set): never wiped by a test.
  [ -z "${DATABASE_URL:-}" ] || { log "drill: skipped: the stack is external (DATABASE_URL), not one of deploy/local"; exit 0; }
  die "drill: no $FLOWBOARD_HOME/infra.env: the drill runs on a local stack (deploy/local infra.sh start) only"
fi
[ "$EPHEMERAL" = 1 ] || [ "${1:-}" = --yes ] \
  || die "drill: it wipes the stack of $FLOWBOARD_HOME and restores it from a backup; run with --yes if that is meant"
http_ok "$GATEWAY_URL/readyz" || die "drill: no gateway answers at $GATEWAY_URL (start the stack: npm start)"
GATEWAY_URL=$GATEWAY_URL FLOWBOARD_HOME=$FLOWBOARD_HOME node scripts/backup-drill.mjs
