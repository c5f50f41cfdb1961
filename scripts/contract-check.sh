#!/usr/bin/env bash
# The contract gates between the teams (docs/design.md "Contracts between teams"): each contract of the working
# tree against the last release's, the committed snapshot in contracts/released/ (its SOURCE: the commit it was
# taken from).
#
#   scripts/contract-check.sh check      the gates (npm test's `contracts` phase runs `check selftest`):
#                                          protos       buf breaking (proto/buf.yaml) against contracts/released/proto
#                                          events       each topic's JSON Schema (packages/events/schemas) against
#                                                       contracts/released/events (packages/events/scripts/compat.mjs)
#                                          openapi      oasdiff breaking --fail-on ERR of the served document against
#                                                       contracts/released/openapi.json
#                                          migrations   each service's migrations not in
#                                                       contracts/released/migrations.txt may run beside the release's
#                                                       pods: no lock taken while holding another unless declared
#                                                       (packages/pg-kit/src/migration-locks.ts)
#   scripts/contract-check.sh selftest   shows each gate failing: plants breaks in temp copies of the working
#                                        contracts and expects each gate to fail naming the break (and the unmodified
#                                        copies to pass); then the event comparator's unit tests
#   scripts/contract-check.sh release    moves the baseline: snapshots the working tree's contracts into
#                                        contracts/released/ and records HEAD in SOURCE (part of releasing; refuses
#                                        while the contracts' sources differ from HEAD)
#
# Needs the build (npx turbo run build): the OpenAPI document is rendered from the built gateway. buf is the npm
# package of its official binaries (@bufbuild/buf, pinned in the root package.json: no build, seconds to install);
# oasdiff, which has none there, is built once per pin with `go install` into $FLOWBOARD_CACHE
# (deploy/local/lib.sh ensure_go_tool).
set -euo pipefail
# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../deploy/local/lib.sh"
cd "$REPO"

OASDIFF_MODULE=github.com/oasdiff/oasdiff@v1.37.0
RELEASED=$REPO/contracts/released

ensure_buf() {
  BUF=$REPO/node_modules/.bin/buf
  [ -x "$BUF" ] || ensure_node_deps
  [ -x "$BUF" ] || die "buf: $BUF is missing after npm ci (@bufbuild/buf in package.json)"
}
ensure_oasdiff() { OASDIFF=$(ensure_go_tool oasdiff "$OASDIFF_MODULE") || die "oasdiff: build failed"; }

TMP=$(mktemp -d -t flowboard-contracts-XXXXXX)
trap 'rm -rf "$TMP"' EXIT

render_openapi() {  # render_openapi <out file>: the document the built gateway serves
  node contracts/render-openapi.js >"$1"
}

# Each gate: <released> <current>; prints what it found, exits non-zero on a break.
gate_protos() {  # gate_protos <released proto root> <current proto root (with buf.yaml)>
  # --against: the released files as a module of their own (no buf.yaml there: the rules are the current one's).
  (cd "$2" && "$BUF" breaking . --against "$1" --error-format text)
}
gate_events() {  # gate_events <released schemas dir> <current schemas dir>
  node packages/events/scripts/compat.mjs "$1" "$2"
}
gate_openapi() {  # gate_openapi <released document> <current document>
  "$OASDIFF" breaking --fail-on ERR --format text "$1" "$2"
}
gate_migrations() {  # gate_migrations <released list> <services dir>
  node packages/pg-kit/scripts/migrations-gate.mjs "$1" "$2"
}

