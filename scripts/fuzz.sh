#!/usr/bin/env bash
# The schema fuzzer (`npm run fuzz`, and the `fuzz` phase of `npm test`): schemathesis, pinned, with every check,
# against the OpenAPI document a running gateway serves. It seeds real data through the API first
# (test/fuzz/seed.mjs) and narrows the document's path parameters to it (test/fuzz/narrow-document.mjs), so that
# generated requests reach their 2xx paths. Any failure fails the run; the full report stays in
# $FLOWBOARD_HOME/logs/fuzz.log.
#
#   GATEWAY_URL=http://127.0.0.1:8080 bash scripts/fuzz.sh      (default: the running stack's gateway)
#   FLOWBOARD_FUZZ_SECONDS=180                                   (time budget of the fuzzing, default 150)
#   FLOWBOARD_FUZZ_SEED=<n>|random                               (default: a fixed seed, so a red run reproduces)
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
cd "$REPO"

SCHEMATHESIS_VERSION=4.32.5
VENV=$FLOWBOARD_CACHE/schemathesis-$SCHEMATHESIS_VERSION
GATEWAY_URL=${GATEWAY_URL:-http://127.0.0.1:$FLOWBOARD_GATEWAY_PORT}
SECONDS_BUDGET=${FLOWBOARD_FUZZ_SECONDS:-150}
SEED=${FLOWBOARD_FUZZ_SEED:-20261124}
[ "$SEED" != random ] || SEED=$((RANDOM * 32768 + RANDOM))
WORK=$(mktemp -d -t flowboard-fuzz-XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# Debian's own Python (not whichever python3 is first on PATH), with the venv module from apt.
# A venv's scripts name its own path, so it is made in place; `.installed` marks a finished install.
ensure_schemathesis() {
  [ -f "$VENV/.installed" ] && return 0
  ensure_apt python3-venv
  log "fuzz: installing schemathesis $SCHEMATHESIS_VERSION into $VENV (one-time)"
  rm -rf "$VENV"
  /usr/bin/python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
  touch "$VENV/.installed"
}

operator_token() {
  if [ -n "${FLOWBOARD_OPERATOR_TOKEN:-}" ]; then echo "$FLOWBOARD_OPERATOR_TOKEN"; else cat "$FLOWBOARD_HOME/operator-token"; fi
}

main() {
  ensure_schemathesis
  mkdir -p "$LOG_DIR"
  log "fuzz: seeding data through $GATEWAY_URL"
  GATEWAY_URL=$GATEWAY_URL node test/fuzz/seed.mjs >"$WORK/seed.env"
  # shellcheck disable=SC1091
  source "$WORK/seed.env"
  FUZZ_OPERATOR_TOKEN=$(operator_token)
  export FUZZ_OPERATOR_TOKEN
  curl -fsS "$GATEWAY_URL/api/v1/openapi.json" -o "$WORK/served.json"
  : >"$LOG_DIR/fuzz.log"
  local failed=0 share=$((SECONDS_BUDGET / 5))
  # JSON bodies with every mode; XML bodies with valid data only; the operator's endpoints last, on their own
  # (test/fuzz/narrow-document.mjs says why).
  run_pass json all $((SECONDS_BUDGET - 2 * share)) || failed=1
  run_pass xml positive "$share" || failed=1
  run_pass operator all "$share" || failed=1
  ((failed == 0)) || die "fuzz: schemathesis reported failures; details in $LOG_DIR/fuzz.log"
}

run_pass() {  # run_pass json|xml|operator <mode> <seconds>
  local format=$1 mode=$2 seconds=$3 rc=0
  node test/fuzz/narrow-document.mjs "$WORK/served.json" "$format" >"$WORK/openapi-$format.json" ||
    { echo "error: fuzz: narrowing the document for the $format pass failed" >&2; return 1; }
  log "fuzz: $format pass, $mode data, ${seconds}s, seed $SEED (schemathesis $SCHEMATHESIS_VERSION, all checks)"
  # One worker under the key's rate limit (1,200 a minute): a 429 would teach the fuzzer nothing. No stateful phase:
  # its links feed ids one operation answers into the next request, past the seeded values the document names.
  (cd "$WORK" && "$VENV/bin/schemathesis" --config-file "$REPO/test/fuzz/schemathesis.toml" run \
    "$WORK/openapi-$format.json" --url "$GATEWAY_URL" --checks all --mode "$mode" --max-time "$seconds" --phases examples,coverage,fuzzing \
    --workers 1 --rate-limit 1000/m --seed "$SEED" --no-color) >"$WORK/pass.log" 2>&1 || rc=$?
  { echo "=== $format pass, $mode data ==="; cat "$WORK/pass.log"; } >>"$LOG_DIR/fuzz.log"
  sed -n '/^Failures:/,/^Test cases:/p;/ in [0-9.]*s =/p' "$WORK/pass.log"
  # On failure the first cases, lines cut short, so a CI record shows what failed (the log goes with the stack).
  ((rc == 0)) || sed -n '/= FAILURES =/,/= SUMMARY =/p' "$WORK/pass.log" | head -60 | cut -c1-240
  return "$rc"
}

main
