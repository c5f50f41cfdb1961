#!/usr/bin/env bash
# `npm run test:cluster` (and CI after `npm test`): the Helm chart on a real one-node Kubernetes (deploy/cluster).
#
#   up        the cluster without the chart (deploy/cluster/up.sh --no-install): tools, images, infrastructure, nodes
#   install   a fresh `helm install --wait`: every pod Ready, every migration Job succeeded, no API server warning
#   smoke     through the gateway's Service, JSON and XML: sign-up, stories, a move, an attachment, an invite's e-mail
#   upgrade   `helm upgrade` to newly built images of all six services under load: zero failed requests, every
#             e-mail exactly once, no lost write
#   scale     two replicas of everything: caches exact across gateways, 50 invites = 50 e-mails, a crash loses nothing
#   helm-test the chart's own `helm test` hooks, as an operator runs them
#   uninstall `helm uninstall` leaves nothing of the release behind
#
# Ends with a per-phase table and one line "N passed, N failed". The cluster is stopped and its state removed at the
# end (`npm run cluster:down -- --purge`); FLOWBOARD_CLUSTER_KEEP=1 leaves it running for a look.
set -euo pipefail
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/cluster/lib.sh"
cd "$REPO"
[ "$(id -u)" = 0 ] || die "the cluster needs root"

T_START=$(now_ms)
PHASES=()
declare -A STATUS=() SECS=()
FIGURES=$CLUSTER_HOME/figures.txt

run_phase() {  # run_phase <name> <cmd...>
  local name=$1 t0 rc=0
  shift
  PHASES+=("$name")
  step "phase $name"
  t0=$(now_ms)
  "$@" || rc=$?
  SECS[$name]=$(awk -v ms=$(($(now_ms) - t0)) 'BEGIN { printf "%.0f", ms / 1000 }')
  if ((rc == 0)); then STATUS[$name]=ok; else STATUS[$name]=FAILED; fi
  log "phase $name: ${STATUS[$name]} in ${SECS[$name]}s"
  return "$rc"
}

summary() {
  local rc=$1 name p=0 f=0
  echo
  echo "Cluster test summary ($(awk -v ms=$(($(now_ms) - T_START)) 'BEGIN { printf "%.0f", ms / 1000 }')s total)"
  for name in "${PHASES[@]}"; do
    printf '  %-10s %-7s %5ss\n' "$name" "${STATUS[$name]:-aborted}" "${SECS[$name]:-?}"
    if [ "${STATUS[$name]:-}" = ok ]; then p=$((p + 1)); else f=$((f + 1)); fi
  done
  if [ -s "$FIGURES" ]; then
    echo "Figures:"
    sed 's/^/  /' "$FIGURES"
  fi
  ((rc == 0 || f > 0)) || f=1
  echo "$p passed, $f failed"
}

cleanup() {
  local rc=$?
  summary "$rc"
  if [ "${FLOWBOARD_CLUSTER_KEEP:-0}" = 1 ]; then
    log "FLOWBOARD_CLUSTER_KEEP=1: the cluster stays up (npm run cluster:down -- --purge removes it)"
  else
    if ((rc != 0)); then report_failure || true; fi
    step "stopping the cluster and removing its state"
    local down_log
    down_log=$(mktemp -t flowboard-cluster-down-XXXXXX.log)
    bash "$REPO/deploy/cluster/down.sh" --purge >"$down_log" 2>&1 && rm -f "$down_log" || warn "cluster:down failed (see $down_log)"
  fi
  exit "$rc"
}
trap cleanup EXIT

# What a failure leaves to read before the cluster goes: the pods, recent events, each pod's last log lines.
report_failure() {
  [ -x "$K8S_BIN/kubectl" ] && cluster_running || return 0
  echo "---- pods ----"
  K -n "$NAMESPACE" get pods -o wide 2>/dev/null || true
  echo "---- recent events ----"
  K -n "$NAMESPACE" get events --sort-by=.lastTimestamp 2>/dev/null | tail -25 || true
  local pod
  for pod in $(K -n "$NAMESPACE" get pods -o name 2>/dev/null); do
    echo "---- $pod: warnings and errors ----"
    K -n "$NAMESPACE" logs "$pod" --all-containers --tail=200 2>/dev/null | grep -E '"level":(40|50|60)' | tail -5 | cut -c1-300 || true
  done
}

