#!/usr/bin/env bash
# What observability costs the ingress (issue 12): the same load through three ingress nodes in
# front of the same replica, in rotated order each round:
#   on      - per-request metrics and the request log (the default; the log written to a file),
#   metrics - metrics only (SLUICE_REQUEST_LOG=off),
#   off     - neither (SLUICE_INGRESS_METRICS=off, SLUICE_REQUEST_LOG=off);
# measured as
#   1. CPU per delivered token at itl 20 ms with 1,000 concurrent streams (the stream-cost.sh
#      setting), from the ingress process's own CPU time, and
#   2. tokens/s and CPU per token at itl 0 with 64 concurrent streams.
# Nodes: a control,replica node (the singletons and the replica) and the three ingress-only
# nodes, so every ingress reaches the router the same way; the load generator is a separate
# process. Each setting starts with discarded warm-up runs per ingress (JIT; WARMUPS, default 2).
# Usage: docs/bench/observe-cost.sh [jar] [rounds] [settings: itl20,itl0]
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
rounds="${2:-3}"
settings="${3:-itl20,itl0}"
warmups="${WARMUPS:-2}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
variants=(on metrics off)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
cpu_ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
hz=$(getconf CLK_TCK)
declare -A port pid

start_nodes() { # itl_ms tokens
  local replica=$(free_port) remoting=$(free_port)
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
  for v in "${variants[@]}"; do
    port[$v]=$(free_port)
    local metrics=on log=on
    [ "$v" = metrics ] && log=off
    [ "$v" = off ] && { metrics=off; log=off; }
    SLUICE_INGRESS_PORT=${port[$v]} SLUICE_METRICS_PORT=0 SLUICE_INGRESS_METRICS=$metrics \
      SLUICE_REQUEST_LOG=$log java -Xmx2g -jar "$jar" node --roles ingress --host 127.0.0.1 \
      --port 0 --seed-nodes "127.0.0.1:$remoting" > "$work/$v.log" 2>&1 &
    pid[$v]=$!
  done
  for v in "${variants[@]}"; do
    for i in $(seq 1 120); do
      curl -sf -o /dev/null "http://127.0.0.1:${port[$v]}/v1/chat/completions" \
        -H 'content-type: application/json' \
        -d '{"messages":[{"role":"user","content":"x"}],"max_tokens":1}' && break
      [ "$i" = 120 ] && { echo "nodes not ready" >&2; exit 1; }
      sleep 0.5
    done
  done
}
stop_nodes() {
  kill "$replica_pid" "${pid[@]}"
  wait "$replica_pid" "${pid[@]}" 2>/dev/null || true
}

bench() { # port concurrency requests tokens json
  java -jar "$jar" bench --url "http://127.0.0.1:$1" --concurrency "$2" --requests "$3" \
    --max-tokens "$4" --prompt-tokens 16 --warmup 0 --json "$5" > "$work/run.out" 2>&1
}

run() { # setting variant concurrency requests tokens
  local t0 t1
  t0=$(cpu_ticks "${pid[$2]}")
  bench "${port[$2]}" "$3" "$4" "$5" "$work/run.json"
  t1=$(cpu_ticks "${pid[$2]}")
  python3 - "$work/run.json" "$1 $2" $(( t1 - t0 )) "$hz" <<'PY' | tee -a "$work/results.tsv"
import json, sys
run = json.load(open(sys.argv[1]))["results"][0]
label, ticks, hz = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
tokens = run["output_tokens"]
print(f"{label}\t{run['output_tokens_per_s']:.0f}\t{ticks / hz / tokens * 1e6:.2f}\t{run['outcomes']}")
PY
}

measure() { # setting concurrency requests tokens
  for v in "${variants[@]}"; do
    for w in $(seq 1 "$warmups"); do bench "${port[$v]}" "$2" "$3" "$4" /dev/null; done
  done
  for r in $(seq 0 $(( rounds - 1 ))); do
    for k in 0 1 2; do
      run "$1" "${variants[$(( (r + k) % 3 ))]}" "$2" "$3" "$4"
    done
  done
}

echo "# setting, ingress, tokens/s, ingress CPU us/token, outcomes"
if [[ ",$settings," == *",itl20,"* ]]; then
  start_nodes 20 250
  measure itl20-c1000 1000 4000 250
  stop_nodes
fi
if [[ ",$settings," == *",itl0,"* ]]; then
  start_nodes 0 250
  measure itl0-c64 64 6000 250
  stop_nodes
fi
echo "# request-log lines written by the 'on' ingress: $(grep -c 'sluice.requests' "$work/on.log" || true)"
python3 - "$work/results.tsv" <<'PY'
import sys, collections, statistics
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    label, tps, us, _ = line.rstrip("\n").split("\t")
    setting, variant = label.rsplit(" ", 1)
    rows[setting][variant].append((float(tps), float(us)))
for setting, by in rows.items():
    mean = {v: (statistics.mean(t for t, _ in by[v]), statistics.mean(u for _, u in by[v]))
            for v in by}
    off_tps, off_us = mean["off"]
    for v in ("on", "metrics"):
        tps, us = mean[v]
        print(f"{setting} {v}/off: tokens/s {tps / off_tps:.3f} ({tps:.0f} vs {off_tps:.0f}); "
              f"CPU per token {us / off_us:.3f} ({us:.2f} vs {off_us:.2f} us)")
PY
