# shellcheck shell=bash
# Phases of a test run, shared by scripts/test.sh (`npm test`) and scripts/test-service.sh (`npm run test:service`):
# each phase timed, test tiers counted from the jest summary reporter's JSON, and one closing table and line
# "N passed, N failed[, N skipped]". Needs `log` and `now_ms` (deploy/local/lib.sh) and, from the caller:
#   RESULTS      a folder; each phase gets $RESULTS/<phase> as FLOWBOARD_TEST_RESULTS
#   PHASE_LOG    what progress lines start with ("phase", "boards: phase")
#   TEST_TIERS   the phases whose tests are counted ("unit integration e2e")
PHASES=()                     # in order run
declare -A STATUS=() SECS=()  # per phase: ok|FAILED, seconds

secs_since() { awk -v ms=$(($(now_ms) - $1)) 'BEGIN { printf "%.1f", ms / 1000 }'; }

# run_phase <name> <cmd...>: times one phase (an external command, so `set -e` holds inside it).
run_phase() {
  local name=$1 t0 rc=0
  shift
  PHASES+=("$name")
  echo
  log "$PHASE_LOG $name: $*"
  t0=$(now_ms)
  mkdir -p "$RESULTS/$name"
  FLOWBOARD_TEST_RESULTS=$RESULTS/$name "$@" || rc=$?
  SECS[$name]=$(secs_since "$t0")
  if ((rc == 0)); then STATUS[$name]=ok; else STATUS[$name]=FAILED; fi
  log "$PHASE_LOG $name: ${STATUS[$name]} in ${SECS[$name]}s"
  return "$rc"
}

# record_phase <name> <ok|FAILED> <start ms>: a phase run inline, not as one command.
record_phase() {
  PHASES+=("$1") STATUS[$1]=$2 SECS[$1]=$(secs_since "$3")
}

# Sums the reporter's JSON files of one tier: "suites passed failed skipped". A suite that could not run at
# all (syntax error, failing import) counts as one failed test, so it cannot hide behind "0 failed".
tier_counts() {
  node -e '
    const fs = require("node:fs"), path = require("node:path"), dir = process.argv[1];
    const t = { suites: 0, passed: 0, failed: 0, skipped: 0 };
    for (const f of fs.readdirSync(dir).filter((f) => f.endsWith(".json"))) {
      const r = JSON.parse(fs.readFileSync(path.join(dir, f), "utf8"));
      t.suites += r.numTotalTestSuites || 0;
      t.passed += r.numPassedTests || 0;
      t.failed += (r.numFailedTests || 0) + (r.numRuntimeErrorTestSuites || 0);
      t.skipped += r.numPendingTests || 0;
    }
    console.log(t.suites, t.passed, t.failed, t.skipped);' "$1"
}

# phases_summary <exit status so far> <title> <where the integration tests ran>
phases_summary() {
  local rc=$1 name suites passed failed skipped p=0 f=0 s=0 note=0 line
  echo
  echo "$2 ($(awk -v ms=$(($(now_ms) - T_START)) 'BEGIN { printf "%.0f", ms / 1000 }')s total)"
  printf '  %-15s %-7s %8s %7s %7s %7s %7s\n' phase result time suites passed failed skipped
  for name in "${PHASES[@]}"; do
    if [[ " $TEST_TIERS " == *" $name "* ]] && [ -d "$RESULTS/$name" ]; then
      read -r suites passed failed skipped < <(tier_counts "$RESULTS/$name")
      p=$((p + passed)) f=$((f + failed)) s=$((s + skipped))
    else
      suites=- passed=- failed=0 skipped=-
    fi
    # A phase that failed without a failing test (build error, "no tests found", stack did not start) counts
    # as one failure, so the closing line never says "0 failed" for a failed run.
    if [ "${STATUS[$name]:-}" != ok ] && [ "$failed" = 0 ]; then f=$((f + 1)) failed="1*" note=1; fi
    [ "$failed" = 0 ] && [ "$suites" = - ] && failed=-
    printf '  %-15s %-7s %7ss %7s %7s %7s %7s\n' "$name" "${STATUS[$name]:-aborted}" "${SECS[$name]:-?}" \
      "$suites" "$passed" "$failed" "$skipped"
  done
  if ((rc != 0 && f == 0)); then f=1 note=1; fi   # aborted between phases
  ((note == 0)) || echo "  * failed without a failing test; counted as one failure"
  echo "Integration tests ran on: $3"
  line="$p passed, $f failed"
  ((s == 0)) || line+=", $s skipped"
  echo "$line"
}

# The exit status of a run: non-zero when any phase failed, even if the script itself got to its end.
phases_status() {  # phases_status <exit status so far>
  local rc=$1 name
  for name in "${PHASES[@]}"; do [ "${STATUS[$name]:-}" = ok ] || rc=$((rc == 0 ? 1 : rc)); done
  echo "$rc"
}

# The container engine for testcontainers as the tests' own setup finds it (@flowboard/testing's
# containers/engine.ts: DOCKER_HOST, a Docker on its usual socket, else scripts/test-engine.sh starts Debian's and
# builds the images). Exports DOCKER_HOST and sets ENGINE_DESCRIPTION; fails with the reason on stderr.
prepare_test_engine() {
  local engine
  engine=$(node -e '
    require("@flowboard/testing/containers").prepareEngine().then(
      (engine) => console.log(`${engine.dockerHost}\t${engine.description}`),
      (err) => { console.error(err.message); process.exit(1); });') || return 1
  export DOCKER_HOST=${engine%%$'\t'*}
  ENGINE_DESCRIPTION=${engine#*$'\t'}
}
