#!/usr/bin/env bash
# `npm run test:cluster` (and CI after `npm test`): the Helm chart on a real one-node Kubernetes (deploy/cluster).
#
#   up           the cluster without the chart (deploy/cluster/up.sh --no-install): tools, images of the working
#                tree, infrastructure, node
#   images-prev  the six images of the previous release (the commit in contracts/released/SOURCE), built the same way
#   install      a fresh `helm install --wait` of the previous release (all six at its versions, this chart) into a
#                namespace enforcing Pod Security `restricted`: every pod Ready, each migrating component's `migrate`
#                init container done, no API server warning, a pod without a securityContext refused
#   skew-upgrade under load, each service upgraded alone to this tree's, back ends first, then the gateway (so the
#                old gateway meets the new back ends): only that service's pods roll, only its migrations run; zero
#                failed requests, every e-mail exactly once, no lost write; which boards service name each
#                gateway calls (the BoardsService alias)
#   skew-back    under load: `helm rollback` of the gateway alone to the revision before its upgrade (only its pods
#                roll), the new gateway against the previous back ends (one upgrade: the rollback of each), then all
#                six at this tree's again
#   smoke        through the gateway's Service, JSON and XML: sign-up, stories, a move, an attachment, an invite's e-mail
#   isolation    under load: webhooks at 0 replicas, files at 0, files hung (SIGSTOP), Redis hung: what needs it
#                fails fast (503 + Retry-After), the rest keeps answering, the gateway stays Ready, all recover alone
#   infra-restart under load: the host's PostgreSQL, then Kafka, then Redis stopped for 10 s and started again
#                (deploy/cluster/infra.sh): no acknowledged write, invite e-mail or webhook delivery lost, failures only
#                while a piece is down or within 30 s of it serving again (counted), no pod restarted
#   scale        two replicas of everything: caches exact across gateways, 50 invites = 50 e-mails, a crash loses nothing
#   stream       the change stream on the two gateways: SSE clients on both, one gateway killed mid-load, its clients
#                resume on the other: every acknowledged change once each, in order
#   helm-test    the chart's own `helm test` hooks, as an operator runs them
#   uninstall    `helm uninstall` leaves nothing of the release behind
#
# Ends with a per-phase table, the phases' figures and one line "N passed, N failed". The cluster is stopped and its
# state removed at the end (`npm run cluster:down -- --purge`); FLOWBOARD_CLUSTER_KEEP=1 leaves it running for a
# look, and then `FLOWBOARD_CLUSTER_PHASES="skew-upgrade skew-back"` (names from the list above; `up` and `install`
# are run only when named) runs just those against it.
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
    printf '  %-13s %-7s %5ss\n' "$name" "${STATUS[$name]:-aborted}" "${SECS[$name]:-?}"
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
  stop_keeping_pod_logs
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

