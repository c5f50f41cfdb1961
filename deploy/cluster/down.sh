#!/usr/bin/env bash
# `npm run cluster:down`: stops the one-node cluster and its infrastructure (deploy/cluster/up.sh), removes the pods'
# containers, mounts and network rules. The cluster's state (etcd, infrastructure data) stays in $CLUSTER_HOME, so
# `npm run cluster` brings the same install back; --purge deletes it too. Images and tools stay cached.
set -euo pipefail
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
PURGE=0
case ${1:-} in
  --purge) PURGE=1 ;;
  '') ;;
  *) die "usage: $0 [--purge]" ;;
esac

# Every pod's containers: stopped through containerd, then their shims (which outlive containerd by design).
stop_pods() {
  [ -S "$CONTAINERD_SOCK" ] || return 0
  local ctr=(ctr --address "$CONTAINERD_SOCK" -n k8s.io) ids
  ids=$("${ctr[@]}" tasks ls -q 2>/dev/null || true)
  if [ -n "$ids" ]; then
    log "node: stopping $(wc -l <<<"$ids") containers"
    for id in $ids; do "${ctr[@]}" tasks kill -s SIGKILL "$id" >/dev/null 2>&1 || true; done
    sleep 1
    for id in $ids; do "${ctr[@]}" tasks delete -f "$id" >/dev/null 2>&1 || true; done
  fi
}

kill_shims() { pkill -KILL -f "containerd-shim.*-address $CONTAINERD_SOCK" 2>/dev/null || true; }

# Volumes (secrets, projected tokens), container root filesystems and the sandboxes' network namespaces.
unmount_all() {
  local m
  for m in $(awk -v h="$CLUSTER_HOME/" 'index($2, h) == 1 { print $2 }' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

main() {
  # The kubelet first, so that it restarts nothing while the pods go.
  stop_process kubelet 10
  stop_pods
  stop_process containerd 10
  kill_shims
  unmount_all
  stop_process kube-proxy 5
  [ -x "$K8S_BIN/kube-proxy" ] && "$K8S_BIN/kube-proxy" --cleanup >/dev/null 2>&1 || true
  stop_process kube-scheduler 5
  stop_process kube-controller-manager 5
  stop_process kube-apiserver 10
  stop_process etcd 10
  bash "$REPO/deploy/local/infra.sh" stop
  stop_process dockerd 15
  if ip link show "$BRIDGE" >/dev/null 2>&1; then
    log "network: removing $BRIDGE"
    ip link delete "$BRIDGE" || true
  fi
  if ((PURGE)); then
    log "purging $CLUSTER_HOME"
    unmount_all
    rm -rf "$CLUSTER_HOME"
    # PostgreSQL's data, which infra.sh keeps outside a home its user cannot traverse (deploy/local/infra.sh: pg_dir).
    rm -rf "/var/tmp/flowboard-pg-$(printf %s "$FLOWBOARD_HOME" | sha1sum | cut -c1-12)"
  fi
  log "cluster stopped"
}

main
