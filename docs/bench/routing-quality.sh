#!/usr/bin/env bash
# Routing quality (issue 5): the shared-prefix workload (8 groups sharing a 4 KiB system prompt)
# against two clusters that differ only in policy, prefix-cache-affinity vs round-robin, side by
# side in one run; then the engines' prefix-cache hit ratios. Then multi-turn sessions against
# consistent-hash. FORWARD_BODY (default off, the node default: prefix-cache-affinity gets the
# body anyway) sets sluice.ingress.forward-body. Usage: docs/bench/routing-quality.sh [jar]
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

app() { # policy
  cat <<YAML
applications:
  - name: quality
    llm_configs:
      - model_loading_config: {model_id: sluice-sim}
        engine_config: {type: simulated, ttft_ms: 200, itl_ms: 5, default_max_tokens: 16, kv_cache_blocks: 300}
        deployment_config:
          num_replicas: 4
          request_router_config: {request_router_class: $1}
YAML
}
start() { # name policy ingress-port replica-range
  app "$2" > "$work/$1.yaml"
  # Two nodes side by side: each its own controller API port, no metrics endpoint.
  SLUICE_API_PORT=$(($3 + 1000)) SLUICE_METRICS_PORT=-1 \
  SLUICE_INGRESS_FORWARD_BODY="${FORWARD_BODY:-off}" SLUICE_REPLICA_PORT_RANGE=$4 java -Xmx1g -jar "$jar" local \
    --config "$work/$1.yaml" --port "$3" --router-port -1 --remoting-port 0 > "$work/$1.log" 2>&1 &
}
wait_ready() { for i in $(seq 1 120); do curl -sf -o /dev/null "http://127.0.0.1:$1/v1/models" && \
  curl -sf -o /dev/null "http://127.0.0.1:$1/v1/chat/completions" -H 'content-type: application/json' \
  -d '{"messages":[{"role":"user","content":"x"}],"max_tokens":1}' && return 0; sleep 0.5; done; exit 1; }
hit_ratio() { # replica-range
  local first=${1%-*} last=${1#*-} sum=0 n=0
  for port in $(seq "$first" "$last"); do
    r=$(curl -sf "http://127.0.0.1:$port/-/stats" 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin)["engine"]["prefix_cache_hit_ratio"])' 2>/dev/null) || continue
    sum=$(python3 -c "print($sum + $r)"); n=$((n + 1))
  done
  python3 -c "print(f'{$sum / $n:.3f} (mean of $n replicas)')"
}

start affinity prefix-cache-affinity 18001 32000-32003
start roundrobin round-robin 18002 32100-32103
wait_ready 18001; wait_ready 18002
java -jar "$jar" bench --url http://127.0.0.1:18001 --url http://127.0.0.1:18002 \
  --workload shared-prefix --groups 8 --prefix-chars 4096 --concurrency 8 --requests 1600 \
  --rounds 4 --warmup 0 --json "$work/quality.json" | grep -E "^target|^http"
echo "prefix-cache hit ratio: prefix-cache-affinity $(hit_ratio 32000-32003), round-robin $(hit_ratio 32100-32103)"
kill $(jobs -p); wait 2>/dev/null || true

app consistent-hash > "$work/sessions.yaml"
SLUICE_REPLICA_PORT_RANGE=32200-32203 java -Xmx1g -jar "$jar" local --config "$work/sessions.yaml" \
  --port 18003 --router-port -1 --remoting-port 0 > "$work/sessions.log" 2>&1 &
wait_ready 18003
java -jar "$jar" bench --url http://127.0.0.1:18003 --workload multi-turn --sessions 50 --turns 10 \
  --concurrency 10 --warmup 0 --max-tokens 8 | grep -E "session affinity|replicas:|outcomes"
