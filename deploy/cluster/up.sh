#!/usr/bin/env bash
# `npm run cluster`: Flowboard on a real one-node Kubernetes on this machine, installed with its Helm chart.
# Idempotent: what runs is left running, what is built is reused (caches in $FLOWBOARD_CACHE).
#
#   1. tools      Debian's container engine, etcd, containerd and CNI plugins (apt); Kubernetes, CoreDNS and Helm
#                 built from the Go module proxy
#   2. images     a debootstrap'ed Debian base, a Node base, the six service images (deploy/cluster/images.sh)
#   3. infra      PostgreSQL, Redis, Kafka, MinIO and the mail catcher on this host (deploy/local/infra.sh), on the
#                 pod bridge's gateway address: to the pods, external services, as an operator's would be
#   4. control    etcd, kube-apiserver, kube-controller-manager, kube-scheduler
#   5. node       containerd (CRI), kubelet, kube-proxy (iptables), CoreDNS as cluster DNS
#   6. flowboard  helm upgrade --install --wait with deploy/cluster/values.yaml
#
# `npm run cluster:down` stops it all (deploy/cluster/down.sh). See the README's "Kubernetes" section.
set -euo pipefail
# shellcheck source=deploy/cluster/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
cd "$REPO"
[ "$(id -u)" = 0 ] || die "the cluster needs root (network bridge, iptables, container runtime)"
T0=$(now_ms)
mkdir -p "$CLUSTER_HOME" "$RUN_DIR" "$LOG_DIR"

# ---- 1. tools -----------------------------------------------------------------------------------------------------
tools() {
  step "1/6 tools: apt packages, Kubernetes $K8S_VERSION, CoreDNS, Helm (built once into $FLOWBOARD_CACHE)"
  ensure_cluster_packages
  ensure_kubernetes
  ensure_coredns
  ensure_helm
  log "tools: $("$K8S_BIN/kube-apiserver" --version), helm $("$HELM_BIN" version --short), $("$COREDNS_BIN" -version | head -1)"
}

# ---- 2. images ----------------------------------------------------------------------------------------------------
images() {
  step "2/6 images: base images without a registry, then the six services"
  bash "$REPO/deploy/cluster/images.sh"
  # CoreDNS and the sandbox's pause process: static binaries in images FROM scratch.
  local ctx
  if ! docker image inspect "local/coredns:${COREDNS_MODULE##*@}" >/dev/null 2>&1; then
    ctx=$(mktemp -d)
    cp "$COREDNS_BIN" "$ctx/coredns"
    printf 'FROM scratch\nCOPY coredns /coredns\nUSER 65534:65534\nENTRYPOINT ["/coredns"]\n' >"$ctx/Dockerfile"
    docker build -q -t "local/coredns:${COREDNS_MODULE##*@}" "$ctx" >"$LOG_DIR/build-coredns.log" 2>&1 \
      || { show_log "$LOG_DIR/build-coredns.log"; die "coredns image build failed"; }
    rm -rf "$ctx"
  fi
  if ! docker image inspect local/pause:3.10 >/dev/null 2>&1; then
    ctx=$(mktemp -d)
    printf '#include <signal.h>\n#include <unistd.h>\nstatic void done(int s) { (void)s; _exit(0); }\nint main(void) { signal(SIGTERM, done); signal(SIGINT, done); for (;;) pause(); }\n' >"$ctx/pause.c"
    gcc -Os -static -o "$ctx/pause" "$ctx/pause.c"
    printf 'FROM scratch\nCOPY pause /pause\nUSER 65535:65535\nENTRYPOINT ["/pause"]\n' >"$ctx/Dockerfile"
    docker build -q -t local/pause:3.10 "$ctx" >"$LOG_DIR/build-pause.log" 2>&1 \
      || { show_log "$LOG_DIR/build-pause.log"; die "pause image build failed"; }
    rm -rf "$ctx"
  fi
}

# ---- 3. the pod network and the host's infrastructure --------------------------------------------------------------
network() {
  # The CNI bridge plugin would make cni0 with the first pod; made here first, so the infrastructure and the API server
  # can listen on its gateway address before any pod exists. Bridged pod traffic must pass iptables (kube-proxy's
  # Service rules), and the host must forward between pods and Services.
  if ! ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link add "$BRIDGE" type bridge
  fi
  ip addr show dev "$BRIDGE" | grep -q "inet $BRIDGE_IP/" || ip addr add "$BRIDGE_IP/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  modprobe br_netfilter 2>/dev/null || true
  sysctl -qw net.bridge.bridge-nf-call-iptables=1 net.ipv4.ip_forward=1
}

