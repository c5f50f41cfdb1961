# shellcheck shell=bash disable=SC2034  # variables here are used by the scripts that source this file
# Shared settings and helpers of the one-node Kubernetes cluster (up.sh, down.sh, images.sh, scripts/cluster-test.sh).
# Sourced, never run. Builds on deploy/local/lib.sh (logging, pid files, installers, Go tool builds).
#
# Layout on this machine:
#   $FLOWBOARD_CACHE (~/.cache/flowboard)   built tools and images, kept between runs and checkouts:
#     kubernetes-<v>/bin/                   kube-apiserver, -controller-manager, -scheduler, kubelet, kube-proxy, kubectl
#     coredns-<v>/coredns, helm-<v>/helm    Go builds
#     cluster/docker/                       the container engine's data (base and service images, build cache)
#     cluster/rootfs-bookworm.tar           the debootstrap'ed Debian base
#   $CLUSTER_HOME (.flowboard/cluster)      state of the running cluster: etcd, certificates, containerd, kubelet,
#     run/ logs/ kubeconfig                 pid files, logs, and the kubeconfig to use with kubectl
#     infra/                                the host's infrastructure for the cluster (deploy/local/infra.sh)

# The cluster's infrastructure listens on the pod bridge's gateway address, which pods and this host both reach;
# ports of their own, so it runs beside `npm start` and `npm test`. Exported before deploy/local/lib.sh reads them.
export FLOWBOARD_INFRA_HOST=10.88.0.1 FLOWBOARD_INFRA_NET=10.88.0.0/16
export FLOWBOARD_PG_PORT=${FLOWBOARD_CLUSTER_PG_PORT:-24452}
export FLOWBOARD_REDIS_PORT=${FLOWBOARD_CLUSTER_REDIS_PORT:-24399}
export FLOWBOARD_KAFKA_PORT=${FLOWBOARD_CLUSTER_KAFKA_PORT:-24112}
export FLOWBOARD_KAFKA_CONTROLLER_PORT=${FLOWBOARD_CLUSTER_KAFKA_CONTROLLER_PORT:-24113}
export FLOWBOARD_S3_PORT=${FLOWBOARD_CLUSTER_S3_PORT:-24020}
export FLOWBOARD_S3_CONSOLE_PORT=${FLOWBOARD_CLUSTER_S3_CONSOLE_PORT:-24021}
export FLOWBOARD_SMTP_PORT=${FLOWBOARD_CLUSTER_SMTP_PORT:-1045}
export FLOWBOARD_MAILPIT_PORT=${FLOWBOARD_CLUSTER_MAILPIT_PORT:-8045}
# The cluster's infrastructure runs as production's would (deploy/local/lib.sh, infra.sh): TLS from one CA, passwords.
# FLOWBOARD_INFRA_SECURE=0 gives the plain one, for comparing.
export FLOWBOARD_INFRA_SECURE=${FLOWBOARD_INFRA_SECURE:-1}
# Secure only: Kafka's plaintext listener beside the SASL_SSL one, for the services of a release from before Kafka TLS
# and SASL (the skew phases' previous release; image_args points them at it). The current images never use it.
export FLOWBOARD_KAFKA_PLAINTEXT_PORT=${FLOWBOARD_CLUSTER_KAFKA_PLAINTEXT_PORT:-24115}

# shellcheck source=deploy/local/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../local/lib.sh"

CLUSTER_HOME=$(realpath -m "${FLOWBOARD_CLUSTER_HOME:-$REPO/.flowboard/cluster}")
export FLOWBOARD_HOME=$CLUSTER_HOME/infra   # infra.sh's data, logs and pid files
RUN_DIR=$CLUSTER_HOME/run                    # pid files of the cluster's own processes (lib.sh's process control)
LOG_DIR=$CLUSTER_HOME/logs
export KUBECONFIG=$CLUSTER_HOME/kubeconfig

