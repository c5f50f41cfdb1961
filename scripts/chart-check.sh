#!/usr/bin/env bash
# Checks the Helm chart deploy/helm/flowboard offline: `helm lint --strict` (plain and with each ci/*.yaml),
# `helm template` for each ci/*.yaml values set (release "flowboard", namespace "flowboard", Kubernetes $K8S_VERSION:
# a go-installed Helm otherwise assumes v1.20), validation of every rendered manifest against the Kubernetes
# JSON schemas (kubernetes-validate, --strict), and a diff against the golden rendering in
# examples/<values set>/rendered.yaml. `--update` rewrites the goldens instead of comparing them.
# Then scripts/chart-env-check.mjs on those renderings and on the default values' (with an existing Secret): every
# Deployment's and migration Job's environment, built as the kubelet would, is run through its service's own
# config loader (services/<svc>/dist/config.js: run after `npx turbo run build`, as npm test does), and every
# topologySpreadConstraint must select its own pods, every grace period outlast preStop + drain, and the
# NetworkPolicies admit every connection a pod is configured with (the migration init containers' too). And the
# gateway's change stream reaches Kafka as the other Kafka components do (same brokers, TLS, SASL user and password
# key; its KAFKA_BROKERS is optional in its schema, so the loaders alone would not miss it).
#
# Releases per service (docs/releasing.md): each components.<name>.version in values.yaml must be the version in
# services/<name>/package.json, with an entry in services/<name>/CHANGELOG.md; no rendering may hold a pre/post
# install/upgrade hook (they run on every upgrade of the release, for every component); and a change that does not
# touch a component must not change its pod template: the chart is rendered again after each of a set of changes (a
# chart version/appVersion bump with one component's version, one component's credential, image tag or setting) and
# every Deployment's pod template is compared: exactly the touched component's must differ.
#
# Last, negative checks: each guard must still fail on values (or a chart) made to break it; and the Kafka topics:
# values.yaml's kafka.topics.list against the code's topics, examples/strimzi-topics.yaml against that list, and
# examples/autoscaling-kafka-lag.yaml rendered and validated.
#
# The cluster APIs a values set needs beyond Kubernetes' own are given to `helm template` with --api-versions
# ($EXTRA_APIS: the Prometheus Operator's ServiceMonitor and PrometheusRule, which templates/servicemonitor.yaml and
# templates/prometheusrule.yaml require when metrics.serviceMonitor.enabled, metrics.prometheusRule.enabled). `helm
# lint` has no such flag; in lint mode Helm logs a template's `fail` as INFO and renders on, so the lint still covers
# that template.
#
# Tools are built once into $FLOWBOARD_CACHE (~/.cache/flowboard): Helm with `go install` (helm-<version>/helm),
# kubernetes-validate in a venv (kubernetes-validate-<version>/). A warm run needs no network.
set -euo pipefail

# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
cd "$REPO"

HELM_MODULE=helm.sh/helm/v3/cmd/helm
HELM_VERSIONS=(v3.21.4 v3.19.0)     # v3.21.4 needs Go >= 1.26; v3.19.0 builds with Go 1.24
KV_VERSION=1.37.0                   # kubernetes-validate, ships the schemas it validates against
K8S_VERSION=${FLOWBOARD_K8S_VERSION:-1.36}   # target cluster version; must be one the package ships
CHART=deploy/helm/flowboard
RELEASE=flowboard NAMESPACE=flowboard       # fixed, so the goldens are stable
CRD_WITHOUT_SCHEMA="^WARN .* Couldn't find schema for kind (ServiceMonitor|PrometheusRule) with api version monitoring\.coreos\.com/v1 "
EXTRA_APIS=(--api-versions monitoring.coreos.com/v1/ServiceMonitor --api-versions monitoring.coreos.com/v1/PrometheusRule)
EXISTING_SECRET=flowboard-credentials       # the default values are rendered with it (they have no credentials)

UPDATE=0
PRINT_HELM=0
case "${1:-}" in
  --update) UPDATE=1 ;;
  --print-helm) PRINT_HELM=1 ;;   # the pinned Helm's path, built if need be (scripts/rules-check.sh renders with it)
  "") ;;
  *) die "usage: $0 [--update|--print-helm]" ;;
esac

mkdir -p "$FLOWBOARD_CACHE"

# Helm is built once with ensure_go_tool (deploy/local/lib.sh) into $FLOWBOARD_CACHE/helm-<version>/.
ensure_helm() {
  local v
  for v in "${HELM_VERSIONS[@]}"; do
    if HELM=$(ensure_go_tool helm "$HELM_MODULE@$v"); then return 0; fi
    warn "could not build helm $v"
  done
  die "no Helm: go install of ${HELM_VERSIONS[*]} failed"
}

ensure_kubernetes_validate() {
  local dir="$FLOWBOARD_CACHE/kubernetes-validate-$KV_VERSION" schemas
  if [ ! -f "$dir/.complete" ]; then
    log "installing kubernetes-validate $KV_VERSION into a venv"
    # A venv records its own path, so it is made in place; .complete marks a finished install.
    rm -rf "$dir"
    if ! { python3 -m venv "$dir" \
      && "$dir/bin/pip" install -q --disable-pip-version-check "kubernetes-validate==$KV_VERSION"; }; then
      rm -rf "$dir"
      die "could not install kubernetes-validate $KV_VERSION"
    fi
    touch "$dir/.complete"
  fi
  KV="$dir/bin/kubernetes-validate"
  schemas=$("$dir/bin/python" -c 'import kubernetes_validate, os; print(os.path.dirname(kubernetes_validate.__file__))')/kubernetes-json-schema
  [ -d "$schemas/v$K8S_VERSION.0-local-strict" ] \
    || die "kubernetes-validate $KV_VERSION ships no schemas for Kubernetes $K8S_VERSION (see $schemas)"
}

if ((PRINT_HELM)); then
  ensure_helm
  echo "$HELM"
  exit 0
fi

T0=$(now_ms)
FAILED=()
fail() { FAILED+=("$1"); echo "FAIL: $1" >&2; }

log "tools"
ensure_helm
ensure_kubernetes_validate
log "helm: $("$HELM" version --short) ($HELM); kubernetes-validate $KV_VERSION, Kubernetes $K8S_VERSION"

