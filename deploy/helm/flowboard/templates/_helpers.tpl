{{/* Names and labels. */}}
{{- define "flowboard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "flowboard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Name of a component's objects: (list $ "boards") → flowboard-boards */}}
{{- define "flowboard.componentName" -}}
{{- $root := index . 0 }}
{{- printf "%s-%s" (include "flowboard.fullname" $root) (index . 1) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "flowboard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels of a component: (list $ "boards") */}}
{{- define "flowboard.selectorLabels" -}}
{{- $root := index . 0 -}}
app.kubernetes.io/name: {{ include "flowboard.name" $root }}
app.kubernetes.io/instance: {{ $root.Release.Name }}
app.kubernetes.io/component: {{ index . 1 }}
{{- end }}

{{/* A component's release version (components.<name>.version): (list $ "boards") → 1.0.0 */}}
{{- define "flowboard.version" -}}
{{- $root := index . 0 }}
{{- $name := index . 1 }}
{{- $c := index $root.Values.components $name | default dict }}
{{- required (printf "components.%s.version is required (the service's release, as in services/%s/package.json)" $name $name) $c.version }}
{{- end }}

{{/* Labels of a component's pods: its selector labels and its own version, nothing release-wide, so a change to
     the chart (its version, appVersion, another component) never changes them: (list $ "boards"), or
     (list $ "gateway" "gateway-test") for pods of another component label carrying that component's version. */}}
{{- define "flowboard.podLabels" -}}
{{- $root := index . 0 -}}
{{- $name := index . 1 -}}
{{- $label := $name }}{{ if gt (len .) 2 }}{{ $label = index . 2 }}{{ end -}}
{{ include "flowboard.selectorLabels" (list $root $label) }}
app.kubernetes.io/part-of: flowboard
app.kubernetes.io/version: {{ include "flowboard.version" (list $root $name) | quote }}
app.kubernetes.io/managed-by: {{ $root.Release.Service }}
{{- end }}

{{/* All labels of a component's objects (Deployment, Service, ConfigMap, PDB, HPA...): its pods' labels and the
     chart's (helm.sh/chart: on the objects' metadata only, which rolls no pod). Same arguments as podLabels. */}}
{{- define "flowboard.labels" -}}
{{- $root := index . 0 -}}
{{ include "flowboard.podLabels" . }}
helm.sh/chart: {{ include "flowboard.chart" $root }}
{{- end }}

{{/* Labels of release-wide objects (ServiceAccount, Secret). */}}
{{- define "flowboard.commonLabels" -}}
app.kubernetes.io/name: {{ include "flowboard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: flowboard
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ include "flowboard.chart" . }}
{{- end }}

{{/* A component merged over `default:` (as YAML; use with fromYaml): (list $ "boards") */}}
{{- define "flowboard.component" -}}
{{- $root := index . 0 }}
{{- $name := index . 1 }}
{{- $c := index $root.Values.components $name }}
{{- toYaml (mergeOverwrite (deepCopy $root.Values.default) (deepCopy $c)) }}
{{- end }}

{{/* Names of the components, sorted, so every template renders them in the same order. */}}
{{- define "flowboard.componentNames" -}}
{{- keys .Values.components | sortAlpha | join "," }}
{{- end }}

{{/* In-cluster host:port of a component's named port: (list $ "files" "http") → flowboard-files:50063 */}}
{{- define "flowboard.address" -}}
{{- $root := index . 0 }}
{{- $name := index . 1 }}
{{- $portName := index . 2 }}
{{- $c := include "flowboard.component" (list $root $name) | fromYaml }}
{{- $port := "" }}
{{- range $c.ports }}{{ if eq .name $portName }}{{ $port = .port }}{{ end }}{{ end }}
{{- if not $port }}{{ fail (printf "component %s has no port named %s" $name $portName) }}{{ end }}
{{- printf "%s:%v" (include "flowboard.componentName" (list $root $name)) $port }}
{{- end }}

{{/* Image reference of a component: (list $ $component), $component with its `version`. Tag: image.tag, else
     global.imageTag, else the component's version (never the chart's appVersion). */}}
{{- define "flowboard.image" -}}
{{- $root := index . 0 }}
{{- $img := (index . 1).image }}
{{- $repo := $img.repository }}
{{- with $root.Values.global.imageRegistry }}{{ $repo = printf "%s/%s" . $repo }}{{ end }}
{{- if $img.digest }}
{{- printf "%s@%s" $repo $img.digest }}
{{- else }}
{{- printf "%s:%s" $repo (toString (default (default (index . 1).version $root.Values.global.imageTag) $img.tag)) }}
{{- end }}
{{- end }}

{{/* Name of the Secret holding credentials. */}}
{{- define "flowboard.secretName" -}}
{{- default (include "flowboard.fullname" .) .Values.secrets.existingSecret }}
{{- end }}

{{- define "flowboard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "flowboard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{/* The Secret keys used by enabled components, sorted and unique (as a comma-separated string). */}}
{{- define "flowboard.secretKeys" -}}
{{- $keys := list }}
{{- range $name := splitList "," (include "flowboard.componentNames" .) }}
{{- $c := include "flowboard.component" (list $ $name) | fromYaml }}
{{- if $c.enabled }}
{{- range $env, $key := $c.secretEnv }}{{ if not (index (default dict $c.secretNames) $env) }}{{ $keys = append $keys $key }}{{ end }}{{ end }}
{{- end }}
{{- end }}
{{- $keys | uniq | sortAlpha | join "," }}
{{- end }}

{{/* Pod-level settings shared by Deployments and the helm test pod: (list $ $component) */}}
{{- define "flowboard.podCommon" -}}
{{- $root := index . 0 }}
{{- $c := index . 1 -}}
automountServiceAccountToken: false
{{- with $root.Values.global.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- toYaml $c.podSecurityContext | nindent 2 }}
{{- with $c.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $c.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $c.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/* A component's plain configuration (ConfigMap data): bind address, ports (the metrics port too), then `env`
     rendered with tpl:
     (list $ $name $component) */}}
{{- define "flowboard.configData" -}}
{{- $root := index . 0 }}
{{- $c := index . 2 }}
{{- $data := dict }}
{{- if $c.bindEnv }}{{ $_ := set $data $c.bindEnv "0.0.0.0" }}{{ end }}
{{- range $c.ports }}{{ if .env }}{{ $_ := set $data .env (toString .port) }}{{ end }}{{ end }}
{{- $_ := set $data "METRICS_PORT" (toString $root.Values.metrics.port) }}
{{- range $k, $v := $c.env }}{{ $_ := set $data $k (tpl (toString $v) $root) }}{{ end }}
{{- /* The pool size is a value of its own, not `env`: the connection budget check counts it. */}}
{{- if $c.database.enabled }}
{{- if hasKey $c.env "DATABASE_POOL_SIZE" }}
{{- fail (printf "components.%s.env.DATABASE_POOL_SIZE: set components.%s.database.poolSize instead (the connection budget counts it)" (index . 1) (index . 1)) }}
{{- end }}
{{- $_ := set $data "DATABASE_POOL_SIZE" (printf "%d" (int64 $c.database.poolSize)) }}
{{- end }}
{{- toYaml $data }}
{{- end }}

{{/* checksum/secret of a component's pods: the chart-made Secret's values of the keys this component uses (its
     secretEnv), not of the whole Secret, so a credential of another component never rolls it: (list $ $component) */}}
{{- define "flowboard.secretChecksum" -}}
{{- $root := index . 0 }}
{{- $c := index . 1 }}
{{- $used := dict }}
{{- range $env, $key := $c.secretEnv }}{{ if not (index (default dict $c.secretNames) $env) }}{{ $_ := set $used $key (index $root.Values.secrets.values $key | default "") }}{{ end }}{{ end }}
{{- toJson $used | sha256sum }}
{{- end }}

{{/* secretKeyRef of a component's secretEnv variable: (list $ $component $variable). The Secret is
     secretNames.<variable> when set, else the release's (existingSecret or the chart-made one). */}}
{{- define "flowboard.secretKeyRef" -}}
{{- $root := index . 0 }}
{{- $c := index . 1 }}
{{- $env := index . 2 -}}
name: {{ index (default dict $c.secretNames) $env | default (include "flowboard.secretName" $root) }}
key: {{ index $c.secretEnv $env }}
{{- end }}

{{/* The PostgreSQL connection budget (values.yaml `postgresql:`; docs/operations.md "Connection budget"): per server,
     the enabled components with a database may hold (replicas or HPA maxReplicas + maxSurge) pods × poolSize
     connections, which must fit maxConnections - reservedConnections; fails naming every term otherwise. A pod's
     migrate init container ends before its service starts: its one connection is within the pod's share. */}}
{{- define "flowboard.checkConnectionBudget" -}}
{{- $root := . }}
{{- $pg := $root.Values.postgresql }}
{{- $servers := dict "" (dict "label" "postgresql" "max" $pg.maxConnections "reserved" $pg.reservedConnections) }}
{{- range $server, $s := $pg.servers }}
{{- $_ := set $servers $server (dict "label" (printf "postgresql.servers.%s" $server) "max" $s.maxConnections "reserved" (default 0 $s.reservedConnections)) }}
{{- end }}
{{- $terms := dict }}
{{- $totals := dict }}
{{- range $name := splitList "," (include "flowboard.componentNames" $root) }}
{{- $c := include "flowboard.component" (list $root $name) | fromYaml }}
{{- if and $c.enabled $c.database.enabled }}
{{- $server := toString (default "" $c.database.server) }}
{{- if not (hasKey $servers $server) }}
{{- fail (printf "components.%s.database.server %q is not a server of postgresql.servers (%s)" $name $server (keys $pg.servers | sortAlpha | join ", ")) }}
{{- end }}
{{- $replicas := int64 $c.replicas }}
{{- $what := printf "replicas %d" $replicas }}
{{- if $c.autoscaling.enabled }}
{{- $replicas = int64 $c.autoscaling.maxReplicas }}
{{- $what = printf "HPA maxReplicas %d" $replicas }}
{{- end }}
{{- $surge := int64 0 }}
{{- if eq $c.strategy.type "RollingUpdate" }}
{{- $s := toString $c.strategy.rollingUpdate.maxSurge }}
{{- if hasSuffix "%" $s }}
{{- /* Kubernetes rounds a percentage surge up. */}}
{{- $surge = div (add (mul $replicas (int64 (trimSuffix "%" $s))) 99) 100 | int64 }}
{{- else }}
{{- $surge = int64 $s }}
{{- end }}
{{- end }}
{{- $pool := int64 $c.database.poolSize }}
{{- $conns := mul (add $replicas $surge) $pool | int64 }}
{{- $_ := set $terms $server (append (get $terms $server | default list) (printf "%s: (%s + maxSurge %d) pods × poolSize %d = %d" $name $what $surge $pool $conns)) }}
{{- $_ := set $totals $server (add (get $totals $server | default 0) $conns | int64) }}
{{- end }}
{{- end }}
{{- range $server, $total := $totals }}
{{- $s := get $servers $server }}
{{- $budget := sub (int64 $s.max) (int64 $s.reserved) | int64 }}
{{- if gt (int64 $total) $budget }}
{{- fail (printf "PostgreSQL connection budget exceeded on %s: the pods may open %d connections, more than maxConnections %d - reservedConnections %d = %d. Per component, (replicas or HPA maxReplicas + the rollout's maxSurge) pods × database.poolSize: %s; each pod's migrate init container (1 connection) ends before its service starts, within that share. Lower the replicas, maxReplicas or database.poolSize, or declare the server's real max_connections in %s.maxConnections (docs/operations.md, \"Connection budget\")." $s.label (int64 $total) (int64 $s.max) (int64 $s.reserved) $budget (join "; " (get $terms $server)) $s.label) }}
{{- end }}
{{- end }}
{{- end }}

{{/* The gateway's STREAM_RETENTION_HOURS (values.yaml components.gateway.env): the retentionHours of
     flowboard.resource-changed.v1 in kafka.topics.list, which the gateway then sets on the topic at start, so the
     list, the topics the services create and how far back a change stream can resume agree. 0 (leave the topic's
     retention alone) with kafka.topics.create false: pre-created topics are the platform team's, whose topic operator
     would undo a change (and whose ACLs may not allow one), or when the list gives that topic no retention. */}}
{{- define "flowboard.streamRetentionHours" -}}
{{- $hours := 0 }}
{{- if .Values.kafka.topics.create }}
{{- range .Values.kafka.topics.list }}{{ if eq .name "flowboard.resource-changed.v1" }}{{ $hours = default 0 .retentionHours }}{{ end }}{{ end }}
{{- end }}
{{- $hours | int64 }}
{{- end }}
