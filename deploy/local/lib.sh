# shellcheck shell=bash disable=SC2034  # variables here are used by the scripts that source this file
# Shared helpers for the local stack (infra.sh, services.sh, up.sh, down.sh, scripts/test.sh).
# Sourced, never run. Everything listens on 127.0.0.1; every port is overridable through the environment.

REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# Absolute paths: services run from their own folders, PostgreSQL as another user.
FLOWBOARD_CACHE=$(realpath -m "${FLOWBOARD_CACHE:-$HOME/.cache/flowboard}")   # built tools, shared by checkouts
FLOWBOARD_HOME=$(realpath -m "${FLOWBOARD_HOME:-$REPO/.flowboard}")           # data, logs and pids of one stack
RUN_DIR=$FLOWBOARD_HOME/run
# The Go toolchain's usual home (Helm, Kubernetes and the stand-ins are built with it), for shells whose PATH lacks
# it, such as a CI runner's minimal one.
case ":$PATH:" in *:/usr/local/go/bin:*) ;; *) [ -x /usr/local/go/bin/go ] && PATH=$PATH:/usr/local/go/bin ;; esac
# Node 24 LTS, pinned (.nvmrc), first on PATH for every script that sources this file, before any of them runs node
# or npm (CI starts npm test with the machine's older Node).
# shellcheck source=scripts/lib/node.sh
source "$REPO/scripts/lib/node.sh"
ensure_node || exit 1
LOG_DIR=$FLOWBOARD_HOME/logs
EPHEMERAL=${FLOWBOARD_EPHEMERAL:-0}   # 1 = throw-away test stack: durability off for speed
# The one address the infrastructure listens on. 127.0.0.1 for npm start and npm test; the Kubernetes cluster
# (deploy/cluster) sets its pod bridge's gateway address, which pods and this host both reach, with INFRA_NET the
# network PostgreSQL then trusts.
INFRA_HOST=${FLOWBOARD_INFRA_HOST:-127.0.0.1}
INFRA_NET=${FLOWBOARD_INFRA_NET:-$INFRA_HOST/32}

# Infrastructure ports (defaults avoid the ones apt's own PostgreSQL/Redis may take).
: "${FLOWBOARD_PG_PORT:=25432}" "${FLOWBOARD_REDIS_PORT:=26379}"
: "${FLOWBOARD_KAFKA_PORT:=29092}" "${FLOWBOARD_KAFKA_CONTROLLER_PORT:=29093}"
: "${FLOWBOARD_S3_PORT:=29000}" "${FLOWBOARD_S3_CONSOLE_PORT:=29001}"
: "${FLOWBOARD_SMTP_PORT:=1025}" "${FLOWBOARD_MAILPIT_PORT:=8025}"
# Service ports.
: "${FLOWBOARD_GATEWAY_PORT:=8080}" "${FLOWBOARD_NOTIFIER_PORT:=8081}"
: "${FLOWBOARD_BOARDS_PORT:=25051}" "${FLOWBOARD_MEMBERSHIP_PORT:=25052}"
: "${FLOWBOARD_FILES_PORT:=25053}" "${FLOWBOARD_FILES_HTTP_PORT:=25063}"
: "${FLOWBOARD_WEBHOOKS_PORT:=25054}"
# Prometheus /metrics of each service (the services' own METRICS_PORT defaults).
: "${FLOWBOARD_GATEWAY_METRICS_PORT:=9101}" "${FLOWBOARD_MEMBERSHIP_METRICS_PORT:=9102}"
: "${FLOWBOARD_BOARDS_METRICS_PORT:=9103}" "${FLOWBOARD_FILES_METRICS_PORT:=9104}"
: "${FLOWBOARD_NOTIFIER_METRICS_PORT:=9105}" "${FLOWBOARD_WEBHOOKS_METRICS_PORT:=9106}"

# Pins. Kafka's version is read from the POM so the two cannot drift apart.
KAFKA_VERSION=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$REPO/deploy/local/kafka/pom.xml")
KAFKA_HOME=$FLOWBOARD_CACHE/kafka-$KAFKA_VERSION
MINIO_MODULE=github.com/minio/minio@v0.0.0-20260212201848-7aac2a2c5b7c   # the recipe's pin is not on the proxy
S3PROXY_VERSION=$(sed -n 's:.*<s3proxy.version>\(.*\)</s3proxy.version>.*:\1:p' "$REPO/deploy/local/s3proxy/pom.xml")
S3PROXY_HOME=$FLOWBOARD_CACHE/s3proxy-$S3PROXY_VERSION