WORK=$(mktemp -d -t flowboard-chart-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# check_versions <values.yaml>: every component's `version` is its service's package.json version, and its
# CHANGELOG.md has that release's entry ("## <version> — <date>").
check_versions() {
  node -e '
    const fs = require("fs");
    const YAML = require("yaml");
    const file = process.argv[1];
    const components = YAML.parse(fs.readFileSync(file, "utf8")).components ?? {};
    let bad = 0;
    for (const [name, c] of Object.entries(components)) {
      const pkgFile = `services/${name}/package.json`;
      if (!fs.existsSync(pkgFile)) { console.log(`components.${name}: there is no ${pkgFile}`); bad++; continue; }
      const version = JSON.parse(fs.readFileSync(pkgFile, "utf8")).version;
      if (c.version !== version) {
        console.log(`components.${name}.version is ${c.version ?? "(unset)"} in ${file}, but ${pkgFile} says ${version}: ` +
          "they must agree (bump both; docs/releasing.md)");
        bad++;
      }
      const log = `services/${name}/CHANGELOG.md`;
      const entry = new RegExp(`^## \\[?${version.replace(/\./g, "\\.")}\\]? `, "m");
      if (!fs.existsSync(log) || !entry.test(fs.readFileSync(log, "utf8"))) {
        console.log(`${log} has no entry "## ${version} — <date>" for the version in ${pkgFile}`);
        bad++;
      }
    }
    if (bad) process.exit(1);
    console.log(`${Object.keys(components).length} components: versions agree with services/*/package.json, each with its CHANGELOG.md entry`);
  ' "$1"
}

log "components' versions against services/*/package.json ($CHART/values.yaml)"
if check_versions "$CHART/values.yaml" >"$WORK/versions.out" 2>&1; then
  cat "$WORK/versions.out"
else
  cat "$WORK/versions.out" >&2
  fail "components' versions (values.yaml vs services/*/package.json, CHANGELOG.md)"
fi

log "helm lint --strict $CHART"
# Default values render nothing without credentials (Helm reports the missing `required` values as INFO).
"$HELM" lint --strict --kube-version "$K8S_VERSION.0" "$CHART" >"$WORK/default.lint" 2>&1 \
  || { cat "$WORK/default.lint" >&2; fail "helm lint (default values)"; }

# no_release_hooks <rendered.yaml>: no install/upgrade/rollback hooks. Helm runs them on every upgrade of the release,
# for every component, whatever changed: migrations belong in the migrating components' init containers. (The
# `helm test` hook is fine: it runs only on `helm test`.)
no_release_hooks() {
  if grep -nE '^ *"?helm\.sh/hook"?: .*(install|upgrade|rollback)' "$1"; then
    echo "$1: install/upgrade/rollback hooks (above) run on every upgrade of the release, for every component"
    return 1
  fi
}

shopt -s nullglob
sets=("$CHART"/ci/*.yaml)
((${#sets[@]})) || die "no values sets in $CHART/ci/"
for f in "${sets[@]}"; do
  name=$(basename "$f" .yaml)
  out="$WORK/$name.yaml"
  golden="$CHART/examples/$name/rendered.yaml"
  log "[$name] helm lint --strict -f $f"
  "$HELM" lint --strict --kube-version "$K8S_VERSION.0" "$CHART" -f "$f" >"$WORK/$name.lint" 2>&1 || { cat "$WORK/$name.lint" >&2; fail "[$name] helm lint"; }
  log "[$name] helm template"
  if ! "$HELM" template "$RELEASE" "$CHART" --namespace "$NAMESPACE" --kube-version "$K8S_VERSION.0" "${EXTRA_APIS[@]}" \
    -f "$f" >"$out"; then
    fail "[$name] helm template"
    continue
  fi
  no_release_hooks "$out" >&2 || fail "[$name] install/upgrade hooks rendered (they run for every component on every upgrade)"
  log "[$name] kubernetes-validate -k $K8S_VERSION --strict ($(grep -c '^kind:' "$out") manifests)"
  # CRD kinds (the Prometheus Operator's ServiceMonitor) have no schema in the package: that one warning is
  # expected, and the golden diff below still checks their rendering.
  if ! "$KV" -k "$K8S_VERSION" --strict "$out" >"$WORK/$name.kv" 2>&1 \
    || grep -E '^(ERROR|WARN)' "$WORK/$name.kv" | grep -qvE "$CRD_WITHOUT_SCHEMA"; then
    grep -v '^INFO' "$WORK/$name.kv" >&2 || true
    fail "[$name] schema validation"
  fi
  if ((UPDATE)); then
    mkdir -p "$(dirname "$golden")"
    cp "$out" "$golden"
    log "[$name] golden updated: $golden"
  elif [ ! -f "$golden" ]; then
    fail "[$name] no golden $golden (run: bash scripts/chart-check.sh --update)"
  elif ! diff -u "$golden" "$out" >"$WORK/$name.diff"; then
    head -n 80 "$WORK/$name.diff" >&2
    fail "[$name] rendering differs from $golden (review, then: bash scripts/chart-check.sh --update)"
  else
    log "[$name] matches $golden"
  fi
done

# A golden without a values set is stale.
for d in "$CHART"/examples/*/; do
  [ -f "$CHART/ci/$(basename "$d").yaml" ] || fail "golden $d has no ci/$(basename "$d").yaml"
done

template() { "$HELM" template "$RELEASE" "$CHART" --namespace "$NAMESPACE" --kube-version "$K8S_VERSION.0" "$@"; }
# render <name> <helm template args...>: renders into $WORK/<name>.yaml, errors into $WORK/<name>.err.
render() {
  local name=$1
  shift
  template "$@" >"$WORK/$name.yaml" 2>"$WORK/$name.err"
}

log "[default] helm template (values.yaml, secrets.existingSecret=$EXISTING_SECRET)"
render default "${EXTRA_APIS[@]}" --set "secrets.existingSecret=$EXISTING_SECRET" \
  || { cat "$WORK/default.err" >&2; fail "[default] helm template"; }

# The one-node cluster's values (deploy/cluster/values.yaml), with the arguments `npm run cluster` gives them
# (deploy/cluster/lib.sh: helm_args), image tags aside: what npm run test:cluster installs passes the same checks.
log "[cluster] helm template (deploy/cluster/values.yaml, as npm run cluster installs it)"
printf '%s fixture\n' gateway boards membership files notifier webhooks >"$WORK/cluster.images"
# A cluster home of its own, so the cluster's generated key (webhooks_secret_key) is made there, not in .flowboard/.
# shellcheck source=deploy/cluster/lib.sh
(export FLOWBOARD_CLUSTER_HOME=$WORK/cluster-home && source deploy/cluster/lib.sh && helm_args "$WORK/cluster.images" &&
  printf '%s\n' "${HELM_ARGS[@]}") >"$WORK/cluster.args"
mapfile -t cluster_args <"$WORK/cluster.args"
render cluster "${cluster_args[@]}" || { cat "$WORK/cluster.err" >&2; fail "[cluster] helm template"; }

# The alerts and the dashboard, off by default: the production values with both on, linted, rendered and validated
# like the values sets (the rules' own tests and the dashboard's queries: scripts/rules-check.sh).
monitoring=(-f "$CHART/ci/production.yaml" --set metrics.prometheusRule.enabled=true --set metrics.grafanaDashboard.enabled=true)
log "[monitoring] ci/production.yaml with metrics.prometheusRule and metrics.grafanaDashboard on: lint, template, validate"
"$HELM" lint --strict --kube-version "$K8S_VERSION.0" "$CHART" "${monitoring[@]}" >"$WORK/monitoring.lint" 2>&1 \
  || { cat "$WORK/monitoring.lint" >&2; fail "[monitoring] helm lint"; }
if render monitoring "${EXTRA_APIS[@]}" "${monitoring[@]}"; then
  grep -q '^kind: PrometheusRule$' "$WORK/monitoring.yaml" || fail "[monitoring] no PrometheusRule rendered"
  grep -qE '^    grafana_dashboard: "1"$' "$WORK/monitoring.yaml" || fail "[monitoring] no ConfigMap labelled for Grafana's sidecar"
  if ! "$KV" -k "$K8S_VERSION" --strict "$WORK/monitoring.yaml" >"$WORK/monitoring.kv" 2>&1 \
    || grep -E '^(ERROR|WARN)' "$WORK/monitoring.kv" | grep -qvE "$CRD_WITHOUT_SCHEMA"; then
    grep -v '^INFO' "$WORK/monitoring.kv" >&2 || true
    fail "[monitoring] schema validation"
  fi
else
  cat "$WORK/monitoring.err" >&2
  fail "[monitoring] helm template"
fi

# env_check <values label>=<rendered.yaml>...: the pods' environment against the services' config loaders, their
# topology spread selectors and grace periods.
env_check() { node scripts/chart-env-check.mjs --existing-secret "$EXISTING_SECRET" "$@"; }

log "pods' configuration against the services' config loaders (scripts/chart-env-check.mjs)"
env_args=()   # <values label>=<rendered.yaml>, for each rendering that succeeded
if [ -s "$WORK/default.yaml" ]; then env_args+=("$CHART/values.yaml=$WORK/default.yaml"); fi
if [ -s "$WORK/cluster.yaml" ]; then env_args+=("deploy/cluster/values.yaml=$WORK/cluster.yaml"); fi
for f in "${sets[@]}"; do
  if [ -s "$WORK/$(basename "$f" .yaml).yaml" ]; then env_args+=("$f=$WORK/$(basename "$f" .yaml).yaml"); fi
done
if env_check "${env_args[@]}" >"$WORK/env.out" 2>&1; then
  tail -n 1 "$WORK/env.out"
else
  grep -v '^ok ' "$WORK/env.out" >&2
  fail "pods' configuration (chart-env-check)"
fi

# gateway_kafka <values label>=<rendered.yaml>[=<STREAM_RETENTION_HOURS>]...: the gateway's change stream reaches
# Kafka as the other Kafka components do (its KAFKA_BROKERS is optional in its schema, so the environment check
# cannot miss it): its ConfigMap's KAFKA_BROKERS, KAFKA_TLS and KAFKA_SASL_* are the boards', and with a mechanism it
# gets the password from the same Secret key. With a third part, its STREAM_RETENTION_HOURS must be that.
gateway_kafka() {
  node -e '
    const fs = require("fs");
    const YAML = require("yaml");
    let bad = 0;
    for (const arg of process.argv.slice(1)) {
      const [label, file, retention] = arg.split("=");
      const docs = YAML.parseAllDocuments(fs.readFileSync(file, "utf8")).map((d) => d.toJS()).filter(Boolean);
      const data = (c) => docs.find((d) => d.kind === "ConfigMap" && d.metadata.labels?.["app.kubernetes.io/component"] === c)?.data ?? {};
      const ref = (c) => docs.find((d) => d.kind === "Deployment" && d.metadata.labels["app.kubernetes.io/component"] === c)
        ?.spec.template.spec.containers[0].env?.find((e) => e.name === "KAFKA_SASL_PASSWORD")?.valueFrom?.secretKeyRef;
      const [gateway, boards] = [data("gateway"), data("boards")];
      const problems = [];
      for (const k of ["KAFKA_BROKERS", "KAFKA_TLS", "KAFKA_SASL_MECHANISM", "KAFKA_SASL_USERNAME"])
        if (gateway[k] !== boards[k]) problems.push(`${k} is ${JSON.stringify(gateway[k])}, the boards get ${JSON.stringify(boards[k])}`);
      if (JSON.stringify(ref("gateway")) !== JSON.stringify(ref("boards")))
        problems.push(`KAFKA_SASL_PASSWORD from ${JSON.stringify(ref("gateway"))}, the boards from ${JSON.stringify(ref("boards"))}`);
      if (retention !== undefined && gateway.STREAM_RETENTION_HOURS !== retention)
        problems.push(`STREAM_RETENTION_HOURS is ${JSON.stringify(gateway.STREAM_RETENTION_HOURS)}, not ${retention}`);
      if (problems.length) { bad++; console.log(`[${label}] the gateway: ${problems.join("; ")}`); }
    }
    if (bad) process.exit(1);
    console.log(`the gateway reaches Kafka as the boards do in ${process.argv.length - 1} renderings`);
  ' "$@"
}
# (minimal: the services create topics, so the list's 168 h; production pre-creates them: 0, left to their operator.)
gw_args=()
for a in "${env_args[@]}"; do
  case $a in
    "$CHART/ci/minimal.yaml="*) gw_args+=("$a=168") ;;
    "$CHART/ci/production.yaml="*) gw_args+=("$a=0") ;;
    *) gw_args+=("$a") ;;
  esac
