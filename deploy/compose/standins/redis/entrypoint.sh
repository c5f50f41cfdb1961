#!/bin/sh
# As the official image: redis-server as the redis user, on all interfaces, protected mode off (the container's
# network is the boundary).
set -eu
if [ "${1:-}" = redis-server ]; then
  shift
  exec runuser -u redis -- redis-server --bind '* -::*' --protected-mode no "$@"
fi
exec "$@"
