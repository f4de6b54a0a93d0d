#!/usr/bin/env bash
# What mutual TLS on cluster traffic (sluice.cluster.tls-dir) costs: three node processes on
# loopback (control, replica, and an ingress-only node whose every route asks the router across
# remoting), plain TCP and TLS alternating, ROUNDS times. Per run: sluice bench through the
# ingress (short answers, so the per-request ask weighs most) and the nodes' CPU per request.
# Certificates: a throwaway CA and one node certificate made with openssl.
# Usage: docs/bench/remoting-tls.sh [jar]   (env: ROUNDS=2 REQUESTS=4000 WARMUP=1000
#        CONCURRENCY=16 TOKENS=16; needs openssl and jq)
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
work="$(mktemp -d)"
pids=()
cleanup() { set +e; [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null
  rm -rf "$work"; }
trap cleanup EXIT
control=18940 replica=18941 ingress_remoting=18942 ingress=18943 api=18944
hz=$(getconf CLK_TCK)
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }

tls="$work/tls"
mkdir -p "$tls"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$work/ca.key" -out "$tls/ca.crt" -days 2 \
  -subj "/CN=sluice bench CA" 2> /dev/null
openssl req -newkey rsa:2048 -nodes -keyout "$tls/tls.key" -out "$work/node.csr" \
  -subj "/CN=sluice" 2> /dev/null
openssl x509 -req -in "$work/node.csr" -CA "$tls/ca.crt" -CAkey "$work/ca.key" \
  -CAcreateserial -out "$tls/tls.crt" -days 2 2> /dev/null

cat > "$work/app.yaml" <<YAML
applications:
  - name: llm
    llm_configs:
      - model_loading_config: {model_id: sim}
        engine_config: {type: simulated, ttft_ms: 0, itl_ms: 0, default_max_tokens: ${TOKENS:-16}}
        deployment_config: {num_replicas: 2, max_ongoing_requests: 256}
YAML

run() { # mode: plain | tls
  local dir=""; [ "$1" = tls ] && dir="$tls"
  pids=()
  SLUICE_REMOTING_TLS_DIR="$dir" SLUICE_API_PORT=$api SLUICE_INGRESS_PORT=-1 \
    SLUICE_ROUTER_PORT=-1 SLUICE_METRICS_PORT=-1 java -Xmx1g -jar "$jar" node --roles control \
    --host 127.0.0.1 --port $control --config "$work/app.yaml" > "$work/control.log" 2>&1 &
  pids+=($!)
  SLUICE_REMOTING_TLS_DIR="$dir" SLUICE_REPLICA_PORT_RANGE=18950-18959 SLUICE_INGRESS_PORT=-1 \
    SLUICE_ROUTER_PORT=-1 SLUICE_API_PORT=-1 SLUICE_METRICS_PORT=-1 java -Xmx1g -jar "$jar" \
    node --roles replica --host 127.0.0.1 --port $replica --seed-nodes 127.0.0.1:$control \
    > "$work/replica.log" 2>&1 &
  pids+=($!)
  SLUICE_REMOTING_TLS_DIR="$dir" SLUICE_INGRESS_PORT=$ingress SLUICE_ROUTER_PORT=-1 \
    SLUICE_API_PORT=-1 SLUICE_METRICS_PORT=-1 java -Xmx1g -jar "$jar" node --roles ingress \
    --host 127.0.0.1 --port $ingress_remoting --seed-nodes 127.0.0.1:$control \
    > "$work/ingress.log" 2>&1 &
  pids+=($!)
  local end=$(( $(date +%s) + 90 ))
  until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$ingress/v1/completions" \
      -H 'content-type: application/json' -d '{"prompt":"hi","max_tokens":1}')" = 200 ]; do
    [ "$(date +%s)" -lt "$end" ] || { echo "$1: the cluster did not serve within 90 s" >&2
      tail -5 "$work"/*.log >&2; exit 1; }
    sleep 0.5
  done
  echo "$1: warming up (${WARMUP:-1000} requests) ..." >&2
  java -jar "$jar" bench --url "http://127.0.0.1:$ingress" --concurrency "${CONCURRENCY:-16}" \
    --requests "${WARMUP:-1000}" --max-tokens "${TOKENS:-16}" --warmup 0 > /dev/null
  local before=() i
  for i in 0 1 2; do before[$i]=$(cpu_ticks "${pids[$i]}"); done
  java -jar "$jar" bench --url "http://127.0.0.1:$ingress" --concurrency "${CONCURRENCY:-16}" \
    --requests "${REQUESTS:-4000}" --max-tokens "${TOKENS:-16}" --warmup 0 \
    --json "$work/bench.json" > /dev/null
  local cpu=()
  for i in 0 1 2; do
    cpu[$i]=$(awk -v a="${before[$i]}" -v b="$(cpu_ticks "${pids[$i]}")" -v hz="$hz" \
      -v n="${REQUESTS:-4000}" 'BEGIN {printf "%.0f", (b - a) / hz / n * 1e6}')
  done
  jq -r --arg mode "$1" --arg cpu "${cpu[*]}" '.results[0] | "\($mode)\t\(.requests_per_s
    | floor)\t\(.ttft_ms.p50 * 1000 | floor / 1000)\t\(.ttft_ms.p99 * 1000 | floor / 1000)\t\($cpu)\t\(.outcomes)"' \
    "$work/bench.json"
  kill "${pids[@]}"; wait "${pids[@]}" 2> /dev/null || true
  pids=()
}

printf 'mode\treq/s\tTTFT p50 ms\tTTFT p99 ms\tCPU µs/request: control replica ingress\toutcomes\n'
for round in $(seq 1 "${ROUNDS:-2}"); do
  run plain
  run tls
done
