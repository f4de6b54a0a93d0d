#!/usr/bin/env bash
# Issue 10's figures, on a cluster of three node processes on loopback (a control+ingress node,
# two replica nodes), simulated engines:
#   1. time from PATCH num_replicas 1 -> 16 to 16 RUNNING (as GET /api/applications shows them);
#   2. requests broken by a scale-in 16 -> 2 while 64 streams run back to back (sluice bench);
#   3. autoscaling reaction: a load step of 32 streams, then none, against the configured delays.
# Usage: docs/bench/scale.sh [jar]     (needs jq and curl)
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
ingress=18900 api=18901 seed=18902
api_url="http://127.0.0.1:$api"
now_ms() { date +%s%3N; }
running() { curl -sf "$api_url/api/applications" | jq '[.applications[].deployments[] | select(.name=="sim") | .replicas[] | select(.state=="RUNNING")] | length'; }
total() { curl -sf "$api_url/api/applications" | jq '[.applications[].deployments[] | select(.name=="sim") | .replicas[]] | length'; }
target() { curl -sf "$api_url/api/applications" | jq '.applications[0].deployments[0].target_replicas'; }
patch() { curl -sf -X PATCH "$api_url/api/applications/llm/deployments/sim" -H 'content-type: application/json' -d "$1" > /dev/null; }
await() { # condition-command expected deadline-seconds
  local end=$(( $(date +%s) + $3 ))
  until [ "$($1 2>/dev/null || echo -1)" = "$2" ]; do
    [ "$(date +%s)" -lt "$end" ] || { echo "timed out waiting for $1 = $2" >&2; exit 1; }
    sleep 0.02
  done
}

cat > "$work/app.yaml" <<YAML
applications:
  - name: llm
    llm_configs:
      - model_loading_config: {model_id: sim}
        engine_config: {type: simulated, ttft_ms: 0, itl_ms: 20, default_max_tokens: 100}
        deployment_config: {num_replicas: 1, max_ongoing_requests: 64, graceful_shutdown_timeout_s: 30}
YAML
SLUICE_INGRESS_PORT=$ingress SLUICE_API_PORT=$api SLUICE_ROUTER_PORT=-1 java -Xmx1g -jar "$jar" \
  node --roles control,ingress --host 127.0.0.1 --port $seed --config "$work/app.yaml" \
  > "$work/control.log" 2>&1 &
for n in 0 1; do
  SLUICE_REPLICA_PORT_RANGE="$((18910 + n * 20))-$((18929 + n * 20))" \
    SLUICE_INGRESS_PORT=-1 SLUICE_ROUTER_PORT=-1 SLUICE_API_PORT=-1 SLUICE_METRICS_PORT=0 java -Xmx1g -jar "$jar" node --roles replica \
    --host 127.0.0.1 --port $((18903 + n)) --seed-nodes 127.0.0.1:$seed > "$work/replica$n.log" 2>&1 &
done
await running 1 90

# 1. 1 -> 16
start=$(now_ms); patch '{"num_replicas": 16}'; await running 16 60
echo "PATCH num_replicas 1 -> 16: 16 RUNNING after $(( $(now_ms) - start )) ms"

# 2. 16 -> 2 under 64 streams
java -jar "$jar" bench --url "http://127.0.0.1:$ingress" --concurrency 64 --requests 100000 \
  --duration 20s --max-tokens 100 --warmup 0 --json "$work/scale-in.json" > "$work/bench.out" 2>&1 &
bench=$!
sleep 5
start=$(now_ms); patch '{"num_replicas": 2}'; await total 2 60
echo "scale-in 16 -> 2: drained replicas gone after $(( $(now_ms) - start )) ms"
wait $bench
jq -r '.results[0] | "scale-in 16 -> 2 under 64 streams: \(.requests) requests, outcomes \(.outcomes | tostring)"' "$work/scale-in.json"

# 3. autoscaling reaction
patch '{"autoscaling_config": {"min_replicas": 1, "max_replicas": 8, "target_ongoing_requests": 4, "upscale_delay_s": 3, "downscale_delay_s": 6, "look_back_period_s": 2}}'
await running 2 30   # it starts from the current count
await total 2 30
java -jar "$jar" bench --url "http://127.0.0.1:$ingress" --concurrency 32 --requests 100000 \
  --duration 25s --max-tokens 100 --warmup 0 > "$work/bench2.out" 2>&1 &
bench=$!
start=$(now_ms)
await target 8 40; up=$(( $(now_ms) - start ))
await running 8 40; up_running=$(( $(now_ms) - start ))
echo "autoscaling (upscale_delay_s 3, look_back_period_s 2): target 2 -> 8 after $up ms, 8 RUNNING after $up_running ms of a 32-stream load"
kill $bench 2>/dev/null || true; wait $bench 2>/dev/null || true
start=$(now_ms)
await target 1 60; down=$(( $(now_ms) - start ))
echo "autoscaling (downscale_delay_s 6): target -> 1 after $down ms without load"
curl -sf "$api_url/api/applications" | jq -c '.applications[0].deployments[0].autoscaling.last_decision'
