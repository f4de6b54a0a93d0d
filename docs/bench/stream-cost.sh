#!/usr/bin/env bash
# Measures what one open stream costs the ingress (issue 5):
#   1. heap per open stream: 2,000 slow streams (itl 1000 ms) held open through the ingress;
#   2. CPU per delivered token at a realistic pace (itl 20 ms = 50 tokens/s per stream, 1,000
#      concurrent streams), through the ingress and directly against the replica.
# Two node processes (a replica node; an ingress node that also runs the control singletons, as
# `sluice bench compare` does by default); the load generator is a third process. Prints one
# line per figure. Usage: docs/bench/stream-cost.sh [jar]
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
heap_used_kb() { jcmd "$1" GC.run >/dev/null; sleep 1; jcmd "$1" GC.heap_info | awk '/used/ {for(i=1;i<=NF;i++) if ($i=="used") {gsub("K","",$(i+1)); print $(i+1); exit}}'; }
hz=$(getconf CLK_TCK)

start_nodes() { # itl_ms tokens
  local replica=$(free_port) ingress=$(free_port) remoting=$(free_port)
  cat > "$work/app.yaml" <<YAML
applications:
  - name: cost
    llm_configs:
      - model_loading_config: {model_id: sluice-sim}
        engine_config: {type: simulated, ttft_ms: 0, itl_ms: $1, default_max_tokens: $2, max_num_seqs: 8192}
        deployment_config: {num_replicas: 1, max_ongoing_requests: 8192}
YAML
  SLUICE_REPLICA_PORT_RANGE=$replica SLUICE_INGRESS_PORT=-1 SLUICE_METRICS_PORT=0 java -Xmx2g -jar "$jar" node --roles replica \
    --host 127.0.0.1 --port "$remoting" > "$work/replica.log" 2>&1 &
  replica_pid=$!
  SLUICE_INGRESS_PORT=$ingress SLUICE_ROUTER_PORT=-1 java -Xmx2g -jar "$jar" node --roles control,ingress \
    --host 127.0.0.1 --port 0 --seed-nodes "127.0.0.1:$remoting" --config "$work/app.yaml" \
    > "$work/ingress.log" 2>&1 &
  ingress_pid=$!
  replica_url="http://127.0.0.1:$replica"; ingress_url="http://127.0.0.1:$ingress"
  for i in $(seq 1 120); do
    curl -sf -o /dev/null "$ingress_url/v1/chat/completions" -H 'content-type: application/json' \
      -d '{"messages":[{"role":"user","content":"x"}],"max_tokens":1}' && return 0
    sleep 0.5
  done
  echo "nodes not ready" >&2; exit 1
}
stop_nodes() { kill "$replica_pid" "$ingress_pid"; wait "$replica_pid" "$ingress_pid" 2>/dev/null || true; }

# 1. Heap per open stream.
start_nodes 1000 25
idle=$(heap_used_kb "$ingress_pid")
java -jar "$jar" bench --url "$ingress_url" --concurrency 2000 --requests 2000 --max-tokens 25 \
  --prompt-tokens 16 --warmup 0 --json "$work/heap.json" > "$work/heap.out" 2>&1 &
bench_pid=$!
sleep 12
loaded=$(heap_used_kb "$ingress_pid")
open=$(ss -tn state established "( sport = :${ingress_url##*:} )" | tail -n +2 | wc -l)
wait "$bench_pid"
echo "heap: idle ${idle} KiB, with ${open} open streams ${loaded} KiB => $(( (loaded - idle) / (open > 0 ? open : 1) )) KiB per stream"
stop_nodes

# 2. CPU per token at 50 tokens/s per stream, 1000 streams.
start_nodes 20 250
for target in ingress replica; do
  url=$ingress_url; [ "$target" = replica ] && url=$replica_url
  i0=$(cpu_ticks "$ingress_pid"); r0=$(cpu_ticks "$replica_pid")
  java -jar "$jar" bench --url "$url" --concurrency 1000 --requests 4000 --max-tokens 250 \
    --prompt-tokens 16 --warmup 0 --json "$work/$target.json" > "$work/$target.out" 2>&1
  i1=$(cpu_ticks "$ingress_pid"); r1=$(cpu_ticks "$replica_pid")
  python3 - "$work/$target.json" "$target" $(( i1 - i0 )) $(( r1 - r0 )) "$hz" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["results"][0]
target, ingress_ticks, replica_ticks, hz = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
tokens = run["output_tokens"]
for name, ticks in (("ingress", ingress_ticks), ("replica", replica_ticks)):
    cpu = ticks / hz
    if cpu == 0 or (target == "replica" and name == "ingress"):
        continue
    per_token_us = cpu / tokens * 1e6
    print(f"{target} path: {name} CPU {cpu:.1f} s for {tokens} tokens = {per_token_us:.1f} us/token"
          f" => {1 / (per_token_us * 1e-6 * 50):.0f} streams per core at 50 tokens/s;"
          f" tokens/s {run['output_tokens_per_s']:.0f}, ITL p50 {run['itl_ms']['p50']:.1f} ms"
          f" p99 {run['itl_ms']['p99']:.1f} ms, outcomes {run['outcomes']}")
PY
done
stop_nodes