# ---- install --------------------------------------------------------------------------------------------------------
install_chart() {
  if helm_ -n "$NAMESPACE" status "$RELEASE" >/dev/null 2>&1; then
    log "install: removing the release left from an earlier run, for a fresh install"
    helm_ -n "$NAMESPACE" uninstall "$RELEASE" --wait >/dev/null
  fi
  if K get namespace "$NAMESPACE" >/dev/null 2>&1; then
    K delete namespace "$NAMESPACE" --wait=true --timeout=180s >/dev/null
  fi
  helm_args "$CLUSTER_HOME/images"
  (umask 077 && printf '%s\n' "${HELM_ARGS[@]}" >"$CLUSTER_HOME/helm-args")   # holds the webhooks' sealing key
  log "install: helm install $RELEASE --wait (pods, then the migration hooks first)"
  local t0 err=$LOG_DIR/helm-install.stderr
  t0=$(now_ms)
  helm_ install "$RELEASE" "$CHART" --create-namespace --wait --timeout 8m "${HELM_ARGS[@]}" \
    >"$LOG_DIR/helm-install.log" 2>"$err" || { cat "$err" >&2; return 1; }
  echo "install: helm install --wait took $(((($(now_ms) - t0) + 500) / 1000)) s" >>"$FIGURES"
  # The API server's warnings reach helm as client-go warnings ("W1124 ... warnings.go:70] <text>").
  if grep -E '^W[0-9]{4} |[Ww]arning:' "$err" >&2; then
    echo "error: the API server warned during the install (above)" >&2
    return 1
  fi
  local not_ready
  not_ready=$(K -n "$NAMESPACE" get pods -l "app.kubernetes.io/instance=$RELEASE" \
    -o jsonpath='{range .items[*]}{.metadata.name}{" "}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' |
    awk '$2 != "True"')
  [ -z "$not_ready" ] || { echo "error: pods not Ready after the install: $not_ready" >&2; return 1; }
  log "install: $(K -n "$NAMESPACE" get pods --no-headers | wc -l) pods Ready"
  # The hook Jobs are deleted once they succeed (hook-delete-policy); their events stay for an hour.
  local completed
  completed=$(K -n "$NAMESPACE" get events --field-selector involvedObject.kind=Job,reason=Completed \
    -o jsonpath='{range .items[*]}{.involvedObject.name}{"\n"}{end}' | sort -u)
  for svc in boards membership files webhooks; do
    grep -qx "$RELEASE-$svc-migrate" <<<"$completed" || { echo "error: no Completed event for the $svc migration Job" >&2; return 1; }
  done
  log "install: migration Jobs completed: $(tr '\n' ' ' <<<"$completed")"
}

# ---- jest phases ----------------------------------------------------------------------------------------------------
jest_phase() {  # jest_phase <test file name>
  (
    export GATEWAY_URL MAILPIT_URL FLOWBOARD_KUBECTL="$K8S_BIN/kubectl" FLOWBOARD_HELM="$HELM_BIN" \
      FLOWBOARD_HELM_ARGS="$CLUSTER_HOME/helm-args" FLOWBOARD_CLUSTER_NAMESPACE="$NAMESPACE" \
      FLOWBOARD_CLUSTER_RELEASE="$RELEASE" FLOWBOARD_CLUSTER_CHART="$CHART" FLOWBOARD_CONTAINERD_SOCK="$CONTAINERD_SOCK" \
      FLOWBOARD_CLUSTER_UPGRADE_IMAGES="$CLUSTER_HOME/images-upgrade"
    cd test/cluster
    npx jest --selectProjects cluster --runInBand "test/$1" 2>&1 | tee "$LOG_DIR/jest-$1.log"
    rc=${PIPESTATUS[0]}
    # The tests print their figures as console.log blocks; keep the figure lines for the summary.
    grep -E '^\s+(rolling upgrade:|requests sent:|e-mails expected:|writes checked:|crash under load|scale-out invites:)' \
      "$LOG_DIR/jest-$1.log" | sed 's/^ *//' >>"$FIGURES" || true
    exit "$rc"
  )
}

upgrade_images() {
  local version
  version="$CHART_APP_VERSION-upgrade.$(date +%s)"
  log "upgrade: building the six images again as version $version (new image ids) and importing them"
  bash deploy/cluster/images.sh --version "$version" --out "$CLUSTER_HOME/images-upgrade" --import
}

upgrade() { upgrade_images && jest_phase upgrade.cluster.test.ts; }

# ---- helm test, uninstall -------------------------------------------------------------------------------------------
# The test pod is deleted once it passes (so uninstall leaves nothing); a failed one stays, and its log is shown.
helm_test() {
  helm_ -n "$NAMESPACE" test "$RELEASE" --timeout 3m || {
    K -n "$NAMESPACE" logs -l app.kubernetes.io/component=gateway-test --tail=50 >&2 || true
    return 1
  }
}

uninstall() {
  # Foreground: the Deployments go only after their pods have (each after its preStop pause and drain).
  helm_ -n "$NAMESPACE" uninstall "$RELEASE" --wait --cascade foreground --timeout 3m
  local left kinds=all,configmap,secret,serviceaccount,poddisruptionbudget,networkpolicy,ingress,horizontalpodautoscaler,job,role,rolebinding
  # Nothing labelled as the release's, and nothing else but what every namespace has.
  left=$(K -n "$NAMESPACE" get "$kinds" -l "app.kubernetes.io/instance=$RELEASE" -o name 2>/dev/null)
  left+=$(K -n "$NAMESPACE" get "$kinds" -o name 2>/dev/null | grep -vx -e configmap/kube-root-ca.crt -e serviceaccount/default || true)
  [ -z "$left" ] || { echo "error: left behind after helm uninstall:" >&2; echo "$left" >&2; return 1; }
  log "uninstall: nothing of $RELEASE left in namespace $NAMESPACE"
  K delete namespace "$NAMESPACE" --wait=true --timeout=180s >/dev/null
}

main() {
  rm -f "$FIGURES"
  mkdir -p "$CLUSTER_HOME"
  run_phase up bash deploy/cluster/up.sh --no-install
  ensure_helm
  ensure_test_build
  run_phase install install_chart
  run_phase smoke jest_phase smoke.cluster.test.ts
  run_phase upgrade upgrade
  run_phase scale jest_phase scale.cluster.test.ts
  run_phase helm-test helm_test
  run_phase uninstall uninstall
}

main
