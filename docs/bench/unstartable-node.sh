#!/usr/bin/env bash
# A replica node where replicas cannot start: three `sluice node` processes on loopback (one
# control+ingress node, two replica nodes), the second replica node's replica port range one port
# that another process holds, 4 replicas asked for. Prints the deployment's status line every
# ~3 s until 4 are RUNNING or 30 polls have passed, then the replica table. About 20 s to 2 min.
# Usage: docs/bench/unstartable-node.sh [JAR]   (default: deploy/target/sluice.jar)
# Ports: remoting 21520-21522, ingress 21800, API 21865, router 21850, replicas 21900-21950 and
# 21999 (held).
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
JAR=${1:-deploy/target/sluice.jar}
python3 -c "
import socket, time
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('127.0.0.1', 21999)); s.listen(); time.sleep(600)" &
HOLD=$!
APP=$(mktemp --suffix .yaml)
LOGS=$(mktemp -d)
cat > "$APP" <<'YAML'
applications:
  - name: llm
    llm_configs:
      - model_loading_config: {model_id: sim}
        engine_config: {type: simulated, ttft_ms: 0, itl_ms: 1}
        deployment_config: {num_replicas: 4}
YAML
SEEDS=127.0.0.1:21520,127.0.0.1:21521,127.0.0.1:21522
java -jar "$JAR" node --roles control,ingress --host 127.0.0.1 --port 21520 --seed-nodes "$SEEDS" \
  --ingress-port 21800 --api-port 21865 --router-port 21850 --metrics-port -1 --config "$APP" \
  > "$LOGS/control.log" 2>&1 &
C=$!
SLUICE_REPLICA_PORT_RANGE=21900-21950 java -jar "$JAR" node --roles replica --host 127.0.0.1 \
  --port 21521 --seed-nodes "$SEEDS" --metrics-port -1 > "$LOGS/replica-a.log" 2>&1 &
A=$!
SLUICE_REPLICA_PORT_RANGE=21999-21999 java -jar "$JAR" node --roles replica --host 127.0.0.1 \
  --port 21522 --seed-nodes "$SEEDS" --metrics-port -1 > "$LOGS/replica-b.log" 2>&1 &
B=$!
trap 'kill -TERM $C $A $B $HOLD 2>/dev/null; wait $C $A $B 2>/dev/null; rm -rf "$APP" "$LOGS"' EXIT
t0=$(date +%s)
for _ in $(seq 1 30); do
  sleep 2
  line=$(java -jar "$JAR" status --address http://127.0.0.1:21865 2>/dev/null | sed -n 2p)
  echo "$(( $(date +%s) - t0 )) s  $line"
  echo "$line" | grep -qE " HEALTHY +4 +RUNNING 4" && break
done
java -jar "$JAR" status --address http://127.0.0.1:21865 2>/dev/null | tail -n +4
