#!/usr/bin/env bash
# The chart's alerts and dashboard (docs/operations.md), checked offline (npm test's `rules` phase runs `check selftest`):
#
#   scripts/rules-check.sh check      renders templates/prometheusrule.yaml with Helm (default values, namespace
#                                     "flowboard"), then:
#                                       syntax    promtool check rules on the rendered rules
#                                       tests     promtool test rules test/rules/*.test.yaml against them: each alert
#                                                 fires on what it is about, after its `for`, and not on look-alikes
#                                       queries   every metric and label the rules and the dashboard
#                                                 (files/dashboards/flowboard.json) name is one a service exports, read
#                                                 from their code; every alert has its runbook section in
#                                                 docs/operations.md; the dashboard's queries parse (promtool)
#                                                 (scripts/rules-check.mjs)
#   scripts/rules-check.sh selftest   plants a break in a copy for each gate (a metric no service defines in a rule and
#                                     in the dashboard, a label a metric lacks, a histogram suffix on a gauge, a query
#                                     that does not parse, a threshold the tests do not expect, a missing runbook
#                                     section) and expects the gate to fail naming it; the unmodified copies must pass
#
# promtool is Debian's build of Prometheus' own (the `prometheus` package of the machine's release, pinned to its
# version), taken out of the package with `apt-get download` + `dpkg-deb -x` into $FLOWBOARD_CACHE: seconds, nothing
# installed, no service started. Building it from the Go module instead took 46 minutes on two busy cores (its
# module pulls every cloud's service discovery), which CI cannot afford. Its `check rules` and `test rules` are what
# the gate needs; they read the same files in 2.42 as in 3.x. Helm is chart-check.sh's pin
# (scripts/chart-check.sh --print-helm).
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
cd "$REPO"

PROMETHEUS_DEB=2.42.0+ds-5+deb12u1   # Debian 12's prometheus package (promtool 2.42.0)

# ensure_promtool: prints the path of the pinned promtool, fetching it once.
ensure_promtool() {
  local dir="$FLOWBOARD_CACHE/promtool-$PROMETHEUS_DEB" tmp
  if [ ! -x "$dir/promtool" ]; then
    have apt-get && have dpkg-deb || { warn "promtool: apt-get and dpkg-deb are needed"; return 1; }
    log "promtool: fetching Debian's prometheus $PROMETHEUS_DEB for its promtool" >&2
    mkdir -p "$FLOWBOARD_CACHE"
    tmp=$(mktemp -d "$FLOWBOARD_CACHE/.promtool.XXXXXX")
    # apt's sandbox user can't write into root's cache: download as root, in the temporary folder. A fresh
    # machine may have no package lists yet: fetch them once, as ensure_apt does, and try again.
    local get=(apt-get download -q -o APT::Sandbox::User=root "prometheus=$PROMETHEUS_DEB")
    if (cd "$tmp" && { "${get[@]}" >&2 || { apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && "${get[@]}" >&2; }; }) \
      && dpkg-deb -x "$tmp"/prometheus_*.deb "$tmp/x" && [ -x "$tmp/x/usr/bin/promtool" ]; then
      mkdir -p "$tmp/out" && mv "$tmp/x/usr/bin/promtool" "$tmp/out/promtool"
      rm -rf "$dir" && mv "$tmp/out" "$dir" && rm -rf "$tmp"
    else
      rm -rf "$tmp"
      warn "promtool: could not fetch prometheus=$PROMETHEUS_DEB (apt-get update, or a newer Debian point release?)"
      return 1
    fi
  fi
  echo "$dir/promtool"
}
CHART=deploy/helm/flowboard
DASHBOARD=$CHART/files/dashboards/flowboard.json
RUNBOOK=docs/operations.md
TESTS=test/rules

ensure_tools() {
  local t0
  t0=$(now_ms)
  PROMTOOL=$(ensure_promtool) || die "promtool: not available"
  HELM=$(bash scripts/chart-check.sh --print-helm) || die "helm: scripts/chart-check.sh --print-helm failed"
  log "rules: tools ready in $(($(now_ms) - t0)) ms (promtool $PROMETHEUS_DEB, helm $("$HELM" version --short))"
}

