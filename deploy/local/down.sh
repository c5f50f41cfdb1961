#!/usr/bin/env bash
# `npm stop`: stops the services, then the infrastructure (the reverse of up.sh), then anything else that left
# a pid file in $FLOWBOARD_HOME/run (for example a test run that was killed). Data stays in $FLOWBOARD_HOME.
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO"

bash deploy/local/services.sh stop
bash deploy/local/infra.sh stop
shopt -s nullglob
for pidfile in "$RUN_DIR"/*.pid; do
  stop_process "$(basename "$pidfile" .pid)" 10
done
log "stopped; data kept in $FLOWBOARD_HOME"
