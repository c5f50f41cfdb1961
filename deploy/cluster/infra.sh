#!/usr/bin/env bash
# The cluster's infrastructure on this host (PostgreSQL, Redis, Kafka, MinIO and the mail catcher on the pod bridge,
# secured as deploy/cluster/lib.sh sets it): deploy/local/infra.sh with the cluster's settings, so one piece can be
# stopped and started again without the rest (the cluster test's infra-restart phase, or by hand).
#
#   deploy/cluster/infra.sh start|stop|status [postgres redis kafka minio mail]
set -euo pipefail
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
exec bash "$REPO/deploy/local/infra.sh" "$@"