TMP=$(mktemp -d -t flowboard-rules-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# render <dir> [helm args...]: the chart's rules as a plain rule file, <dir>/rules.yaml. The default values, which
# have no credentials: an existing Secret stands in (the rules do not depend on it), as in chart-check.sh.
render() {
  local dir=$1
  shift
  mkdir -p "$dir"
  "$HELM" template flowboard "$CHART" --namespace flowboard --kube-version "${FLOWBOARD_K8S_VERSION:-1.36}.0" \
    --api-versions monitoring.coreos.com/v1/PrometheusRule --set secrets.existingSecret=flowboard-credentials \
    --set metrics.prometheusRule.enabled=true --show-only templates/prometheusrule.yaml "$@" >"$dir/rendered.yaml" \
    && node scripts/rules-check.mjs extract "$dir/rendered.yaml" "$dir/rules.yaml"
}

# Each gate: <dir with rules.yaml> [dashboard] [runbook]; prints what it found, exits non-zero on a problem.
gate_syntax() {
  "$PROMTOOL" check rules "$1/rules.yaml"
}
gate_tests() {
  cp "$TESTS"/*.test.yaml "$1/"
  "$PROMTOOL" test rules "$1"/*.test.yaml
}
gate_queries() {
  node scripts/rules-check.mjs queries --rules "$1/rules.yaml" --dashboard "${2:-$DASHBOARD}" \
    --runbook "${3:-$RUNBOOK}" --promql-out "$1/dashboard-rules.yaml" \
    && "$PROMTOOL" check rules "$1/dashboard-rules.yaml" >"$1/dashboard-rules.out" 2>&1 \
    || { cat "$1/dashboard-rules.out" 2>/dev/null; return 1; }
}

check() {
  local t0 failed=() gate
  ensure_tools
  render "$TMP/check" || die "could not render $CHART/templates/prometheusrule.yaml"
  for gate in syntax tests queries; do
    t0=$(now_ms)
    if "gate_$gate" "$TMP/check"; then
      log "rules: $gate ok ($(($(now_ms) - t0)) ms)"
    else
      failed+=("$gate")
      echo "error: rules: the $gate gate failed (above)" >&2
    fi
  done
  ((${#failed[@]} == 0)) || die "rules gates failed: ${failed[*]}"
  log "rules: all three gates pass"
}

SELFTEST_FAILED=0
# expect_break <gate> <what> <fragment> <gate args...>: the gate must fail, and say <fragment>.
expect_break() {
  local gate=$1 what=$2 fragment=$3 out rc=0
  shift 3
  out=$("gate_$gate" "$@" 2>&1) || rc=$?
  if ((rc != 0)) && grep -qF -- "$fragment" <<<"$out"; then
    echo "  ok   $gate fails on: $what"
    grep -F -- "$fragment" <<<"$out" | head -n 1 | cut -c 1-220 | sed 's/^[[:space:]]*/         /'
  else
    SELFTEST_FAILED=1
    echo "  FAIL $gate on '$what': exit $rc, expected a failure saying '$fragment'; it printed:"
    sed 's/^/         /' <<<"$out" | tail -n 30
  fi
}
expect_pass() {  # expect_pass <gate> <gate args...>
  local gate=$1 out rc=0
  shift
  out=$("gate_$gate" "$@" 2>&1) || rc=$?
  if ((rc == 0)); then echo "  ok   $gate passes on the unmodified copy"; else
    SELFTEST_FAILED=1
    echo "  FAIL $gate fails on the unmodified copy (exit $rc):"
    sed 's/^/         /' <<<"$out" | tail -n 30
  fi
}

# plant <name> <sed expression> <file in the copy>: a fresh copy of the rendered rules and the dashboard in
# $TMP/<name>, with the expression applied to one of them (which must change it).
plant() {
  local dir=$TMP/$1
  rm -rf "$dir" && mkdir -p "$dir"
  cp "$TMP/base/rules.yaml" "$dir/" && cp "$DASHBOARD" "$dir/dashboard.json" && cp "$RUNBOOK" "$dir/operations.md"
  cp "$dir/$3" "$dir/$3.orig"
  sed -i -E "$2" "$dir/$3"
  cmp -s "$dir/$3" "$dir/$3.orig" && die "selftest: '$2' changed nothing in $3"
  rm "$dir/$3.orig"
}

selftest() {
  ensure_tools
  log "rules selftest: planted breaks in copies of the rendered rules, the dashboard and the runbook, in $TMP"
  render "$TMP/base" || die "could not render $CHART/templates/prometheusrule.yaml"
  rm -rf "$TMP/pristine" && mkdir -p "$TMP/pristine" && cp "$TMP/base/rules.yaml" "$TMP/pristine/"
  expect_pass syntax "$TMP/pristine"
  expect_pass tests "$TMP/pristine"
  expect_pass queries "$TMP/pristine" "$DASHBOARD" "$RUNBOOK"

  local d
  # A rule naming a metric no service defines (one letter off).
  plant rule-metric 's/flowboard_outbox_backlog\{/flowboard_outbox_backlogs{/' rules.yaml
  d=$TMP/rule-metric
  expect_break queries "a rule on flowboard_outbox_backlogs" "metric flowboard_outbox_backlogs is defined by no service" \
    "$d" "$d/dashboard.json" "$d/operations.md"
  # A dashboard query naming one.
  plant dashboard-metric 's/flowboard_webhook_deliveries_pending/flowboard_webhook_deliveries_waiting/' dashboard.json
  d=$TMP/dashboard-metric
  expect_break queries "a dashboard query on flowboard_webhook_deliveries_waiting" \
    "metric flowboard_webhook_deliveries_waiting is defined by no service" "$d" "$d/dashboard.json" "$d/operations.md"
  # A label the metric does not have (the gateway's is `status`).
  plant rule-label 's/status=~"5\.\."/status_code=~"5.."/' rules.yaml
  d=$TMP/rule-label
  expect_break queries "a rule matching status_code" 'flowboard_http_requests_total has no label "status_code"' \
    "$d" "$d/dashboard.json" "$d/operations.md"
  # A histogram's series of a gauge.
  plant dashboard-suffix 's/flowboard_pg_pool_waiting\{/flowboard_pg_pool_waiting_bucket{/' dashboard.json
  d=$TMP/dashboard-suffix
  expect_break queries "a gauge queried as a histogram" "metric flowboard_pg_pool_waiting_bucket is defined by no service" \
    "$d" "$d/dashboard.json" "$d/operations.md"
  # A dashboard query that does not parse (promtool's parser).
  plant dashboard-syntax 's/histogram_quantile\(0\.99, sum by \(le, service\)/histogram_quantile(0.99 sum by (le, service)/' dashboard.json
  d=$TMP/dashboard-syntax
  expect_break queries "a dashboard query that does not parse" '_A": could not parse expression' "$d" "$d/dashboard.json" "$d/operations.md"
  # An alert whose runbook section is gone.
  plant runbook 's/^### FlowboardPoolWaiting$/### Pool waiting/' operations.md
  d=$TMP/runbook
  expect_break queries "FlowboardPoolWaiting's runbook section renamed" \
    "runbook_url's section #flowboardpoolwaiting is no heading" "$d" "$d/dashboard.json" "$d/operations.md"
  # A rule that does not parse (a parenthesis left open).
  plant rule-syntax 's/^( *expr: max by \(namespace, service\) \()(flowboard_outbox_backlog)/\1(\2/' rules.yaml
  expect_break syntax "a rule that does not parse" '"FlowboardOutboxBacklog": could not parse expression' "$TMP/rule-syntax"
  # A threshold the unit tests do not expect: rendered with consumerLag 2000, the lag test's 1,100 no longer fires.
  render "$TMP/threshold" --set metrics.prometheusRule.thresholds.consumerLag=2000 || die "could not render with consumerLag=2000"
  expect_break tests "consumerLag rendered as 2000" "alertname: FlowboardConsumerLag" "$TMP/threshold"
  # The same without the `for`: a 1-minute wait fires the consumer alert before its time.
  render "$TMP/for" --set metrics.prometheusRule.thresholds.consumerNotJoinedFor=1m || die "could not render with 1m"
  expect_break tests "consumerNotJoinedFor rendered as 1m" "alertname: FlowboardConsumerNotJoined" "$TMP/for"

  ((SELFTEST_FAILED == 0)) || die "rules selftest: a gate did not catch its planted break (above)"
  log "rules selftest: every planted break caught"
}

(($#)) || set -- check
for command in "$@"; do
  case "$command" in
    check) check ;;
    selftest) selftest ;;
    *) die "usage: $0 [check] [selftest]" ;;
  esac
done