infra() {
  step "3/6 infrastructure on $BRIDGE_IP (PostgreSQL, Redis, Kafka, MinIO, mail catcher)"
  network
  ensure_node_deps
  [ -f packages/mail-sink/dist/main.js ] || npx turbo run build --filter=@flowboard/mail-sink --output-logs=errors-only
  bash deploy/local/infra.sh start
}

# ---- 4. control plane ---------------------------------------------------------------------------------------------
# A CA of the cluster's own signs the API server's serving certificate (pods verify it through their service-account
# ca.crt) and the client certificate it shows the kubelet (which authorises every other caller through the API
# server: no anonymous kubelet API on the pod network).
certificates() {
  local d=$CLUSTER_HOME/pki
  [ -f "$d/apiserver-kubelet-client.crt" ] && return 0
  mkdir -p "$d"
  (
    cd "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 -subj /CN=flowboard-cluster-ca 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr -subj /CN=kube-apiserver 2>/dev/null
    printf 'subjectAltName=IP:%s,IP:%s,IP:127.0.0.1,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,DNS:kubernetes.default.svc.cluster.local,DNS:localhost\nextendedKeyUsage=serverAuth\n' \
      "$BRIDGE_IP" "${SERVICE_CIDR%.*/*}.1" >apiserver.ext
    openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver.crt -days 3650 -extfile apiserver.ext 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout apiserver-kubelet-client.key -out kc.csr \
      -subj "/O=system:masters/CN=kube-apiserver-kubelet-client" 2>/dev/null
    printf 'extendedKeyUsage=clientAuth\n' >kc.ext
    openssl x509 -req -in kc.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out apiserver-kubelet-client.crt -days 3650 -extfile kc.ext 2>/dev/null
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    rm -f ./*.csr ./*.ext
  )
  # The admin's bearer token: random per cluster, readable by root only.
  (umask 077 && echo "$(openssl rand -hex 24),admin,admin,\"system:masters\"" >"$d/tokens.csv")
}

kubeconfig() {
  local token
  token=$(cut -d, -f1 "$CLUSTER_HOME/pki/tokens.csv")
  K config set-cluster flowboard --server="https://$BRIDGE_IP:$APISERVER_PORT" \
    --certificate-authority="$CLUSTER_HOME/pki/ca.crt" --embed-certs=true >/dev/null
  K config set-credentials admin --token="$token" >/dev/null
  K config set-context flowboard --cluster=flowboard --user=admin >/dev/null
  K config use-context flowboard >/dev/null
  chmod 600 "$KUBECONFIG"
}

control_plane() {
  step "4/6 control plane: etcd, kube-apiserver, kube-controller-manager, kube-scheduler"
  certificates
  kubeconfig
  local p=$CLUSTER_HOME/pki
  is_running etcd || start_detached etcd "$LOG_DIR/etcd.log" etcd --data-dir "$CLUSTER_HOME/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster default=http://127.0.0.1:2380 --listen-metrics-urls=http://127.0.0.1:2381
  wait_ready etcd "$LOG_DIR/etcd.log" 30 curl -fsS http://127.0.0.1:2379/health
  is_running kube-apiserver || start_detached kube-apiserver "$LOG_DIR/kube-apiserver.log" "$K8S_BIN/kube-apiserver" \
    --etcd-servers=http://127.0.0.1:2379 --advertise-address="$BRIDGE_IP" --bind-address="$BRIDGE_IP" \
    --secure-port="$APISERVER_PORT" --tls-cert-file="$p/apiserver.crt" --tls-private-key-file="$p/apiserver.key" \
    --client-ca-file="$p/ca.crt" --kubelet-client-certificate="$p/apiserver-kubelet-client.crt" \
    --kubelet-client-key="$p/apiserver-kubelet-client.key" --kubelet-preferred-address-types=InternalIP \
    --service-account-issuer=https://kubernetes.default.svc.cluster.local --service-account-key-file="$p/sa.pub" \
    --service-account-signing-key-file="$p/sa.key" --service-cluster-ip-range="$SERVICE_CIDR" \
    --token-auth-file="$p/tokens.csv" --authorization-mode=Node,RBAC --allow-privileged=false \
    --profiling=false --anonymous-auth=false
  wait_ready kube-apiserver "$LOG_DIR/kube-apiserver.log" 120 K get --raw /readyz
  is_running kube-controller-manager || start_detached kube-controller-manager "$LOG_DIR/kube-controller-manager.log" \
    "$K8S_BIN/kube-controller-manager" --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" \
    --authorization-kubeconfig="$KUBECONFIG" --leader-elect=false --bind-address=127.0.0.1 \
    --service-account-private-key-file="$p/sa.key" --root-ca-file="$p/ca.crt" --use-service-account-credentials=true \
    --profiling=false
  is_running kube-scheduler || start_detached kube-scheduler "$LOG_DIR/kube-scheduler.log" "$K8S_BIN/kube-scheduler" \
    --kubeconfig="$KUBECONFIG" --authentication-kubeconfig="$KUBECONFIG" --authorization-kubeconfig="$KUBECONFIG" \
    --leader-elect=false --bind-address=127.0.0.1 --profiling=false
  wait_ready kube-controller-manager "$LOG_DIR/kube-controller-manager.log" 60 curl -fsSk https://127.0.0.1:10257/healthz
  wait_ready kube-scheduler "$LOG_DIR/kube-scheduler.log" 60 curl -fsSk https://127.0.0.1:10259/healthz
}

# ---- 5. the node --------------------------------------------------------------------------------------------------
containerd_config() {
  local c=$CLUSTER_HOME/containerd
  mkdir -p "$c/net.d" "$c/cni"
  # restrict_oom_score_adj: this VM lacks CAP_SYS_RESOURCE; without it every pod sandbox fails with "runc create
  # failed: ... can't get final child's PID from pipe: EOF".
  cat >"$c/config.toml" <<EOF
version = 2
root = "$c/root"
state = "$c/state"
[grpc]
  address = "$CONTAINERD_SOCK"
[plugins."io.containerd.grpc.v1.cri"]
  sandbox_image = "local/pause:3.10"
  restrict_oom_score_adj = true
  [plugins."io.containerd.grpc.v1.cri".cni]
    bin_dir = "/usr/lib/cni"
    conf_dir = "$c/net.d"
EOF
  cat >"$c/net.d/10-flowboard.conflist" <<EOF
{"cniVersion": "0.4.0", "name": "pods", "plugins": [
  {"type": "bridge", "bridge": "$BRIDGE", "isGateway": true, "ipMasq": false, "hairpinMode": true,
   "ipam": {"type": "host-local", "dataDir": "$c/cni", "ranges": [[{"subnet": "$POD_CIDR", "gateway": "$BRIDGE_IP"}]],
            "routes": [{"dst": "0.0.0.0/0"}]}},
  {"type": "portmap", "capabilities": {"portMappings": true}}]}
EOF
}

kubelet_config() {
  cat >"$CLUSTER_HOME/kubelet.yaml" <<EOF
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
# The API server reaches the kubelet with its client certificate; every other caller is checked with the API server.
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: true}
  x509: {clientCAFile: "$CLUSTER_HOME/pki/ca.crt"}
authorization: {mode: Webhook}
address: $BRIDGE_IP
healthzBindAddress: 127.0.0.1
readOnlyPort: 0
cgroupDriver: cgroupfs
failCgroupV1: false
failSwapOn: false
containerRuntimeEndpoint: unix://$CONTAINERD_SOCK
clusterDNS: [$DNS_SERVICE_IP]
clusterDomain: cluster.local
# Images get here by import, never by pull: none may be collected.
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {"memory.available": "100Mi", "nodefs.available": "1%", "imagefs.available": "1%"}
EOF
}

node_up() {
  step "5/6 node $NODE_NAME: containerd (CRI), kubelet, kube-proxy, CoreDNS"
  containerd_config
  is_running containerd || start_detached containerd "$LOG_DIR/containerd.log" containerd --config "$CLUSTER_HOME/containerd/config.toml"
  wait_ready containerd "$LOG_DIR/containerd.log" 30 test -S "$CONTAINERD_SOCK"
  import_images "$CLUSTER_HOME/images"
  kubelet_config
  mkdir -p "$CLUSTER_HOME/kubelet"
  is_running kubelet || start_detached kubelet "$LOG_DIR/kubelet.log" "$K8S_BIN/kubelet" --kubeconfig="$KUBECONFIG" \
    --config="$CLUSTER_HOME/kubelet.yaml" --root-dir="$CLUSTER_HOME/kubelet" --cert-dir="$CLUSTER_HOME/kubelet/pki" \
    --hostname-override="$NODE_NAME" --node-ip="$BRIDGE_IP"
  # NodePorts only on loopback (kube-proxy then sets route_localnet itself); --conntrack-max-per-core=0 leaves the
  # host's conntrack table size alone.
  is_running kube-proxy || start_detached kube-proxy "$LOG_DIR/kube-proxy.log" "$K8S_BIN/kube-proxy" \
    --kubeconfig="$KUBECONFIG" --hostname-override="$NODE_NAME" --proxy-mode=iptables --cluster-cidr="$POD_CIDR" \
    --nodeport-addresses=127.0.0.1/32 --conntrack-max-per-core=0 --metrics-bind-address=127.0.0.1:10249 \
    --healthz-bind-address=127.0.0.1:10256
  log "node: waiting for $NODE_NAME to be Ready"
  wait_for 300 "node $NODE_NAME to register" K get node "$NODE_NAME"
  K wait --for=condition=Ready "node/$NODE_NAME" --timeout=300s >/dev/null
  sed -e "s|@DNS_SERVICE_IP@|$DNS_SERVICE_IP|g" -e "s|@IMAGE@|local/coredns:${COREDNS_MODULE##*@}|g" \
    "$REPO/deploy/cluster/coredns.yaml" | K apply -f - >/dev/null
  K -n kube-system rollout status deployment/coredns --timeout=180s >/dev/null
  log "node: Ready; cluster DNS at $DNS_SERVICE_IP"
}

# ---- 6. Flowboard -------------------------------------------------------------------------------------------------
install_flowboard() {
  step "6/6 flowboard: helm upgrade --install $RELEASE ($CHART) into namespace $NAMESPACE"
  helm_args "$CLUSTER_HOME/images"
  ensure_namespace
  ensure_ca_configmap   # the infrastructure's CA, which the values mount into every pod
  helm_ upgrade --install "$RELEASE" "$CHART" --create-namespace --wait --timeout 8m "${HELM_ARGS[@]}" \
    >"$LOG_DIR/helm-install.log" 2>&1 || {
    show_log "$LOG_DIR/helm-install.log"
    K -n "$NAMESPACE" get pods -o wide >&2 || true
    die "helm install failed"
  }
  log "flowboard: installed; $(K -n "$NAMESPACE" get pods --no-headers | awk '$3 == "Running"' | wc -l) pods running"
  wait_for 60 "the gateway on $GATEWAY_URL" http_ok "$GATEWAY_URL/readyz" || die "the gateway is not reachable on $GATEWAY_URL"
}

main() {
  local install=1
  case ${1:-} in
    --no-install) install=0 ;; # scripts/cluster-test.sh installs (and checks) the chart itself
    '') ;;
    *) die "usage: $0 [--no-install]" ;;
  esac
  tools
  images
  infra
  control_plane
  node_up
  ((install)) || { log "cluster ready ($(((($(now_ms) - T0) + 500) / 1000))s); chart not installed (--no-install)"; return 0; }
  install_flowboard
  cat <<EOF

Flowboard runs on Kubernetes $K8S_VERSION ($(((($(now_ms) - T0) + 500) / 1000))s).
  Gateway (REST API, NodePort on loopback)  $GATEWAY_URL
  Mail catcher (Mailpit API)                $MAILPIT_URL/api/v1/messages
  kubectl                                   export KUBECONFIG=$KUBECONFIG PATH=$K8S_BIN:\$PATH
                                            kubectl -n $NAMESPACE get pods
  helm                                      $HELM_BIN -n $NAMESPACE status $RELEASE
  Logs                                      $LOG_DIR/ (pods: kubectl logs)
  Stop                                      npm run cluster:down

Sign up a first user:
  curl -s -X POST $GATEWAY_URL/api/v1/users -H 'Content-Type: application/json' -d '{"userName":"alice","email":"alice@example.test"}'
EOF
}

main "$@"