done
if gateway_kafka "${gw_args[@]}" >"$WORK/gateway-kafka.out" 2>&1; then
  log "$(cat "$WORK/gateway-kafka.out")"
else
  cat "$WORK/gateway-kafka.out" >&2
  fail "the gateway's Kafka settings (change stream) differ from the other Kafka components'"
fi

# pod_template_changes <a.yaml> <b.yaml>: per Deployment (by component), the paths of its pod template that differ
# between two renderings, one "<component><TAB><path, path...>" line each (empty: identical).
pod_template_changes() {
  node -e '
    const fs = require("fs");
    const YAML = require("yaml");
    const load = (f) => new Map(YAML.parseAllDocuments(fs.readFileSync(f, "utf8")).map((d) => d.toJS())
      .filter((d) => d && d.kind === "Deployment")
      .map((d) => [d.metadata.labels["app.kubernetes.io/component"], d.spec.template]));
    const diff = (x, y, path, out) => {
      if (JSON.stringify(x) === JSON.stringify(y)) return out;
      if (x && y && typeof x === "object" && typeof y === "object") {
        for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) diff(x[k], y[k], path ? `${path}.${k}` : k, out);
      } else out.push(path);
      return out;
    };
    const [a, b] = [load(process.argv[1]), load(process.argv[2])];
    for (const name of [...new Set([...a.keys(), ...b.keys()])].sort())
      console.log(`${name}\t${diff(a.get(name), b.get(name), "", []).join(", ")}`);
  ' "$1" "$2"
}