check() {
  local t0 failed=() source
  [ -s "$RELEASED/SOURCE" ] || die "no baseline: $RELEASED/SOURCE is missing (scripts/contract-check.sh release)"
  source=$(cat "$RELEASED/SOURCE")
  [[ $source =~ ^[0-9a-f]{40}$ ]] || die "$RELEASED/SOURCE must hold one full commit hash, not '$source'"
  log "contracts: against the release of ${source:0:12} (contracts/released)"
  t0=$(now_ms)
  ensure_buf
  ensure_oasdiff
  log "contracts: tools ready in $(($(now_ms) - t0)) ms (buf $("$BUF" --version), oasdiff ${OASDIFF_MODULE##*@})"

  # run_gate <gate> <what passing means> <what failing means> <released> <current>: one gate, timed; a failure is
  # named in `failed` and the gates go on, so one run reports every break.
  run_gate() {
    local t0
    t0=$(now_ms)
    if "gate_$1" "$4" "$5"; then
      log "contracts: $2 ($(($(now_ms) - t0)) ms)"
    else
      failed+=("$1")
      echo "error: $1: $3 (above)" >&2
    fi
  }
  run_gate protos "protos compatible" \
    "a breaking change against the release; see docs/design.md \"Contracts between teams\"" \
    "$RELEASED/proto" "$REPO/proto"
  run_gate events "event schemas compatible" "a breaking change against the release" \
    "$RELEASED/events" "$REPO/packages/events/schemas"
  render_openapi "$TMP/openapi.json" || die "could not render the OpenAPI document (is the gateway built?)"
  run_gate openapi "public HTTP API compatible" "a breaking change of the public HTTP API against the release" \
    "$RELEASED/openapi.json" "$TMP/openapi.json"
  run_gate migrations "unreleased migrations safe beside the release's pods" \
    "a migration could deadlock with the release's requests" "$RELEASED/migrations.txt" "$REPO/services"
  ((${#failed[@]} == 0)) || die "contract gates failed: ${failed[*]}"
  log "contracts: all four gates pass"
}

# expect_break <gate> <what> <fragment> <released> <current>: the gate must fail and name the break.
SELFTEST_FAILED=0
expect_break() {
  local gate=$1 what=$2 fragment=$3 out rc=0
  out=$("gate_$gate" "$4" "$5" 2>&1) || rc=$?
  if ((rc != 0)) && grep -qF -- "$fragment" <<<"$out"; then
    echo "  ok   $gate fails on: $what"
    grep -F -- "$fragment" <<<"$out" | head -2 | sed 's/^[[:space:]]*/         /'
  else
    SELFTEST_FAILED=1
    echo "  FAIL $gate on '$what': exit $rc, expected a failure mentioning '$fragment'; it printed:"
    sed 's/^/         /' <<<"$out"
  fi
}
expect_pass() {  # expect_pass <gate> <released> <current>
  local out rc=0
  out=$("gate_$1" "$2" "$3" 2>&1) || rc=$?
  if ((rc == 0)); then echo "  ok   $1 passes on the unmodified copy"; else
    SELFTEST_FAILED=1
    echo "  FAIL $1 fails on the unmodified copy (exit $rc):"
    sed 's/^/         /' <<<"$out"
  fi
}

selftest() {
  local base=$TMP/selftest cur t0
  t0=$(now_ms)
  ensure_buf
  ensure_oasdiff
  log "contracts selftest: planted breaks in copies of the working contracts, in $base"
  mkdir -p "$base/released/proto" "$base/released/events"
  cp -r proto/flowboard "$base/released/proto/"
  cp packages/events/schemas/*.json "$base/released/events/"
  render_openapi "$base/released/openapi.json" || die "could not render the OpenAPI document (is the gateway built?)"
  fresh() {  # a fresh current copy: $cur
    cur=$base/current
    rm -rf "$cur" && mkdir -p "$cur/proto" "$cur/events"
    cp proto/buf.yaml "$cur/proto/" && cp -r proto/flowboard "$cur/proto/"
    cp packages/events/schemas/*.json "$cur/events/"
    cp "$base/released/openapi.json" "$cur/openapi.json"
  }
  fresh
  expect_pass protos "$base/released/proto" "$cur/proto"
  expect_pass events "$base/released/events" "$cur/events"
  expect_pass openapi "$base/released/openapi.json" "$cur/openapi.json"

  local boards=flowboard/boards/v1/boards_service.proto field name number rpc
  # The first field of boards' Story message: deleted, then renumbered.
  read -r field name number < <(awk '/^message Story \{/ { on = 1; next } on && /^}/ { exit }
    on && match($0, /^ +[a-z0-9_.]+ +([a-z_0-9]+) += ([0-9]+);/) { split($0, w, /[ =;]+/); print w[2], w[3], w[4]; exit }' \
    "proto/$boards")
  [ -n "${number:-}" ] || die "selftest: no field found in boards' Story message"
  fresh
  sed -i "/^message Story {/,/^}/{/^ *$field $name = $number;/d}" "$cur/proto/$boards"
  expect_break protos "Story.$name (field $number) deleted" "\"$number\" with name \"$name\" on message \"Story\" was deleted" \
    "$base/released/proto" "$cur/proto"
  fresh
  sed -i "/^message Story {/,/^}/{s/^\( *$field $name = \)$number;/\1${number}99;/}" "$cur/proto/$boards"
  expect_break protos "Story.$name renumbered $number -> ${number}99" "\"$number\" with name \"$name\" on message \"Story\" was deleted" \
    "$base/released/proto" "$cur/proto"
  # The first RPC of StoriesService removed (an old gateway would get UNIMPLEMENTED).
  rpc=$(awk '/^service StoriesService \{/ { on = 1; next } on && match($0, /rpc +[A-Za-z]+/) { print substr($0, RSTART + 4, RLENGTH - 4); exit }' "proto/$boards" | tr -d ' ')
  fresh
  perl -0pi -e "s/^\s*rpc $rpc\([^)]*\)\s*returns\s*\([^)]*\)\s*(;|\{[^}]*\})\n//m" "$cur/proto/$boards"
  expect_break protos "StoriesService.$rpc removed" "\"$rpc\" on service \"StoriesService\" was deleted" \
    "$base/released/proto" "$cur/proto"

  local topic=membership.invite-created.v1 deleted=boards.story-deleted.v1
  fresh
  node -e 'const fs = require("fs"), f = process.argv[1], s = JSON.parse(fs.readFileSync(f, "utf8"));
    delete s.properties.data.properties.email; s.properties.data.required = s.properties.data.required.filter((r) => r !== "email");
    fs.writeFileSync(f, JSON.stringify(s));' "$cur/events/$topic.json"
  expect_break events "$topic: required data.email removed" "BREAK $topic: data.email: removed (it was required)" \
    "$base/released/events" "$cur/events"
  fresh
  node -e 'const fs = require("fs"), f = process.argv[1], s = JSON.parse(fs.readFileSync(f, "utf8"));
    s.properties.data.properties.storyId = { type: "string" }; fs.writeFileSync(f, JSON.stringify(s));' "$cur/events/$deleted.json"
  expect_break events "$deleted: data.storyId integer -> string" "BREAK $deleted: data.storyId: changed" \
    "$base/released/events" "$cur/events"
  fresh
  node -e 'const fs = require("fs"), f = process.argv[1], s = JSON.parse(fs.readFileSync(f, "utf8"));
    s.properties.data.properties.locale = { type: "string" }; s.properties.data.required.push("locale");
    fs.writeFileSync(f, JSON.stringify(s));' "$cur/events/$topic.json"
  expect_break events "$topic: required data.locale added" "BREAK $topic: data.locale: added as required" \
    "$base/released/events" "$cur/events"

  fresh
  node -e 'const fs = require("fs"), f = process.argv[1], d = JSON.parse(fs.readFileSync(f, "utf8"));
    delete d.paths["/api/v1/me/stories"]; fs.writeFileSync(f, JSON.stringify(d));' "$cur/openapi.json"
  expect_break openapi "path /api/v1/me/stories removed" "api-path-removed-without-deprecation" \
    "$base/released/openapi.json" "$cur/openapi.json"
  fresh
  node -e 'const fs = require("fs"), f = process.argv[1], d = JSON.parse(fs.readFileSync(f, "utf8"));
    const s = d.components.schemas.Story; delete s.properties.priority; s.required = s.required.filter((r) => r !== "priority");
    fs.writeFileSync(f, JSON.stringify(d));' "$cur/openapi.json"
  expect_break openapi "Story.priority (required in responses) removed" "removed the required property \`items/items/priority\`" \
    "$base/released/openapi.json" "$cur/openapi.json"

  # Migrations: the working tree's, with the release's list; then boards' 0011 without its lock-first line (what
  # deadlocked with the previous release's move), and a new file locking two tables one after the other.
  local mig=$base/migrations svc
  for svc in services/*/; do
    [ -d "$svc/migrations" ] || continue
    mkdir -p "$mig/services/$(basename "$svc")" && cp -r "$svc/migrations" "$mig/services/$(basename "$svc")/"
  done
  expect_pass migrations "$RELEASED/migrations.txt" "$mig/services"
  sed -i '/flowboard:lock-first/d' "$mig/services/boards/migrations/0011_history_authors.sql"
  expect_break migrations "boards 0011 without its lock-first line" \
    "BREAK boards/0011_history_authors.sql: locks story_milestones (ACCESS EXCLUSIVE), story_steps (ACCESS EXCLUSIVE) one after another" \
    "$RELEASED/migrations.txt" "$mig/services"
  cp services/boards/migrations/0011_history_authors.sql "$mig/services/boards/migrations/"
  printf 'CREATE INDEX tasks_text ON tasks (text);\nCREATE INDEX stories_text ON stories (text);\n' \
    >"$mig/services/boards/migrations/9999_two_indexes.sql"
  expect_break migrations "a new migration indexing tasks, then stories" \
    "BREAK boards/9999_two_indexes.sql: locks tasks (SHARE), stories (SHARE) one after another" \
    "$RELEASED/migrations.txt" "$mig/services"

  log "contracts selftest: the event comparator's unit tests (node --test packages/events/scripts/*.test.mjs)"
  node --test --test-reporter=dot packages/events/scripts/*.test.mjs || SELFTEST_FAILED=1
  ((SELFTEST_FAILED == 0)) || die "contracts selftest failed"
  log "contracts selftest: every gate fails on its planted breaks ($(($(now_ms) - t0)) ms)"
}

release() {
  local head sources=(proto/flowboard packages/events/src packages/events/schemas services/gateway/src contracts/render-openapi.js
    services/*/migrations)
  head=$(git rev-parse HEAD)
  if ! git diff --quiet HEAD -- "${sources[@]}" || [ -n "$(git status --porcelain --untracked-files=all -- "${sources[@]}")" ]; then
    git status --short -- "${sources[@]}" >&2
    die "the contracts' sources differ from HEAD (above): commit them first, so SOURCE names what the snapshot holds"
  fi
  log "contracts: building (the OpenAPI document comes from the built gateway)"
  npx turbo run build --output-logs=errors-only --filter=@flowboard/gateway --filter=@flowboard/events
  node packages/events/scripts/compat.mjs packages/events/schemas packages/events/schemas >/dev/null
  rm -rf "$RELEASED.new" && mkdir -p "$RELEASED.new/proto" "$RELEASED.new/events"
  cp -r proto/flowboard "$RELEASED.new/proto/"
  cp packages/events/schemas/*.json "$RELEASED.new/events/"
  render_openapi "$RELEASED.new/openapi.json"
  npx prettier --write --log-level warn "$RELEASED.new/openapi.json"
  (cd services && git ls-files -- '*/migrations/*.sql' | sed 's|/migrations/|/|') >"$RELEASED.new/migrations.txt"
  echo "$head" >"$RELEASED.new/SOURCE"
  rm -rf "$RELEASED" && mv "$RELEASED.new" "$RELEASED"
  log "contracts: contracts/released/ is now the release of ${head:0:12}; commit it with the release"
  git status --short -- contracts/released
}

(($# > 0)) || set -- check
for command in "$@"; do
  case $command in
    check) check ;;
    selftest) selftest ;;
    release) release ;;
    *) die "usage: scripts/contract-check.sh check|selftest|release ..." ;;
  esac
done