# Every pod's log, kept from when it runs until it is gone: the skew and isolation phases replace pods, and a failure
# in a pod that was replaced meanwhile (an old release's, mid-upgrade) is otherwise never seen. One `kubectl logs -f`
# per pod (its init containers' logs first), started once it runs; a listing every 3 s finds new pods.
POD_LOGS=$LOG_DIR/pods
keep_pod_logs() {
  mkdir -p "$POD_LOGS"
  (
    declare -A followed=()
    while sleep 3; do
      for pod in $(K -n "$NAMESPACE" get pods --field-selector=status.phase=Running -o name 2>/dev/null); do
        pod=${pod#pod/}
        [ -n "${followed[$pod]:-}" ] && continue
        followed[$pod]=1
        # kubectl itself, not through K: a backgrounded function would be a subshell, and stopping that leaves kubectl
        "$K8S_BIN/kubectl" -n "$NAMESPACE" logs -f "$pod" --all-containers --timestamps >"$POD_LOGS/$pod.log" 2>/dev/null &
      done
    done
  ) &
  POD_LOG_KEEPER=$!
}
stop_keeping_pod_logs() {
  [ -n "${POD_LOG_KEEPER:-}" ] || return 0
  pkill -P "$POD_LOG_KEEPER" 2>/dev/null || true
  kill "$POD_LOG_KEEPER" 2>/dev/null || true
}

# What a failure leaves to read before the cluster goes: the pods, recent events, and the last warnings and errors
# of every pod that ran (the services log JSON, with the level's name).
report_failure() {
  [ -x "$K8S_BIN/kubectl" ] && cluster_running || return 0
  echo "---- pods ----"
  K -n "$NAMESPACE" get pods -o wide 2>/dev/null || true
  echo "---- recent events ----"
  K -n "$NAMESPACE" get events --sort-by=.lastTimestamp 2>/dev/null | tail -25 || true
  local file
  for file in "$POD_LOGS"/*.log; do
    [ -e "$file" ] || continue
    echo "---- pod/$(basename "$file" .log): warnings and errors (the last 8) ----"
    grep -E '"level":("(warn|error|fatal)"|40|50|60)' "$file" | tail -8 | cut -c1-400 || true
  done
  echo "(every pod's whole log: $POD_LOGS)"
  # A service logs that PostgreSQL ended its statement; only the server's log says with what: a deadlock's DETAIL
  # names both processes and their statements (the other side may be another release's pod, or a migration).
  local pg_log=$LOG_DIR/postgres.log
  if [ -r "$pg_log" ]; then
    echo "---- PostgreSQL: errors and their details (the last 60 lines) ----"
    # An entry starts with its time; an error's DETAIL, STATEMENT, CONTEXT and HINT follow as entries of their own,
    # and a statement's further lines start with a tab.
    awk '/^[0-9][0-9][0-9][0-9]-/ { keep = / (ERROR|FATAL|PANIC): / || (keep && / (DETAIL|STATEMENT|CONTEXT|HINT): /) }
         keep' "$pg_log" | tail -60 | cut -c1-300 || true
    echo "(PostgreSQL's whole log: $pg_log)"
  fi
}

# ---- images of the previous release ------------------------------------------------------------------------------
# The previous release: the commit in contracts/released/SOURCE (the contract gates' baseline too).
previous_ref() {
  if [ -s contracts/released/SOURCE ]; then
    head -1 contracts/released/SOURCE
  else
    warn "contracts/released/SOURCE is missing: the previous release is taken to be 75390eb"
    git rev-parse 75390eb
  fi
}

previous_images() {
  local ref t0
  ref=$(previous_ref)
  t0=$(now_ms)
  bash deploy/cluster/images.sh --ref "$ref" --out "$CLUSTER_HOME/images-previous" --import
  echo "images of the previous release (${ref:0:12}): six built in $(((($(now_ms) - t0) + 500) / 1000)) s;" \
    "versions: $(awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $3 }' "$CLUSTER_HOME/images-previous")" >>"$FIGURES"
}

# ---- install --------------------------------------------------------------------------------------------------------
# A fresh install of the previous release: this chart, each component at the previous release's image and version.
# The skew phases then upgrade it one service at a time to this tree's images.
install_chart() {
  if helm_ -n "$NAMESPACE" status "$RELEASE" >/dev/null 2>&1; then
    log "install: removing the release left from an earlier run, for a fresh install"
    helm_ -n "$NAMESPACE" uninstall "$RELEASE" --wait >/dev/null
  fi
  if K get namespace "$NAMESPACE" >/dev/null 2>&1; then
    K delete namespace "$NAMESPACE" --wait=true --timeout=180s >/dev/null
  fi
  ensure_namespace
  ensure_ca_configmap   # the infrastructure's CA, which the values mount into every pod
  # helm-args: this machine's values, without images (the tests add the images they want; FLOWBOARD_CLUSTER_IMAGES
  # by default). It holds the webhooks' sealing key.
  helm_args /dev/null
  (umask 077 && printf '%s\n' "${HELM_ARGS[@]}" >"$CLUSTER_HOME/helm-args")
  local images=$CLUSTER_HOME/images-previous
  [ -s "$images" ] || images=$CLUSTER_HOME/images   # images-prev skipped (FLOWBOARD_CLUSTER_PHASES): this tree's
  log "install: helm install $RELEASE --wait, images of $images"
  local t0 err=$LOG_DIR/helm-install.stderr image_set
  mapfile -t image_set < <(image_args "$images")
  t0=$(now_ms)
  helm_ install "$RELEASE" "$CHART" --create-namespace --wait --timeout 8m "${HELM_ARGS[@]}" "${image_set[@]}" \
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
  # The namespace enforces Pod Security `restricted`: every pod above was admitted under it, and a pod without a
  # securityContext (baseline allows it; restricted wants no privilege escalation, no capabilities, non-root and a
  # seccomp profile) is not. (A privileged pod would be refused by this API server before admission, with no
  # --allow-privileged: no proof of the namespace's policy.)
  local refused
  refused=$(K -n "$NAMESPACE" run pss-probe --image=local/pause:3.10 --restart=Never --dry-run=server 2>&1) &&
    { echo "error: a pod without a securityContext was admitted in $NAMESPACE (Pod Security restricted not enforced): $refused" >&2; return 1; }
  grep -q 'violates PodSecurity "restricted' <<<"$refused" ||
    { echo "error: a pod without a securityContext was refused, but not by Pod Security restricted: $refused" >&2; return 1; }
  log "install: namespace $NAMESPACE enforces Pod Security restricted (a pod without a securityContext is refused)"
  # Migrations: an init container `migrate` in each pod of the four components with a database, exited 0; none in
  # the others'; no Job.
  local migrated svc
  migrated=$(K -n "$NAMESPACE" get pods -l "app.kubernetes.io/instance=$RELEASE" -o jsonpath='{range .items[*]}{.metadata.labels.app\.kubernetes\.io/component}{" "}{range .status.initContainerStatuses[*]}{.name}={.state.terminated.exitCode}{" "}{end}{"\n"}{end}')
  for svc in boards membership files webhooks; do
    grep -qx "$svc migrate=0 *" <<<"$migrated" || { echo "error: no completed migrate init container in $svc's pods: $migrated" >&2; return 1; }
  done
  for svc in gateway notifier; do
    ! grep -q "^$svc .*migrate" <<<"$migrated" || { echo "error: $svc's pods run migrations: $migrated" >&2; return 1; }
  done
  [ -z "$(K -n "$NAMESPACE" get jobs -o name)" ] || { echo "error: the install left Jobs" >&2; return 1; }
  log "install: migrations ran in the init containers of boards, membership, files, webhooks"
}

# ---- jest phases ----------------------------------------------------------------------------------------------------
jest_phase() {  # jest_phase <test file name>
  (
    export GATEWAY_URL MAILPIT_URL FLOWBOARD_KUBECTL="$K8S_BIN/kubectl" FLOWBOARD_HELM="$HELM_BIN" \
      FLOWBOARD_HELM_ARGS="$CLUSTER_HOME/helm-args" FLOWBOARD_CLUSTER_NAMESPACE="$NAMESPACE" \
      FLOWBOARD_CLUSTER_RELEASE="$RELEASE" FLOWBOARD_CLUSTER_CHART="$CHART" FLOWBOARD_CONTAINERD_SOCK="$CONTAINERD_SOCK" \
      FLOWBOARD_CLUSTER_IMAGES="$CLUSTER_HOME/images" FLOWBOARD_CLUSTER_PREVIOUS_IMAGES="$CLUSTER_HOME/images-previous" \
      FLOWBOARD_REDIS_PIDFILE="$FLOWBOARD_HOME/run/redis.pid" FLOWBOARD_KAFKA_PLAINTEXT_BROKERS="$(kafka_plaintext_brokers)"
    cd test/cluster
    # A bound on the phase: a test that hangs (something left running after a failure) must fail its phase, not
    # hold the run until CI's own limit stops everything with no summary.
    timeout --kill-after=30s "${FLOWBOARD_CLUSTER_PHASE_TIMEOUT:-1500}" \
      npx jest --selectProjects cluster --runInBand "test/$1" 2>&1 | tee "$LOG_DIR/jest-$1.log"
    rc=${PIPESTATUS[0]}
    # The tests print their figures as console.log blocks; keep the figure lines for the summary.
    grep -E '^\s+(rolling upgrade:|requests sent:|e-mails expected:|writes checked:|crash under load|scale-out invites:|skew|isolation|infra-restart|alias|stream across)' \
      "$LOG_DIR/jest-$1.log" | sed 's/^ *//' >>"$FIGURES" || true
    exit "$rc"
  )
}

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
  # Nothing labelled as the release's, and nothing else but what every namespace has and the CA bundle, which was
  # there before the release (install_chart), as an operator's is.
  left=$(K -n "$NAMESPACE" get "$kinds" -l "app.kubernetes.io/instance=$RELEASE" -o name 2>/dev/null)
  left+=$(K -n "$NAMESPACE" get "$kinds" -o name 2>/dev/null |
    grep -vx -e configmap/kube-root-ca.crt -e serviceaccount/default -e configmap/flowboard-ca || true)
  [ -z "$left" ] || { echo "error: left behind after helm uninstall:" >&2; echo "$left" >&2; return 1; }
  log "uninstall: nothing of $RELEASE left in namespace $NAMESPACE"
  K delete namespace "$NAMESPACE" --wait=true --timeout=180s >/dev/null
}

# FLOWBOARD_CLUSTER_PHASES (with FLOWBOARD_CLUSTER_KEEP=1, against a running cluster): only the phases named.
wanted() { [ -z "${FLOWBOARD_CLUSTER_PHASES:-}" ] || [[ " $FLOWBOARD_CLUSTER_PHASES " == *" $1 "* ]]; }
phase() { if wanted "$1"; then run_phase "$@"; fi; }

main() {
  rm -f "$FIGURES"
  mkdir -p "$CLUSTER_HOME" "$LOG_DIR"
  rm -rf "$POD_LOGS"
  keep_pod_logs
  phase up bash deploy/cluster/up.sh --no-install
  ensure_helm
  ensure_test_build
  phase images-prev previous_images
  phase install install_chart
  phase skew-upgrade jest_phase skew-upgrade.cluster.test.ts
  phase skew-back jest_phase skew-back.cluster.test.ts
  phase smoke jest_phase smoke.cluster.test.ts
  phase isolation jest_phase isolation.cluster.test.ts
  phase infra-restart jest_phase infra-restart.cluster.test.ts
  phase scale jest_phase scale.cluster.test.ts
  phase stream jest_phase stream.cluster.test.ts
  phase helm-test helm_test
  phase uninstall uninstall
}

main