# expect_rolls <what> <components that must roll, comma-separated, or "-"> <chart> <helm template args...>: renders
# <chart> with the args (over the values set in $ISO_VALUES) and compares every Deployment's pod template with the
# base rendering ($WORK/iso-base.yaml): exactly the named components' must differ.
expect_rolls() {
  local what=$1 want=$2 chart=$3 got
  shift 3
  "$HELM" template "$RELEASE" "$chart" --namespace "$NAMESPACE" --kube-version "$K8S_VERSION.0" "${EXTRA_APIS[@]}" \
    -f "$ISO_VALUES" "$@" >"$WORK/iso.yaml" 2>"$WORK/iso.err" || { cat "$WORK/iso.err"; return 1; }
  pod_template_changes "$WORK/iso-base.yaml" "$WORK/iso.yaml" >"$WORK/iso.changes" || return 1
  got=$(awk -F '\t' '$2 != "" { print $1 }' "$WORK/iso.changes" | paste -sd, -)
  if [ "${got:--}" != "$want" ]; then
    echo "$what: pod templates changed: ${got:-none}; expected: $want"
    awk -F '\t' '$2 != "" { print "  " $1 ": " $2 }' "$WORK/iso.changes"
    return 1
  fi
  local same
  same=$(awk -F '\t' '$2 == ""' "$WORK/iso.changes" | wc -l)
  if [ "$want" = - ]; then echo "$what: no pod template changed ($same identical)"
  else echo "$what: pod templates changed: $want only ($same others identical)"; fi
  awk -F '\t' '$2 != "" { print "  " $1 ": " $2 }' "$WORK/iso.changes"
}

# A copy of the chart with its version and appVersion bumped, as a chart release that changes nothing else would be.
bumped_chart() {  # bumped_chart <dir>
  rm -rf "$1" && cp -r "$CHART" "$1"
  sed -i -E 's/^version: .*/version: 9.9.9/; s/^appVersion: .*/appVersion: "9.9.9"/' "$1/Chart.yaml"
}

log "one component's change rolls that component only (pod templates of two renderings compared)"
isolation() {  # isolation <values set>: the cases below over that set
  ISO_VALUES=$1
  "$HELM" template "$RELEASE" "$CHART" --namespace "$NAMESPACE" --kube-version "$K8S_VERSION.0" "${EXTRA_APIS[@]}" \
    -f "$ISO_VALUES" >"$WORK/iso-base.yaml" 2>"$WORK/iso.err" || { cat "$WORK/iso.err" >&2; return 1; }
  local bumped="$WORK/chart-bumped" rc=0 chart
  chart=$(sed -n 's/^version: //p' "$CHART/Chart.yaml")
  bumped_chart "$bumped"
  # Each case: what, the components that must roll, the chart, helm's arguments.
  expect_rolls "chart $chart -> 9.9.9 (version and appVersion)" - "$bumped" || rc=1
  expect_rolls "chart $chart -> 9.9.9 + components.boards.version=1.1.0" boards "$bumped" \
    --set components.boards.version=1.1.0 || rc=1
  expect_rolls "components.webhooks.image.tag=1.0.1-rc.1" webhooks "$CHART" --set components.webhooks.image.tag=1.0.1-rc.1 || rc=1
  expect_rolls "components.membership.version=1.0.1" membership "$CHART" --set components.membership.version=1.0.1 || rc=1
  expect_rolls "external.s3.bucket" files "$CHART" --set external.s3.bucket=another-bucket || rc=1
  expect_rolls "kafka.topics.partitions (every Kafka user's but the gateway's: it creates no topic)" \
    boards,files,membership,notifier,webhooks "$CHART" \
    --set kafka.topics.partitions=16 || rc=1
  if ! grep -q 'existingSecret:' "$ISO_VALUES"; then
    # A chart-made Secret: each component's checksum covers only the keys it uses.
    expect_rolls "secrets.values.SMTP_URL (the notifier's)" notifier "$CHART" \
      --set-string secrets.values.SMTP_URL=smtp://mail.elsewhere.svc:25 || rc=1
    expect_rolls "secrets.values.S3_SECRET_KEY (files')" files "$CHART" --set-string secrets.values.S3_SECRET_KEY=rotated || rc=1
    expect_rolls "secrets.values.REDIS_URL (gateway's and notifier's)" gateway,notifier "$CHART" \
      --set-string secrets.values.REDIS_URL=redis://redis.elsewhere.svc:6379 || rc=1
  fi
  return $rc
}
for f in "$CHART/ci/minimal.yaml" "$CHART/ci/production.yaml"; do
  if isolation "$f" >"$WORK/isolation.out" 2>&1; then
    sed "s|^|[$(basename "$f" .yaml)] |" "$WORK/isolation.out"
  else
    sed "s|^|[$(basename "$f" .yaml)] |" "$WORK/isolation.out" >&2
    fail "[$(basename "$f" .yaml)] a change rolled components it does not touch (or not the one it does)"
  fi
done