export TURBO_TELEMETRY_DISABLED=1   # no phoning home from scripts

log() { echo "==> $*"; }
warn() { echo "warning: $*" >&2; }
die() { echo "error: $*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
now_ms() { date +%s%3N; }

# True when something accepts TCP connections on <host>:<port> (default: the infrastructure's address).
port_in_use() { timeout 1 bash -c "exec 3<>/dev/tcp/${2:-$INFRA_HOST}/$1" 2>/dev/null; }

# Who holds a local TCP port, for messages: "postgres (pid 123)", or what the socket is doing.
port_holder() {  # port_holder <port>
  local line
  line=$(ss -Htanp "( sport = :$1 )" 2>/dev/null | head -1)
  if [[ $line =~ users:\(\(\"([^\"]+)\",pid=([0-9]+) ]]; then
    echo "${BASH_REMATCH[1]} (pid ${BASH_REMATCH[2]})"
  elif [ -n "$line" ]; then
    echo "a socket in state ${line%% *}"
  else
    echo "another process"
  fi
}

# The kernel's range for the local ports of outgoing connections: any client socket may hold a port inside it.
read -r EPHEMERAL_LOW EPHEMERAL_HIGH </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || EPHEMERAL_LOW=32768 EPHEMERAL_HIGH=60999

# Refuse to start <what> when its port is taken by a process we do not manage (naming it); warn about a port in
# the ephemeral range, which may be taken by some outgoing connection the next time.
require_free_port() {  # require_free_port <what> <port> <env var> [host]
  if port_in_use "$2" "${4:-}"; then
    die "$1: port ${4:-$INFRA_HOST}:$2 is already in use by $(port_holder "$2"). Stop it (npm stop), or choose another port with $3=<port>."
  fi
  if (($2 >= EPHEMERAL_LOW && $2 <= EPHEMERAL_HIGH)); then
    echo "warning: $1: port $2 lies in the kernel's range for outgoing connections ($EPHEMERAL_LOW-$EPHEMERAL_HIGH), where any client socket may take it; $3 chooses another." >&2
  fi
}

# Polls <cmd...> every 0.2 s until it succeeds or <timeout> seconds pass.
wait_for() {  # wait_for <timeout_s> <description> <cmd...>
  local timeout=$1 desc=$2 deadline=$((SECONDS + $1))
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS >= deadline)); then
      echo "error: timed out after ${timeout}s waiting for $desc" >&2
      return 1
    fi
    sleep 0.2
  done
}

http_ok() { curl -fsS -o /dev/null --max-time 2 "$1"; }

# Prints the last lines of a log, for failures.
show_log() {  # show_log <file> [lines]
  echo "---- last ${2:-40} lines of $1 ----" >&2
  tail -n "${2:-40}" "$1" >&2 2>/dev/null || true
  echo "----" >&2
}

# ---------------------------------------------------------------------------------------------------------
# Secure infrastructure (FLOWBOARD_INFRA_SECURE=1, the cluster's): one CA per $FLOWBOARD_HOME signs every server's
# certificate, so the pods trust that CA and nothing else; passwords are random, made once and kept there, so a
# restart or a second script reads the same ones. Unset or 0 (npm start, npm test): plain loopback, no credentials.
INFRA_SECURE=${FLOWBOARD_INFRA_SECURE:-0}

# The CA's certificate (made on first use) is $FLOWBOARD_HOME/pki/ca.crt; prints that path. The folder is read
# when called: deploy/cluster/lib.sh sets FLOWBOARD_HOME after sourcing this file.
infra_ca() {
  local INFRA_PKI=$FLOWBOARD_HOME/pki
  if [ ! -s "$INFRA_PKI/ca.crt" ]; then
    mkdir -p "$INFRA_PKI" && chmod 700 "$INFRA_PKI"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$INFRA_PKI/ca.key" -out "$INFRA_PKI/ca.crt.tmp" -days 3650 \
      -subj "/CN=flowboard-infra-ca" -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign,cRLSign \
      2>/dev/null || die "openssl: could not make the infrastructure CA in $INFRA_PKI"
    mv "$INFRA_PKI/ca.crt.tmp" "$INFRA_PKI/ca.crt"
  fi
  echo "$INFRA_PKI/ca.crt"
}

# A server certificate signed by the CA, for <name>: $FLOWBOARD_HOME/pki/<name>.crt, <name>.key (unencrypted PKCS#8, which
# PostgreSQL, Redis and Kafka's PEM keystores all read) and <name>.pem (key then certificate). Valid for the
# infrastructure's address and the host's loopback names. Made once; prints the .crt path.
infra_server_cert() {  # infra_server_cert <name>
  local INFRA_PKI=$FLOWBOARD_HOME/pki n=$FLOWBOARD_HOME/pki/$1
  infra_ca >/dev/null
  # Remade when the address changed (a certificate that does not name the host fails verify-full).
  if [ ! -s "$n.crt" ] || ! openssl x509 -in "$n.crt" -noout -checkip "$INFRA_HOST" 2>/dev/null | grep -q 'does match'; then
    openssl req -newkey rsa:2048 -nodes -keyout "$n.key" -out "$n.csr" -subj "/CN=$1" 2>/dev/null &&
      printf 'subjectAltName=IP:%s,IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n' "$INFRA_HOST" >"$n.ext" &&
      openssl x509 -req -in "$n.csr" -CA "$INFRA_PKI/ca.crt" -CAkey "$INFRA_PKI/ca.key" -CAcreateserial \
        -out "$n.crt" -days 3650 -extfile "$n.ext" 2>/dev/null ||
      die "openssl: could not make the $1 certificate in $INFRA_PKI"
    chmod 600 "$n.key"
    (umask 077 && cat "$n.key" "$n.crt" >"$n.pem")
    rm -f "$n.csr" "$n.ext"
  fi
  echo "$n.crt"
}

# The password of <name> (a database role, the Redis user, a SCRAM user): 32 hex characters, safe in URLs
# unescaped, made on first use in $FLOWBOARD_HOME/secrets/<name> (root only). Prints it.
infra_secret() {  # infra_secret <name>
  local f=$FLOWBOARD_HOME/secrets/$1
  if [ ! -s "$f" ]; then
    mkdir -p "$(dirname "$f")" && chmod 700 "$(dirname "$f")"
    (umask 077 && openssl rand -hex 16 >"$f.tmp" && mv "$f.tmp" "$f")
  fi
  cat "$f"
}

# ---------------------------------------------------------------------------------------------------------
# Process control through pid files in $RUN_DIR. Each process is the leader of its own process group
# (setsid), so a stop reaches its children too and a Ctrl-C in the launching shell does not.

pid_of() { cat "$RUN_DIR/$1.pid" 2>/dev/null; }

# `kill -0` also succeeds for a zombie, and where PID 1 reaps slowly (as in our VMs) a stopped process stays a
# zombie for a second or two: count only live processes.
alive() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [[ $st != Z* ]]; }
group_alive() { ps -e -o pgid=,stat= | awk -v g="$1" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'; }

is_running() {  # is_running <name>
  local pid
  pid=$(pid_of "$1") && [ -n "$pid" ] && alive "$pid"
}

start_detached() {  # start_detached <name> <logfile> <cmd...>
  local name=$1 logfile=$2
  shift 2
  mkdir -p "$RUN_DIR" "$(dirname "$logfile")"
  # A background child of a non-interactive shell is not a group leader, so setsid makes it one without
  # forking again: $! is then both the pid and the process group id. The starter's other descriptors are closed: a
  # daemon holding a caller's pipe (scripts/test-engine.sh answers on fd 3) keeps whoever reads it waiting for an
  # end that never comes, and one holding a flock (fds 7 and 9 in these scripts) keeps the lock for its lifetime.
  setsid "$@" >>"$logfile" 2>&1 </dev/null 3>&- 4>&- 5>&- 6>&- 7>&- 8>&- 9>&- &
  echo $! >"$RUN_DIR/$name.pid"
}

stop_process() {  # stop_process <name> [grace_s]: SIGTERM to the group, SIGKILL after the grace period
  local name=$1 grace=${2:-10} pid deadline
  pid=$(pid_of "$name") || return 0
  if [ -n "$pid" ] && group_alive "$pid"; then
    log "$name: stopping (pid $pid)"
    kill -TERM -- "-$pid" 2>/dev/null || true
    deadline=$((SECONDS + grace))
    while group_alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
    if group_alive "$pid"; then
      warn "$name: still running after ${grace}s, sending SIGKILL"
      kill -KILL -- "-$pid" 2>/dev/null || true
    fi
  elif [ -n "$pid" ] && alive "$pid"; then
    # Not a group leader (a pid file written by another tool): stop just that process.
    log "$name: stopping (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    deadline=$((SECONDS + grace))
    while alive "$pid" && ((SECONDS < deadline)); do sleep 0.1; done
    alive "$pid" && kill -KILL "$pid" 2>/dev/null
  fi
  rm -f "$RUN_DIR/$name.pid"
}

# Waits for <check...> while the process <name> is alive; fails early, with its log, if it dies.
wait_ready() {  # wait_ready <name> <logfile> <timeout_s> <check...>
  local name=$1 logfile=$2 timeout=$3 deadline=$((SECONDS + $3))
  shift 3
  until "$@" >/dev/null 2>&1; do
    if ! is_running "$name"; then
      echo "error: $name exited during start-up" >&2
      show_log "$logfile"
      return 1
    fi
    if ((SECONDS >= deadline)); then
      echo "error: $name not ready after ${timeout}s" >&2
      show_log "$logfile"
      return 1
    fi
    sleep 0.2
  done
}

# ---------------------------------------------------------------------------------------------------------
# Installers. Each is a no-op when the tool is already there, so warm starts do no network work.

ensure_apt() {  # ensure_apt <package...>: installs the Debian packages that are missing
  local missing=() p
  for p in "$@"; do dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p"); done
  ((${#missing[@]})) || return 0
  [ "$(id -u)" = 0 ] || die "missing Debian packages: ${missing[*]} (run as root, or: sudo apt-get install -y ${missing[*]})"
  log "apt: installing ${missing[*]} (one-time, about a minute)"
  export DEBIAN_FRONTEND=noninteractive
  # Wait for another apt or dpkg (an unattended upgrade, a second script) instead of failing on its lock.
  local lock=(-o DPkg::Lock::Timeout=600)
  apt-get "${lock[@]}" update -qq >/dev/null
  apt-get "${lock[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

pg_bin() { printf '%s\n' /usr/lib/postgresql/*/bin | grep -v '\*' | sort -V | tail -1; }

ensure_postgres() { [ -x "$(pg_bin)/initdb" ] || ensure_apt postgresql-15; }
ensure_redis() { have redis-server || ensure_apt redis-server; }
ensure_java() { have java || ensure_apt openjdk-17-jre-headless; }
# Headless Chromium for the /docs browser test (driven by playwright-core); CHROMIUM_PATH names another one.
ensure_chromium() { [ -n "${CHROMIUM_PATH:-}" ] || ensure_apt chromium; }

ensure_kafka() {  # Kafka's jars from Maven Central into the cache (recipe §4.2)
  [ -f "$KAFKA_HOME/.complete" ] && return 0
  ensure_java
  have mvn || ensure_apt maven
  log "kafka: fetching Kafka $KAFKA_VERSION jars into $KAFKA_HOME (one-time, 1-3 min)"
  rm -rf "$KAFKA_HOME/libs"
  mvn -B -q -f "$REPO/deploy/local/kafka/pom.xml" \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$KAFKA_HOME/libs"
  touch "$KAFKA_HOME/.complete"
}

ensure_s3proxy() {  # S3Proxy's jars from Maven Central (fallback when MinIO cannot be built)
  [ -f "$S3PROXY_HOME/.complete" ] && return 0
  ensure_java
  have mvn || ensure_apt maven
  log "s3: fetching S3Proxy $S3PROXY_VERSION jars into $S3PROXY_HOME (one-time)"
  rm -rf "$S3PROXY_HOME/libs"
  mvn -B -q -f "$REPO/deploy/local/s3proxy/pom.xml" \
    org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$S3PROXY_HOME/libs"
  touch "$S3PROXY_HOME/.complete"
}

# Builds a Go tool once per pin (recipe §8): into a temp dir in the cache, renamed into place on success,
# so an interrupted build never looks finished. Prints the binary's path.
# With <module> (the module that holds the package), the package is built inside that module's downloaded source,
# as the main module: `go install pkg@version` refuses modules whose go.mod has replace or exclude directives
# (docker compose's has). The binary is named <binary> either way (compose's package is .../cmd).
ensure_go_tool() {  # ensure_go_tool <binary> <module/path@version> [<module>]
  local name=$1 pkg=$2 mod=${3:-} dir="$FLOWBOARD_CACHE/$1-${2##*@}" tmp
  if [ ! -x "$dir/$name" ]; then
    have go || { warn "go is not installed; cannot build $name"; return 1; }
    mkdir -p "$FLOWBOARD_CACHE"
    # Another build of the same pin (another checkout, or a second terminal): wait for it, don't race it.
    exec 9>"$FLOWBOARD_CACHE/.$name.lock"
    if ! flock -n 9; then
      log "$name: another build of this pin is running; waiting for it" >&2
      flock 9
    fi
    if pgrep -f "go install $pkg" >/dev/null 2>&1; then   # e.g. started by hand, outside these scripts
      log "$name: a go install of this pin is already running; waiting for it" >&2
      while pgrep -f "go install $pkg" >/dev/null 2>&1 && [ ! -x "$dir/$name" ]; do sleep 5; done
    fi
    if [ ! -x "$dir/$name" ]; then
      log "$name: building $pkg (one-time, 5-12 min)" >&2
      tmp=$(mktemp -d "$FLOWBOARD_CACHE/.build.XXXXXX")
      if go_build_tool "$tmp/$name" "$pkg" "$mod" >&2; then
        rm -rf "$dir" && mv "$tmp" "$dir"
      else
        rm -rf "$tmp"
        exec 9>&-
        return 1
      fi
    fi
    exec 9>&-
  fi
  echo "$dir/$name"
}

go_build_tool() {  # go_build_tool <output binary> <module/path@version> [<module>]
  local out=$1 pkg=$2 mod=${3:-} path=${2%@*} src
  if [ -z "$mod" ]; then
    GOBIN="$(dirname "$out")" GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath go install "$pkg" || return 1
    [ -x "$out" ] || mv "$(dirname "$out")/$(basename "$path")" "$out"
  else
    src=$(GOTOOLCHAIN=local go mod download -json "$mod@${pkg##*@}" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
    [ -d "$src" ] || return 1
    (cd "$src" && GOTOOLCHAIN=local CGO_ENABLED=0 GOFLAGS=-trimpath go build -o "$out" "./${path#"$mod"/}")
  fi
}

# The Docker Compose CLI, built once from its module's source: `go install …@version` refuses the module, whose
# go.mod has exclude directives, so it is built inside the downloaded module (ensure_go_tool's third argument).
# Sets COMPOSE to the binary (scripts/compose-check.sh, scripts/compose-test.sh).
COMPOSE_MODULE=github.com/docker/compose/v2
COMPOSE_VERSIONS=(v2.40.3 v2.35.1)   # newest first; the next one is tried when a build fails
ensure_compose() {
  local v
  for v in "${COMPOSE_VERSIONS[@]}"; do
    if COMPOSE=$(ensure_go_tool docker-compose "$COMPOSE_MODULE/cmd@$v" "$COMPOSE_MODULE"); then return 0; fi
    warn "could not build docker compose $v"
  done
  die "no docker compose: the builds of ${COMPOSE_VERSIONS[*]} failed"
}

# Node dependencies: `npm ci` when node_modules is missing or older than the lockfile.
ensure_node_deps() {
  cd "$REPO" || return 1
  [ -f package-lock.json ] || die "package-lock.json is missing: installs are pinned by it (npm install writes one)"
  if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    log "npm: installing dependencies (npm ci)"
    # The lockfile holds every platform's optional packages, so npm ci takes it as committed; no fallback to
    # npm install, which would quietly install something else.
    npm ci --no-audit --no-fund
  fi
}