# ---- pins -------------------------------------------------------------------------------------------------------
K8S_VERSION=v1.34.4
K8S_STAGING_VERSION=v0.${K8S_VERSION#v1.}   # k8s.io/api, client-go, ... are tagged v0.<minor>.<patch>
K8S_BIN=$FLOWBOARD_CACHE/kubernetes-$K8S_VERSION/bin
K8S_COMMANDS=(kube-apiserver kube-controller-manager kube-scheduler kubelet kube-proxy kubectl)
COREDNS_MODULE=github.com/coredns/coredns@v1.15.0
HELM_MODULE=helm.sh/helm/v3/cmd/helm@v3.21.4
CLUSTER_APT_PACKAGES=(docker.io debootstrap etcd-server containerd containernetworking-plugins iptables conntrack)

# ---- network ------------------------------------------------------------------------------------------------------
BRIDGE=cni0
BRIDGE_IP=$FLOWBOARD_INFRA_HOST          # the host on the pod network: API server, kubelet, infrastructure
POD_CIDR=10.88.0.0/16
SERVICE_CIDR=10.96.0.0/16
DNS_SERVICE_IP=10.96.0.10
NODE_NAME=flowboard-node
APISERVER_PORT=6443
# The gateway's Service is a NodePort that kube-proxy serves on loopback only: load and fault tests reach the
# gateway through it, balanced over its ready pods, and nothing else can.
GATEWAY_NODE_PORT=${FLOWBOARD_CLUSTER_GATEWAY_PORT:-30080}
GATEWAY_URL=http://127.0.0.1:$GATEWAY_NODE_PORT
MAILPIT_URL=http://$BRIDGE_IP:$FLOWBOARD_MAILPIT_PORT

# ---- the chart ----------------------------------------------------------------------------------------------------
RELEASE=${FLOWBOARD_CLUSTER_RELEASE:-flowboard}
NAMESPACE=${FLOWBOARD_CLUSTER_NAMESPACE:-flowboard}
CHART=$REPO/deploy/helm/flowboard
CHART_APP_VERSION=$(sed -n 's/^appVersion: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$CHART/Chart.yaml")
CLUSTER_VALUES=$REPO/deploy/cluster/values.yaml

# ---- the container engine -----------------------------------------------------------------------------------------
DOCKER_DATA=$FLOWBOARD_CACHE/cluster/docker
export DOCKER_HOST=unix:///run/flowboard-docker.sock   # a socket of our own: never another engine's
export DOCKER_BUILDKIT=0                               # Debian's docker.io has no buildx
CONTAINERD_SOCK=$CLUSTER_HOME/containerd/containerd.sock

K() { "$K8S_BIN/kubectl" "$@"; }
HELM_BIN=""
helm_() { "$HELM_BIN" "$@"; }

step() { echo; log "[$(date +%H:%M:%S)] $*"; }

ensure_cluster_packages() { ensure_apt "${CLUSTER_APT_PACKAGES[@]}"; }

# Kubernetes from the Go module proxy: a scratch module that requires k8s.io/kubernetes and replaces each k8s.io/*
# staging module (its go.mod points them at ./staging) with the published v0.x tag. The version ldflags make the
# servers report their real version (else v0.0.0, and Helm's kubeVersion check fails). Built once per pin into a
# temporary folder, renamed into place when complete; about 15 minutes from a cold Go cache.
ensure_kubernetes() {
  local c missing=0
  for c in "${K8S_COMMANDS[@]}"; do [ -x "$K8S_BIN/$c" ] || missing=1; done
  ((missing)) || return 0
  have go || die "go is needed to build Kubernetes"
  mkdir -p "$FLOWBOARD_CACHE"
  exec 8>"$FLOWBOARD_CACHE/.kubernetes.lock"
  flock -n 8 || { log "kubernetes: another build of $K8S_VERSION is running; waiting for it"; flock 8; }
  for c in "${K8S_COMMANDS[@]}"; do [ -x "$K8S_BIN/$c" ] || missing=2; done
  if ((missing == 2)); then
    log "kubernetes: building $K8S_VERSION (${K8S_COMMANDS[*]}) from the Go module proxy (one-time, ~15 min cold)"
    local tmp mod ldflags v=k8s.io/component-base/version minor
    tmp=$(mktemp -d "$FLOWBOARD_CACHE/.build.XXXXXX")
    minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
    ( cd "$tmp" || exit 1
      export GOTOOLCHAIN=local GOFLAGS=-trimpath CGO_ENABLED=0
      go mod download -json "k8s.io/kubernetes@$K8S_VERSION" >/dev/null || exit 1
      mod=$(go env GOMODCACHE)/cache/download/k8s.io/kubernetes/@v/$K8S_VERSION.mod
      { printf 'module local/k8sbuild\n\ngo 1.24.0\n\nrequire k8s.io/kubernetes %s\n\nreplace (\n' "$K8S_VERSION"
        grep -E '^\s*k8s.io/[a-z-]+ => \./staging' "$mod" | awk -v s="$K8S_STAGING_VERSION" '{print "\t"$1" => "$1" "s}'
        echo ')'; } >go.mod
      go get $(for c in "${K8S_COMMANDS[@]}"; do echo "k8s.io/kubernetes/cmd/$c@$K8S_VERSION"; done) || exit 1
      ldflags="-X $v.gitVersion=$K8S_VERSION -X $v.gitMajor=1 -X $v.gitMinor=$minor -X $v.gitTreeState=clean"
      go build -ldflags "$ldflags" -o bin/ $(for c in "${K8S_COMMANDS[@]}"; do echo "k8s.io/kubernetes/cmd/$c"; done)
    ) || { rm -rf "$tmp"; exec 8>&-; die "kubernetes: build failed"; }
    rm -rf "$(dirname "$K8S_BIN")" && mkdir -p "$(dirname "$K8S_BIN")" && mv "$tmp/bin" "$K8S_BIN" && rm -rf "$tmp"
  fi
  exec 8>&-
}

ensure_helm() { HELM_BIN=$(ensure_go_tool helm "$HELM_MODULE") || die "helm: build failed"; }
ensure_coredns() { COREDNS_BIN=$(ensure_go_tool coredns "$COREDNS_MODULE") || die "coredns: build failed"; }

docker_up() { docker info >/dev/null 2>&1; }

# The container engine: Debian's dockerd, on a socket and data folder of its own. No iptables and no default
# bridge (this machine's kernel and network are not ours to rewire); builds use --network host.
ensure_docker() {
  docker_up && return 0
  mkdir -p "$DOCKER_DATA" "$RUN_DIR" "$LOG_DIR"
  log "docker: starting dockerd (data in $DOCKER_DATA)"
  start_detached dockerd "$LOG_DIR/dockerd.log" dockerd --data-root "$DOCKER_DATA" \
    --exec-root /run/flowboard-docker --pidfile /run/flowboard-docker.pid --host "$DOCKER_HOST" \
    --iptables=false --ip-masq=false --bridge=none
  wait_ready dockerd "$LOG_DIR/dockerd.log" 60 docker_up
}

# The webhooks service's sealing key (SECRET_ENCRYPTION_KEY): random, made once per cluster home and kept there, root
# only, beside the database whose webhook secrets it seals (a new key would make them unusable).
webhooks_secret_key() {
  local f=$CLUSTER_HOME/webhooks-secret-key
  if [ ! -s "$f" ]; then
    mkdir -p "$CLUSTER_HOME"
    (umask 077 && openssl rand -base64 32 >"$f")
  fi
  cat "$f"
}

# The chart's values for this cluster, into HELM_ARGS: deploy/cluster/values.yaml, then this machine's addresses
# and the images of one build (a file of "<service> <tag> <version>" lines, as images.sh writes): per service its
# image tag and its release, components.<svc>.image.tag and .version, the two values that upgrading one service
# changes. The S3 keys are the local infrastructure's fixed ones (deploy/local/infra.sh). Restricted egress
# (webhooks) reaches the infrastructure on this host only, as an operator would pin it; webhooks may deliver to this
# host (the tests' receivers), nowhere else off the public internet.
# Secure infrastructure (FLOWBOARD_INFRA_SECURE=1): each role's password and verify-full, whose CA every pod trusts
# through the ConfigMap below (deploy/cluster/values.yaml, `default:`); Redis as its ACL user over TLS (rediss://).
HELM_ARGS=()
helm_args() {  # helm_args <images file>
  local pg="$BRIDGE_IP:$FLOWBOARD_PG_PORT/flowboard" redis="redis://$BRIDGE_IP:$FLOWBOARD_REDIS_PORT" svc
  local -A db
  for svc in boards membership files webhooks; do db[$svc]=postgresql://$svc@$pg; done
  if [ "$INFRA_SECURE" = 1 ]; then
    for svc in boards membership files webhooks; do
      db[$svc]="postgresql://$svc:$(infra_secret "pg-$svc")@$pg?sslmode=verify-full"
    done
    redis="rediss://flowboard:$(infra_secret redis)@$BRIDGE_IP:$FLOWBOARD_REDIS_PORT"
  fi
  HELM_ARGS=(--namespace "$NAMESPACE" -f "$CLUSTER_VALUES"
    --set-string "external.kafka.brokers=$BRIDGE_IP:$FLOWBOARD_KAFKA_PORT"
    --set-string "external.s3.endpoint=http://$BRIDGE_IP:$FLOWBOARD_S3_PORT"
    --set "networkPolicy.infrastructure.postgres.ports={$FLOWBOARD_PG_PORT}"
    --set-string "networkPolicy.infrastructure.postgres.to[0].ipBlock.cidr=$BRIDGE_IP/32"
    --set-string "networkPolicy.infrastructure.kafka.to[0].ipBlock.cidr=$BRIDGE_IP/32"
    --set-string "secrets.values.BOARDS_DATABASE_URL=${db[boards]}"
    --set-string "secrets.values.MEMBERSHIP_DATABASE_URL=${db[membership]}"
    --set-string "secrets.values.FILES_DATABASE_URL=${db[files]}"
    --set-string "secrets.values.WEBHOOKS_DATABASE_URL=${db[webhooks]}"
    --set-string "secrets.values.WEBHOOKS_SECRET_ENCRYPTION_KEY=$(webhooks_secret_key)"
    --set-string "secrets.values.REDIS_URL=$redis"
    --set-string "secrets.values.SMTP_URL=smtp://$BRIDGE_IP:$FLOWBOARD_SMTP_PORT"
    --set-string "secrets.values.S3_ACCESS_KEY=flowboard" --set-string "secrets.values.S3_SECRET_KEY=flowboard-secret"
    --set-string "components.webhooks.env.WEBHOOK_ALLOWED_HOSTS=$BRIDGE_IP"
    --set "components.gateway.service.nodePorts.http=$GATEWAY_NODE_PORT")
  local images
  mapfile -t images < <(image_args "$1")
  HELM_ARGS+=("${images[@]}")
  kafka_helm_args
}

# The plaintext listener's address (secure infrastructure only; nothing otherwise).
kafka_plaintext_brokers() {
  if [ "$INFRA_SECURE" = 1 ]; then echo "$BRIDGE_IP:$FLOWBOARD_KAFKA_PLAINTEXT_PORT"; fi
}

# Secure infrastructure: Kafka's clients listener wants TLS (the CA above) and SCRAM as infra.sh's user flowboard;
# each of the six Kafka components (the gateway's change stream too) gets the password from the release's Secret, as
# an operator would map it. A gateway from before the change stream reads none of these variables.
kafka_helm_args() {
  [ "$INFRA_SECURE" = 1 ] || return 0
  local c
  HELM_ARGS+=(--set "networkPolicy.infrastructure.kafka.ports={$FLOWBOARD_KAFKA_PORT,$FLOWBOARD_KAFKA_PLAINTEXT_PORT}"
    --set external.kafka.tls=true --set-string external.kafka.sasl.mechanism=scram-sha-512
    --set-string external.kafka.sasl.username=flowboard
    --set-string "secrets.values.KAFKA_SASL_PASSWORD=$(infra_secret kafka-flowboard)")
  for c in boards membership files notifier webhooks gateway; do
    HELM_ARGS+=(--set-string "components.$c.secretEnv.KAFKA_SASL_PASSWORD=KAFKA_SASL_PASSWORD")
  done
}

# The infrastructure's CA as the ConfigMap flowboard-ca (key ca.crt) in the namespace, before helm installs: what an
# operator's trust-manager Bundle would be; deploy/cluster/values.yaml mounts it into every component, so it is made
# in both modes (infra_ca makes the CA if infra.sh has not).
ensure_ca_configmap() {
  K -n "$NAMESPACE" create configmap flowboard-ca --from-file=ca.crt="$(infra_ca)" --dry-run=client -o yaml |
    K apply -f - >/dev/null
}

# The --set-string arguments of an images file, one a line: each service's image tag and release version (images
# files from before the version column set the tag only). A service built before Kafka TLS and SASL (the fourth
# column `plaintext`, images.sh) reaches the secure Kafka through its plaintext listener, as an operator keeps one
# open for old clients during a migration. Not the gateway: a gateway of such a release has no Kafka at all (it
# ignores the Kafka variables the chart gives it), and one with the change stream is of a tree with TLS and SASL, so
# it keeps the chart's secure brokers (test/cluster's imageArgs has the same rule).
image_args() {  # image_args <images file>
  local svc tag version kafka
  while read -r svc tag version kafka; do
    printf '%s\n' --set-string "components.$svc.image.tag=$tag"
    [ -z "$version" ] || printf '%s\n' --set-string "components.$svc.version=$version"
    if [ "$kafka" = plaintext ] && [ "$svc" != gateway ] && [ -n "$(kafka_plaintext_brokers)" ]; then
      printf '%s\n' --set-string "components.$svc.env.KAFKA_BROKERS=$(kafka_plaintext_brokers)"
    fi
  done <"$1"
}

# Images the node needs, from the engine into the node's containerd: the pause and CoreDNS images and the services'
# of one build (an images file of "<service> <tag> <version>" lines). What is there already is skipped.
import_images() {  # import_images <images file>
  local have want=() name
  have=$(ctr --address "$CONTAINERD_SOCK" -n k8s.io images ls -q 2>/dev/null || true)
  for name in "local/pause:3.10" "local/coredns:${COREDNS_MODULE##*@}" \
    $(awk '{ print "flowboard/" $1 ":" $2 }' "$1"); do
    grep -qx "docker.io/$name" <<<"$have" || want+=("$name")
  done
  ((${#want[@]})) || return 0
  log "node: importing ${#want[@]} image(s) into containerd: ${want[*]}"
  docker save "${want[@]}" | ctr --address "$CONTAINERD_SOCK" -n k8s.io images import --all-platforms - >/dev/null
}

cluster_running() { is_running kube-apiserver && K get --raw /readyz >/dev/null 2>&1; }

# The release's namespace, enforcing the `restricted` Pod Security Standard (the API server's built-in PodSecurity
# admission): a pod of the chart that asked for more than restricted allows would be refused, not just warned about.
ensure_namespace() {
  K apply -f - >/dev/null <<EOF_NS
apiVersion: v1
kind: Namespace
metadata:
  name: $NAMESPACE
  labels:
    pod-security.kubernetes.io/enforce: restricted
    pod-security.kubernetes.io/enforce-version: latest
    pod-security.kubernetes.io/warn: restricted
    pod-security.kubernetes.io/warn-version: latest
EOF_NS
}

# The deployment tests (test/cluster) import @flowboard/testing from its build (dist/): `npm test` builds it first
# in CI, but a lone `npm run test:cluster` or `test:compose` on a fresh clone must build it itself.
ensure_test_build() {
  ensure_node_deps
  npx turbo run build --filter=@flowboard/testing --output-logs=errors-only >/dev/null \
    || die "build of @flowboard/testing (the deployment tests' helpers) failed"
}