# expect_fail <what> <ERE> <command...>: the command must fail, and its output match the ERE.
expect_fail() {
  local what=$1 pattern=$2
  shift 2
  if "$@" >"$WORK/negative.out" 2>&1; then
    fail "negative check \"$what\": passed, should have failed"
  elif ! grep -qE "$pattern" "$WORK/negative.out"; then
    cat "$WORK/negative.out" >&2
    fail "negative check \"$what\": failed without saying /$pattern/"
  else
    log "negative check ok: $what: $(grep -E "$pattern" "$WORK/negative.out" | head -n 1 | cut -c 1-200)"
  fi
}
MINIMAL="$CHART/ci/minimal.yaml"

log "negative checks"
# The ServiceMonitor needs the Prometheus Operator's CRD: without that API the chart refuses, saying what to do.
expect_fail "production without the ServiceMonitor API" \
  'install the Prometheus Operator CRDs first, or set metrics\.serviceMonitor\.enabled=false' \
  template -f "$CHART/ci/production.yaml"
# So does the PrometheusRule without its API (the ServiceMonitor's given).
expect_fail "the alerts without the PrometheusRule API" \
  'install the Prometheus Operator CRDs first, or set metrics\.prometheusRule\.enabled=false' \
  template -f "$CHART/ci/production.yaml" --api-versions monitoring.coreos.com/v1/ServiceMonitor \
  --set metrics.prometheusRule.enabled=true
# A grace period that does not outlast the preStop sleep + the services' drain is refused.
expect_fail "grace period not longer than preStop sleep + drain" \
  'terminationGracePeriodSeconds \(30\) must be larger than preStopSleepSeconds' \
  template -f "$MINIMAL" --set default.terminationGracePeriodSeconds=30
# The PostgreSQL connection budget (values.yaml `postgresql:`): pods (replicas or HPA maxReplicas, + maxSurge) ×
# poolSize over the components on a server must fit its maxConnections - reservedConnections; the failure names
# each component's term. Production's main server (boards 90 + membership 90 + files 45 = 225) against 200 - 20...
expect_fail "production's pools over a smaller main server" \
  'PostgreSQL connection budget exceeded on postgresql: the pods may open 225 connections, more than maxConnections 200 - reservedConnections 20 = 180\..*boards: \(HPA maxReplicas 8 \+ maxSurge 1\) pods × poolSize 10 = 90; files: \(HPA maxReplicas 8 \+ maxSurge 1\) pods × poolSize 5 = 45; membership: \(HPA maxReplicas 8 \+ maxSurge 1\) pods × poolSize 10 = 90;' \
  template -f "$CHART/ci/production.yaml" "${EXTRA_APIS[@]}" --set postgresql.maxConnections=200
# ...webhooks on a server of its own is counted against that one's budget only...
expect_fail "production's webhooks over its own server" \
  'budget exceeded on postgresql\.servers\.webhooks-db: the pods may open 72 connections, .*webhooks: \(HPA maxReplicas 8 \+ maxSurge 1\) pods × poolSize 8 = 72;' \
  template -f "$CHART/ci/production.yaml" "${EXTRA_APIS[@]}" --set postgresql.servers.webhooks-db.maxConnections=60
# ...a percentage surge rounds up as Kubernetes does (3 replicas, 50 %: 2 more pods), and the defaults' 100 - 10...
expect_fail "three replicas each with a 50 % surge against the default budget" \
  'the pods may open 200 connections, more than maxConnections 100 - reservedConnections 10 = 90\..*boards: \(replicas 3 \+ maxSurge 2\) pods × poolSize 10 = 50' \
  template -f "$MINIMAL" --set default.replicas=3 --set-string 'default.strategy.rollingUpdate.maxSurge=50%'
# ...a server that is not declared is refused, and so is a pool size set around the budget (env, extraEnv).
expect_fail "a database server not in postgresql.servers" \
  'components\.boards\.database\.server "elsewhere" is not a server of postgresql\.servers' \
  template -f "$MINIMAL" --set components.boards.database.server=elsewhere
expect_fail "the pool size as a plain variable" \
  'components\.boards\.env\.DATABASE_POOL_SIZE: set components\.boards\.database\.poolSize instead' \
  template -f "$MINIMAL" --set-string components.boards.env.DATABASE_POOL_SIZE=50
expect_fail "a pool size past the services' limit" "at '/components/boards/database/poolSize': maximum: got 101, want 100" \
  template -f "$MINIMAL" --set components.boards.database.poolSize=101
# The escape hatches do not override what the chart sets, and the schema catches a misspelt EnvVar.
expect_fail "extraEnv setting a secretEnv variable again" \
  'components\.boards\.extraEnv: DATABASE_URL is already set from secretEnv' \
  template -f "$MINIMAL" --set 'components.boards.extraEnv[0].name=DATABASE_URL' --set 'components.boards.extraEnv[0].value=x'
expect_fail "a misspelt valueFrom in extraEnv" "at '/components/boards/extraEnv/0': additional properties 'valuefrom' not allowed" \
  template -f "$MINIMAL" --set 'components.boards.extraEnv[0].name=POD' --set 'components.boards.extraEnv[0].valuefrom.fieldRef.fieldPath=metadata.name'
expect_fail "an extra volume named like the chart's /tmp" 'components\.boards\.extraVolumes: the volume name tmp is the chart' \
  template -f "$MINIMAL" --set 'components.boards.extraVolumes[0].name=tmp' --set 'components.boards.extraVolumes[0].emptyDir.medium=Memory'
expect_fail "secretNames of a variable that is not in secretEnv" \
  'components\.boards\.secretNames\.REDIS_URL: REDIS_URL is not one of its secretEnv variables' \
  template -f "$MINIMAL" --set components.boards.secretNames.REDIS_URL=redis-auth
# The escape hatches render into valid pods (chart-env-check runs the services' own containers only, so the extra
# ones are checked here): boards' database URL from a Secret of its own (then not required in secrets.values), an
# init container after `migrate`, a sidecar, a priority class.
cat >"$WORK/hatches.values.yaml" <<'EOF'
components:
  boards:
    secretEnv: { DATABASE_URL: uri }
    secretNames: { DATABASE_URL: boards-db-app }
    priorityClassName: flowboard-critical
    initContainers:
      - name: wait-for-cache
        image: busybox:1.37
        command: [sh, -c, "until nc -z redis.infra.svc 6379; do sleep 1; done"]
        securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: [ALL] } }
    sidecars:
      - name: proxy
        image: envoyproxy/envoy:v1.36.0
        securityContext: { allowPrivilegeEscalation: false, runAsNonRoot: true, capabilities: { drop: [ALL] } }
