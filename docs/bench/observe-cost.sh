#!/usr/bin/env bash
# What observability costs the ingress (issue 12): the same load through two ingress nodes in
# front of the same replica, one with its per-request metrics and request log on (the default;
# the log written to a file), one with both off (SLUICE_INGRESS_METRICS=off,
# SLUICE_REQUEST_LOG=off), in alternating runs:
#   1. CPU per delivered token at itl 20 ms with 1,000 concurrent streams (the stream-cost.sh
#      setting), from the ingress process's own CPU time;
#   2. tokens/s at itl 0 with 64 concurrent streams.
# Nodes: a control,replica node (the singletons and the replica) and the two ingress-only nodes,
# so both ingresses reach the router the same way. The load generator is a separate process.
# Each setting starts with one discarded warm-up run per ingress (JIT), then alternates.
# Usage: docs/bench/observe-cost.sh [jar] [rounds]
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
rounds="${2:-3}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)

start_nodes() { # itl_ms tokens
  local replica=$(free_port) remoting=$(free_port)
  on_port=$(free_port); off_port=$(free_port)
  cat > "$work/app.yaml" <<YAML
applications:
  - name: cost
    llm_configs:
      - model_loading_config: {model_id: sluice-sim}
        engine_config: {type: simulated, ttft_ms: 0, itl_ms: $1, default_max_tokens: $2, max_num_seqs: 8192}
        deployment_config: {num_replicas: 1, max_ongoing_requests: 8192}
YAML
  SLUICE_REPLICA_PORT_RANGE=$replica SLUICE_INGRESS_PORT=-1 SLUICE_ROUTER_PORT=-1 SLUICE_API_PORT=-1 \
    SLUICE_METRICS_PORT=0 java -Xmx2g -jar "$jar" node --roles control,replica --host 127.0.0.1 \
    --port "$remoting" --config "$work/app.yaml" > "$work/replica.log" 2>&1 &
  replica_pid=$!
  SLUICE_INGRESS_PORT=$on_port SLUICE_METRICS_PORT=0 java -Xmx2g -jar "$jar" node --roles ingress \
    --host 127.0.0.1 --port 0 --seed-nodes "127.0.0.1:$remoting" > "$work/on.log" 2>&1 &
  on_pid=$!
  SLUICE_INGRESS_PORT=$off_port SLUICE_METRICS_PORT=0 SLUICE_INGRESS_METRICS=off SLUICE_REQUEST_LOG=off \
    java -Xmx2g -jar "$jar" node --roles ingress --host 127.0.0.1 --port 0 \
    --seed-nodes "127.0.0.1:$remoting" > "$work/off.log" 2>&1 &
  off_pid=$!
  for port in $on_port $off_port; do
    for i in $(seq 1 120); do
      curl -sf -o /dev/null "http://127.0.0.1:$port/v1/chat/completions" -H 'content-type: application/json' \
        -d '{"messages":[{"role":"user","content":"x"}],"max_tokens":1}' && break
      [ "$i" = 120 ] && { echo "nodes not ready" >&2; exit 1; }
      sleep 0.5
    done
  done
}
stop_nodes() { kill "$replica_pid" "$on_pid" "$off_pid"; wait "$replica_pid" "$on_pid" "$off_pid" 2>/dev/null || true; }

run() { # label pid port concurrency requests tokens
  local t0 t1
  t0=$(cpu_ticks "$2")
  java -jar "$jar" bench --url "http://127.0.0.1:$3" --concurrency "$4" --requests "$5" \
    --max-tokens "$6" --prompt-tokens 16 --warmup 0 --json "$work/run.json" > "$work/run.out" 2>&1
  t1=$(cpu_ticks "$2")
  python3 - "$work/run.json" "$1" $(( t1 - t0 )) "$hz" <<'PY' | tee -a "$work/results.tsv"
import json, sys
run = json.load(open(sys.argv[1]))["results"][0]
label, ticks, hz = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
tokens = run["output_tokens"]
print(f"{label}\t{run['output_tokens_per_s']:.0f}\t{ticks / hz / tokens * 1e6:.2f}\t{run['outcomes']}")
PY
}

warm_up() { # port concurrency requests tokens
  java -jar "$jar" bench --url "http://127.0.0.1:$1" --concurrency "$2" --requests "$3" \
    --max-tokens "$4" --prompt-tokens 16 --warmup 0 > /dev/null 2>&1
}

echo "# setting, observability, tokens/s, ingress CPU us/token, outcomes"
start_nodes 20 250
warm_up "$on_port" 1000 2000 250; warm_up "$off_port" 1000 2000 250
for r in $(seq 1 "$rounds"); do
  run "itl20-c1000 on" "$on_pid" "$on_port" 1000 4000 250
  run "itl20-c1000 off" "$off_pid" "$off_port" 1000 4000 250
done
stop_nodes
start_nodes 0 250
warm_up "$on_port" 64 3000 250; warm_up "$off_port" 64 3000 250
for r in $(seq 1 "$rounds"); do
  run "itl0-c64 on" "$on_pid" "$on_port" 64 6000 250
  run "itl0-c64 off" "$off_pid" "$off_port" 64 6000 250
done
stop_nodes
echo "# request-log lines written by the 'on' ingress: $(grep -c 'sluice.requests' "$work/on.log" || true)"
python3 - "$work/results.tsv" <<'PY'
import sys, collections
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    label, tps, us, _ = line.rstrip("\n").split("\t")
    setting, mode = label.rsplit(" ", 1)
    rows[setting][mode].append((float(tps), float(us)))
for setting, modes in rows.items():
    on, off = modes["on"], modes["off"]
    tps_on = sum(t for t, _ in on) / len(on); tps_off = sum(t for t, _ in off) / len(off)
    us_on = sum(u for _, u in on) / len(on); us_off = sum(u for _, u in off) / len(off)
    print(f"{setting}: tokens/s on/off {tps_on / tps_off:.3f} ({tps_on:.0f} vs {tps_off:.0f}); "
          f"CPU per token on/off {us_on / us_off:.3f} ({us_on:.2f} vs {us_off:.2f} us)")
PY
