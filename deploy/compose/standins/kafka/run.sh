#!/bin/bash
# The official image's start, in what compose.yaml uses: every KAFKA_<NAME> variable becomes a server property (lower
# case; "_" → ".", "__" → "_", "___" → "-"), the storage is formatted on first start (CLUSTER_ID or a fixed default),
# then the broker runs in the foreground.
set -euo pipefail
conf=/opt/kafka/config/server.properties
: >"$conf"
for var in $(compgen -e); do
  case $var in
    KAFKA_HEAP_OPTS | KAFKA_OPTS | KAFKA_JVM_PERFORMANCE_OPTS | KAFKA_LOG4J_OPTS | KAFKA_JMX_OPTS) continue ;;
    KAFKA_*) ;;
    *) continue ;;
  esac
  key=$(tr 'A-Z' 'a-z' <<<"${var#KAFKA_}" | sed -e 's/___/-/g' -e 's/__/@/g' -e 's/_/./g' -e 's/@/_/g')
  echo "$key=${!var}" >>"$conf"
done
grep -q '^log\.dirs=' "$conf" || echo 'log.dirs=/var/lib/kafka/data' >>"$conf"
cp='/opt/kafka/libs/*'
logs=$(sed -n 's/^log\.dirs=//p' "$conf" | cut -d, -f1)
if [ ! -f "$logs/meta.properties" ]; then
  java -cp "$cp" -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties kafka.tools.StorageTool format \
    -t "${CLUSTER_ID:-5L6g3nShT-eMCtK--X86sw}" -c "$conf" --ignore-formatted
fi
exec java ${KAFKA_HEAP_OPTS:--Xmx512m -Xms256m} -XX:+UseG1GC -Djava.awt.headless=true \
  -Dlog4j2.configurationFile=/opt/kafka/config/log4j2.properties -cp "$cp" kafka.Kafka "$conf"