EOF
grep -v '^ *BOARDS_DATABASE_URL:' "$MINIMAL" >"$WORK/hatches-base.values.yaml"
if render hatches -f "$WORK/hatches-base.values.yaml" -f "$WORK/hatches.values.yaml"; then
  { "$KV" -k "$K8S_VERSION" --strict "$WORK/hatches.yaml" >"$WORK/hatches.kv" 2>&1 && ! grep -qE '^(ERROR|WARN)' "$WORK/hatches.kv"; } \
    || { grep -v '^INFO' "$WORK/hatches.kv" >&2; fail "[hatches] schema validation"; }
  node -e '
    const YAML = require("yaml");
    const docs = YAML.parseAllDocuments(require("fs").readFileSync(process.argv[1], "utf8")).map((d) => d.toJS())
      .filter(Boolean);
    const pod = docs.find((d) => d.kind === "Deployment" && d.metadata.name === "flowboard-boards").spec.template.spec;
    const ref = (c) => c.env.find((e) => e.name === "DATABASE_URL").valueFrom.secretKeyRef;
    const want = (what, ok) => { if (!ok) { console.log(`[hatches] ${what}`); process.exitCode = 1; } };
    want("init containers are not [migrate, wait-for-cache]", pod.initContainers.map((c) => c.name).join() === "migrate,wait-for-cache");
    want("containers are not [boards, proxy]", pod.containers.map((c) => c.name).join() === "boards,proxy");
    for (const c of [pod.initContainers[0], pod.containers[0]])
      want(`${c.name}: DATABASE_URL is not from boards-db-app/uri`, JSON.stringify(ref(c)) === JSON.stringify({ name: "boards-db-app", key: "uri" }));
    want("no priorityClassName", pod.priorityClassName === "flowboard-critical");
    const secret = docs.find((d) => d.kind === "Secret");
    want("the chart-made Secret still holds BOARDS_DATABASE_URL", !("BOARDS_DATABASE_URL" in secret.stringData));
  ' "$WORK/hatches.yaml" >&2 \
    && log "[hatches] boards with a Secret of its own, an init container, a sidecar and a priority class: as expected" \
    || fail "[hatches] escape hatches rendered wrong"
else
  cat "$WORK/hatches.err" >&2
  fail "[hatches] helm template with the escape hatches"
fi
# The environment check finds a variable a service requires that the pod does not get (boards' KAFKA_BROKERS, as
# in the first real install), naming the values set and the component: the minimal rendering, less that line of
# the boards ConfigMap.
awk '/^---/ { cm = 0; boards = 0 } /^kind: ConfigMap$/ { cm = 1 } /^  name: flowboard-boards$/ { boards = 1 }
  !(cm && boards && /^  KAFKA_BROKERS: /)' "$WORK/minimal.yaml" >"$WORK/negative-env.yaml"
label="$MINIMAL, less KAFKA_BROKERS in the boards ConfigMap"
if cmp -s "$WORK/minimal.yaml" "$WORK/negative-env.yaml"; then
  fail "negative check \"boards without KAFKA_BROKERS\": no KAFKA_BROKERS in the boards ConfigMap to remove"
else
  expect_fail "boards without KAFKA_BROKERS" 'loadBoardsConfig: KAFKA_BROKERS' env_check "$label=$WORK/negative-env.yaml"
  grep -qF "FAIL [$label] component boards (Deployment " "$WORK/negative.out" \
    || fail "negative check \"boards without KAFKA_BROKERS\": the failure names no values set and component"
fi
# The gateway left out of the SCRAM password's mapping (ci/ca-bundle.yaml, less its secretEnv entry) fails as its
# start would, and the gateway without KAFKA_BROKERS (optional in its schema: the stream would answer 503) is found.
sed '/^  gateway:$/ { N; /\n    secretEnv: { KAFKA_SASL_PASSWORD: KAFKA_SASL_PASSWORD }$/d }' "$CHART/ci/ca-bundle.yaml" \
  >"$WORK/negative-gateway-sasl.values.yaml"
if cmp -s "$CHART/ci/ca-bundle.yaml" "$WORK/negative-gateway-sasl.values.yaml"; then
  fail "negative check \"the gateway without its Kafka password\": no gateway secretEnv line in ci/ca-bundle.yaml to remove"
fi
render negative-gateway-sasl -f "$WORK/negative-gateway-sasl.values.yaml" \
  || { cat "$WORK/negative-gateway-sasl.err" >&2; fail "negative check: helm template without the gateway's Kafka password"; }
expect_fail "the gateway without its Kafka password" \
  'container gateway: services/gateway kafkaSecurity \(@flowboard/messaging\): KAFKA_SASL_PASSWORD: required when KAFKA_SASL_MECHANISM is scram-sha-512' \
  env_check "ci/ca-bundle.yaml less the gateway's KAFKA_SASL_PASSWORD=$WORK/negative-gateway-sasl.yaml"
render negative-gateway-kafka -f "$MINIMAL" --set components.gateway.env.KAFKA_BROKERS=null \
  || { cat "$WORK/negative-gateway-kafka.err" >&2; fail "negative check: helm template without the gateway's brokers"; }
expect_fail "the gateway without KAFKA_BROKERS" 'the gateway: KAFKA_BROKERS is undefined, the boards get' \
  gateway_kafka "$MINIMAL less the gateway's KAFKA_BROKERS=$WORK/negative-gateway-kafka.yaml"
# The webhooks' sealing key is required like every credential of an enabled component (the minimal set less it).
grep -v '^ *WEBHOOKS_SECRET_ENCRYPTION_KEY:' "$MINIMAL" >"$WORK/negative-key.values.yaml"
expect_fail "minimal without the webhooks' sealing key" \
  'secrets\.values\.WEBHOOKS_SECRET_ENCRYPTION_KEY is required' \
  template -f "$WORK/negative-key.values.yaml"
# A NetworkPolicy that does not admit a connection a pod is configured with is found: membership admitting the
# gateway only, while webhooks is configured with MEMBERSHIP_ADDR.
render negative-netpol -f "$MINIMAL" --set 'components.membership.networkPolicy.allowFrom={gateway}' \
  || { cat "$WORK/negative-netpol.err" >&2; fail "negative check: helm template with membership closed to webhooks"; }
