#!/usr/bin/env bash
# Checks the Helm chart deploy/helm/flowboard offline: `helm lint --strict` (plain and with each ci/*.yaml),
# `helm template` for each ci/*.yaml values set (release "flowboard", namespace "flowboard", Kubernetes $K8S_VERSION:
# a go-installed Helm otherwise assumes v1.20), validation of every rendered manifest against the Kubernetes
# JSON schemas (kubernetes-validate, --strict), and a diff against the golden rendering in
# examples/<values set>/rendered.yaml. `--update` rewrites the goldens instead of comparing them.
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
CRD_WITHOUT_SCHEMA="^WARN .* Couldn't find schema for kind ServiceMonitor with api version monitoring\.coreos\.com/v1 "

UPDATE=0
case "${1:-}" in
  --update) UPDATE=1 ;;
  "") ;;
  *) die "usage: $0 [--update]" ;;
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

T0=$(now_ms)
FAILED=()
fail() { FAILED+=("$1"); echo "FAIL: $1" >&2; }

log "tools"
ensure_helm
ensure_kubernetes_validate
log "helm: $("$HELM" version --short) ($HELM); kubernetes-validate $KV_VERSION, Kubernetes $K8S_VERSION"

WORK=$(mktemp -d -t flowboard-chart-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

log "helm lint --strict $CHART"
# Default values render nothing without credentials (Helm reports the missing `required` values as INFO).
"$HELM" lint --strict --kube-version "$K8S_VERSION.0" "$CHART" >"$WORK/default.lint" 2>&1 \
  || { cat "$WORK/default.lint" >&2; fail "helm lint (default values)"; }

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
  if ! "$HELM" template "$RELEASE" "$CHART" --namespace "$NAMESPACE" --kube-version "$K8S_VERSION.0" -f "$f" >"$out"; then
    fail "[$name] helm template"
    continue
  fi
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

secs=$(awk -v ms=$(($(now_ms) - T0)) 'BEGIN { printf "%.1f", ms / 1000 }')
if ((${#FAILED[@]})); then
  echo "chart-check: ${#FAILED[@]} failed in ${secs}s:" >&2
  printf '  %s\n' "${FAILED[@]}" >&2
  exit 1
fi
log "chart-check: ${#sets[@]} values sets linted, rendered, validated and compared in ${secs}s"
