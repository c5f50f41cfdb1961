#!/usr/bin/env bash
# Checks deploy/compose.yaml offline, without a Docker engine: `docker-compose config --quiet` parses it,
# interpolates it and validates it against the Compose specification (the schema and the cross-references:
# depends_on targets, networks, volumes...), once for the whole file and once for the infrastructure-only
# selection (`... up postgres redis kafka minio mailpit`). Then the resolved model is checked for what the README
# promises: only the gateway and the infrastructure publish ports, and only on 127.0.0.1; and every Flowboard
# container is hardened as in the chart (read-only root filesystem, no capabilities, no-new-privileges).
#
# Nothing is built, pulled or started. The Compose CLI is built once with `go install` into $FLOWBOARD_CACHE
# (~/.cache/flowboard/docker-compose-<version>/); a warm run needs no network.
set -euo pipefail

# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
cd "$REPO"

COMPOSE_FILE=deploy/compose.yaml
INFRA=(postgres redis kafka minio mailpit)
PUBLISHERS=(gateway "${INFRA[@]}")   # the only services allowed to publish ports

T0=$(now_ms)
log "tools"
ensure_compose
log "compose: $(basename "$(dirname "$COMPOSE")") ($COMPOSE)"   # a source build reports its version as "dev"

WORK=$(mktemp -d -t flowboard-compose-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Settings from the caller's environment or a .env file must not make the check pass or fail.
compose() {
  env -u FLOWBOARD_OPERATOR_TOKEN -u FLOWBOARD_WEBHOOKS_SECRET_ENCRYPTION_KEY -u FLOWBOARD_WEBHOOK_ALLOWED_HOSTS \
    -u LOG_LEVEL -u COMPOSE_PROFILES "$COMPOSE" --env-file /dev/null -f "$COMPOSE_FILE" "$@"
}

log "docker-compose -f $COMPOSE_FILE config --quiet (all services)"
compose config --quiet
log "docker-compose -f $COMPOSE_FILE config --quiet ${INFRA[*]} (infrastructure only)"
compose config --quiet "${INFRA[@]}"

log "published ports: only ${PUBLISHERS[*]}, only on 127.0.0.1; Flowboard containers hardened; Engine 20.10 options"
compose config --format json >"$WORK/model.json"
node -e '
  const model = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
  const allowed = new Set(process.argv.slice(2));
  const problems = [];
  for (const [name, svc] of Object.entries(model.services)) {
    for (const p of svc.ports ?? []) {
      if (!allowed.has(name)) problems.push(`${name} publishes ${p.published} (only ${[...allowed].join(", ")} may)`);
      if (p.host_ip !== "127.0.0.1") problems.push(`${name} publishes ${p.published} on ${p.host_ip || "all addresses"}, not 127.0.0.1`);
    }
  }
  // The chart hardening holds in compose too, for every Flowboard container (their images are flowboard/*).
  for (const [name, svc] of Object.entries(model.services)) {
    if (!String(svc.image ?? "").startsWith("flowboard/")) continue;
    if (svc.read_only !== true) problems.push(`${name}: root filesystem not read-only`);
    if (!(svc.cap_drop ?? []).includes("ALL")) problems.push(`${name}: capabilities not dropped`);
    if (!(svc.security_opt ?? []).includes("no-new-privileges:true")) problems.push(`${name}: no-new-privileges unset`);
  }
  // Debian 12'"'"'s docker.io (Engine 20.10), which scripts/compose-test.sh runs this file on, refuses options of
  // later engines: healthcheck.start_interval needs Engine 25.
  for (const [name, svc] of Object.entries(model.services))
    if (svc.healthcheck?.start_interval) problems.push(`${name}: healthcheck.start_interval needs Docker Engine 25`);
  if (problems.length) {
    console.error(problems.map((p) => "FAIL: " + p).join("\n"));
    process.exit(1);
  }
  console.log(`    ${Object.keys(model.services).length} services, ports published by ${Object.entries(model.services).filter(([, s]) => s.ports?.length).map(([n]) => n).join(", ")}`);
' "$WORK/model.json" "${PUBLISHERS[@]}"

secs=$(awk -v ms=$(($(now_ms) - T0)) 'BEGIN { printf "%.1f", ms / 1000 }')
log "compose-check: $COMPOSE_FILE is valid (whole file and infrastructure only) in ${secs}s"