expect_fail "membership closed to webhooks" \
  'MEMBERSHIP_ADDR \(flowboard-membership:50052\): NetworkPolicy flowboard-membership admits no connection' \
  env_check "$MINIMAL + membership allowFrom gateway only=$WORK/negative-netpol.yaml"
# ...and webhooks' egress without its database's port.
render negative-egress -f "$MINIMAL" --set 'networkPolicy.infrastructure.postgres.ports={5433}' \
  || { cat "$WORK/negative-egress.err" >&2; fail "negative check: helm template with another database port"; }
expect_fail "webhooks' egress without the database port" \
  'DATABASE_URL \(postgres\.infra\.svc:5432\): its NetworkPolicy egress admits no connection to port 5432' \
  env_check "$MINIMAL + networkPolicy.infrastructure.postgres.ports 5433=$WORK/negative-egress.yaml"
# A topology spread constraint whose labelSelector does not select its own pods is found.
cat >"$WORK/negative-spread.values.yaml" <<'EOF'
components:
  gateway:
    topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: ScheduleAnyway
        labelSelector: { matchLabels: { app.kubernetes.io/component: boards } }
EOF
render negative-spread -f "$MINIMAL" -f "$WORK/negative-spread.values.yaml" \
  || { cat "$WORK/negative-spread.err" >&2; fail "negative check: helm template with a foreign spread selector"; }
expect_fail "spread constraint that selects other pods" \
  'topologySpreadConstraints\[0\] .*does not select the pod' \
  env_check "$MINIMAL + gateway spread by the boards' labels=$WORK/negative-spread.yaml"

# A component whose version disagrees with its package.json is named.
sed -E '/^  boards:$/,/^  [a-z]+:$/ s/^    version: .*/    version: "9.9.9"/' "$CHART/values.yaml" >"$WORK/negative-version.values.yaml"
expect_fail "boards' version not its package.json's" \
  'components\.boards\.version is 9\.9\.9 .*services/boards/package\.json says' \
  check_versions "$WORK/negative-version.values.yaml"
# A migration init container of another version than its pod's service is found (boards' migrate at 0.9.0).
sed '0,/^\( *\)image: flowboard\/boards:\(.*\)$/ s//\1image: flowboard\/boards:0.9.0/' "$WORK/minimal.yaml" >"$WORK/negative-migrate.yaml"
expect_fail "boards' migrations from another image" \
  'init container migrate: image flowboard/boards:0\.9\.0 is not the service container' \
  env_check "$MINIMAL, boards' migrate image 0.9.0=$WORK/negative-migrate.yaml"
# A pre-upgrade hook is found (the minimal rendering plus a migration Job as the chart had them).
{ cat "$WORK/minimal.yaml"; printf -- '---\nkind: Job\nmetadata:\n  name: flowboard-boards-migrate\n  annotations:\n    helm.sh/hook: pre-install,pre-upgrade\n'; } >"$WORK/negative-hook.yaml"
expect_fail "a pre-upgrade hook Job" 'install/upgrade/rollback hooks .* run on every upgrade' no_release_hooks "$WORK/negative-hook.yaml"
# The isolation check sees a pod template that carries something release-wide: a chart whose pods are annotated
# with the chart version rolls every component on a chart bump.
leaky="$WORK/chart-leaky"
rm -rf "$leaky" && cp -r "$CHART" "$leaky"
sed -i -E 's/^( *)checksum\/config: .*/&\n\1chart-version: {{ $.Chart.Version | quote }}/' "$leaky/templates/workload.yaml"
grep -q 'chart-version:' "$leaky/templates/workload.yaml" || fail "negative check: could not plant a chart-version annotation"
ISO_VALUES=$MINIMAL
"$HELM" template "$RELEASE" "$leaky" --namespace "$NAMESPACE" --kube-version "$K8S_VERSION.0" -f "$MINIMAL" \
  >"$WORK/iso-base.yaml" 2>"$WORK/iso.err" || { cat "$WORK/iso.err" >&2; fail "negative check: helm template (leaky chart)"; }
bumped_chart "$WORK/chart-leaky-bumped" && cp "$leaky/templates/workload.yaml" "$WORK/chart-leaky-bumped/templates/"
expect_fail "a chart bump seen in every pod template" \
  'pod templates changed: boards,files,gateway,membership,notifier,webhooks; expected: -' \
  expect_rolls "leaky chart bumped" - "$WORK/chart-leaky-bumped"

# The partition budget (values.yaml `kafka.topics`): a component consuming a topic may not run more replicas (HPA
# maxReplicas) than the topic has partitions; the failure names each component, topic and count. Production's
# consumers scale to 8 against 6 partitions...
expect_fail "production's consumers over 6 partitions" \
  'partition budget: components\.boards\.autoscaling\.maxReplicas is 8, but it consumes membership\.project-deleted\.v1, which has 6 partitions \(kafka\.topics\.partitions\).*components\.webhooks\.autoscaling\.maxReplicas is 8, but it consumes flowboard\.resource-changed\.v1' \
  template -f "$CHART/ci/production.yaml" "${EXTRA_APIS[@]}" --set kafka.topics.partitions=6
# ...and without an HPA, the replicas count (the notifier at 4 against the default 3).
expect_fail "four notifiers on three partitions" \
  'components\.notifier\.replicas is 4, but it consumes membership\.invite-created\.v1, which has 3 partitions' \
  template -f "$MINIMAL" --set components.notifier.replicas=4
# A replication factor of 0 is no factor (-1 is the broker's default).
expect_fail "replication factor 0" "at '/kafka/topics/replicationFactor'" \
  template -f "$MINIMAL" --set kafka.topics.replicationFactor=0

