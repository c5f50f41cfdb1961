#!/bin/bash
# Stand-in for Kafka's tool of that name, which compose.yaml's health check runs: it only probes the broker's port
# (--bootstrap-server host:port) with a TCP connection (the real tool asks the broker for its API versions).
set -eu
server=
while (($#)); do
  case $1 in --bootstrap-server) server=$2; shift 2 ;; *) shift ;; esac
done
[ -n "$server" ] || { echo "usage: $0 --bootstrap-server host:port" >&2; exit 2; }
exec 3<>"/dev/tcp/${server%:*}/${server##*:}"