# The examples beside the goldens: scaling the notifier on its Kafka lag (a values file), rendered over the minimal
# set and validated; and the Strimzi topics, which must list values.yaml's topics with their retention, at
# ci/production.yaml's partitions and replication.
LAG_EXAMPLE=$CHART/examples/autoscaling-kafka-lag.yaml
if render kafka-lag -f "$MINIMAL" -f "$LAG_EXAMPLE"; then
  { "$KV" -k "$K8S_VERSION" --strict "$WORK/kafka-lag.yaml" >"$WORK/kafka-lag.kv" 2>&1 && ! grep -qE '^(ERROR|WARN)' "$WORK/kafka-lag.kv"; } \
    || { grep -v '^INFO' "$WORK/kafka-lag.kv" >&2; fail "[kafka-lag] schema validation of $LAG_EXAMPLE"; }
  node -e '
    const YAML = require("yaml");
    const docs = YAML.parseAllDocuments(require("fs").readFileSync(process.argv[1], "utf8")).map((d) => d.toJS()).filter(Boolean);
    const hpa = docs.find((d) => d.kind === "HorizontalPodAutoscaler" && d.metadata.name === "flowboard-notifier");
    const ok = hpa && hpa.spec.metrics.length === 1 && hpa.spec.metrics[0].external?.metric?.name === "flowboard_kafka_consumer_group_lag"
      && hpa.spec.behavior?.scaleDown?.stabilizationWindowSeconds === 600;
    if (!ok) { console.log("[kafka-lag] the notifier HPA has not the External lag metric alone and the example behavior"); process.exit(1); }
  ' "$WORK/kafka-lag.yaml" >&2 \
    && log "[kafka-lag] $LAG_EXAMPLE: the notifier's HPA on its group's lag, with its behavior, validates" \
    || fail "[kafka-lag] $LAG_EXAMPLE rendered wrong"
else
  cat "$WORK/kafka-lag.err" >&2
  fail "[kafka-lag] helm template with $LAG_EXAMPLE"
fi
# strimzi_matches <strimzi-topics.yaml>: the KafkaTopics against values.yaml's kafka.topics.list.
strimzi_matches() {
  node -e '
    const fs = require("fs");
    const YAML = require("yaml");
    const [file, valuesFile, prodFile] = process.argv.slice(1);
    const list = YAML.parse(fs.readFileSync(valuesFile, "utf8")).kafka.topics.list;
    const prod = YAML.parse(fs.readFileSync(prodFile, "utf8")).kafka.topics;
    const topics = new Map(YAML.parseAllDocuments(fs.readFileSync(file, "utf8")).map((d) => d.toJS())
      .filter((d) => d && d.kind === "KafkaTopic").map((d) => [d.spec.topicName, d.spec]));
    const bad = [];
    for (const t of list) {
      const k = topics.get(t.name);
      if (!k) { bad.push(`${t.name}: no KafkaTopic in ${file}`); continue; }
      topics.delete(t.name);
      if (Number(k.config?.["retention.ms"]) !== t.retentionHours * 3600000)
        bad.push(`${t.name}: retention.ms ${k.config?.["retention.ms"]}, values.yaml says ${t.retentionHours} h`);
      if (k.partitions !== (t.partitions ?? prod.partitions)) bad.push(`${t.name}: ${k.partitions} partitions, ${prodFile} says ${prod.partitions}`);
      if (k.replicas !== prod.replicationFactor) bad.push(`${t.name}: ${k.replicas} replicas, ${prodFile} says ${prod.replicationFactor}`);
    }
    for (const name of topics.keys()) bad.push(`${name}: a KafkaTopic for no topic of values.yaml kafka.topics.list`);
    if (bad.length) { console.log(bad.join("\n")); process.exit(1); }
    console.log(`${list.length} topics: ${file} and values.yaml agree`);
  ' "$1" "$CHART/values.yaml" "$CHART/ci/production.yaml"
}
STRIMZI=$CHART/examples/strimzi-topics.yaml
strimzi_matches "$STRIMZI" >"$WORK/strimzi.out" 2>&1 && log "[strimzi] $(cat "$WORK/strimzi.out")" \
  || { cat "$WORK/strimzi.out" >&2; fail "[strimzi] $STRIMZI does not match values.yaml's kafka.topics.list"; }
# ...and the check sees a topic missing from it (the last KafkaTopic cut off).
awk '/^---$/ { n++ } { doc[n] = doc[n] $0 "\n" } END { for (i = 0; i < n; i++) printf "%s", doc[i] }' "$STRIMZI" >"$WORK/negative-strimzi.yaml"
expect_fail "a topic missing from the Strimzi example" 'webhooks-dlq: no KafkaTopic in' strimzi_matches "$WORK/negative-strimzi.yaml"

# topics_match_code <values.yaml>: kafka.topics.list names every event topic of @flowboard/events (its built dist, as
# chart-env-check needs the services'), and each consuming component's dead-letter topic, and nothing else.
topics_match_code() {
  node -e '
    const YAML = require("yaml");
    const list = YAML.parse(require("fs").readFileSync(process.argv[1], "utf8")).kafka.topics.list;
    const events = require("./packages/events").ALL_EVENTS.map((e) => e.topic);
    const consumers = [...new Set(list.flatMap((t) => t.consumers))];
    const want = new Map([...events.map((t) => [t, "an event of @flowboard/events"]),
      ...consumers.map((c) => [`${c}-dlq`, `${c}'"'"'s dead letters`])]);
    const bad = [];
    for (const [name, what] of want) if (!list.some((t) => t.name === name)) bad.push(`${name} (${what}) is not in kafka.topics.list`);
    for (const t of list) if (!want.has(t.name)) bad.push(`${t.name}: in kafka.topics.list, but no event or dead-letter topic`);
    for (const c of consumers) if (!list.some((t) => t.name === `${c}-dlq` && t.producers.includes(c))) bad.push(`${c}-dlq: ${c} is not among its producers`);
    if (bad.length) { console.log(bad.join("\n")); process.exit(1); }
    console.log(`kafka.topics.list: the ${events.length} event topics and ${consumers.length} dead-letter topics`);
  ' "$1"
}
topics_match_code "$CHART/values.yaml" >"$WORK/topics.out" 2>&1 && log "[topics] $(cat "$WORK/topics.out")" \
  || { cat "$WORK/topics.out" >&2; fail "[topics] values.yaml's kafka.topics.list against the code's topics"; }
sed '/^      - name: boards\.story-deleted\.v1$/,/^        retentionHours: /d' "$CHART/values.yaml" >"$WORK/negative-topics.values.yaml"
expect_fail "a topic of the code missing from kafka.topics.list" \
  'boards\.story-deleted\.v1 \(an event of @flowboard/events\) is not in kafka\.topics\.list' \
  topics_match_code "$WORK/negative-topics.values.yaml"

secs=$(awk -v ms=$(($(now_ms) - T0)) 'BEGIN { printf "%.1f", ms / 1000 }')
if ((${#FAILED[@]})); then
  echo "chart-check: ${#FAILED[@]} failed in ${secs}s:" >&2
  printf '  %s\n' "${FAILED[@]}" >&2
  exit 1
fi
log "chart-check: ${#sets[@]} values sets linted, rendered, validated and compared, pods' configuration checked in ${secs}s"
