#!/usr/bin/env bash
# What an idle fleet costs: a `replica` node running N simulated replicas and a `control,ingress`
# node, both on loopback, idle after start. Prints the singletons' actor messages a second (the
# dashboard feed's figures) and each node's CPU and wake-ups a second by thread group
# (/proc/<pid>/task, over 20 s each). With LOAD=c, then the same under `sluice bench` at
# concurrency c (streams of 64 tokens, itl 20 ms) spread over the replicas by round-robin.
# Usage: [LOAD=64] docs/bench/idle-fleet.sh [jar] [replicas]  (deploy/target/sluice.jar, 200)
set -euo pipefail
jar="$(realpath "${1:-deploy/target/sluice.jar}")"
replicas="${2:-200}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
api=18265
cat > "$work/app.yaml" <<YAML
applications:
  - name: idle
    llm_configs:
      - model_loading_config: {model_id: sluice-sim}
        engine_config: {type: simulated, ttft_ms: 50, itl_ms: 20}
        deployment_config: {num_replicas: $replicas}
YAML
cd "$work"
SLUICE_REPLICA_PORT_RANGE=21000-22999 SLUICE_INGRESS_PORT=-1 SLUICE_METRICS_PORT=-1 \
  java -Xmx2g -jar "$jar" node --roles replica --host 127.0.0.1 --port 25601 > replica.log 2>&1 &
replica_pid=$!
SLUICE_INGRESS_PORT=18000 SLUICE_ROUTER_PORT=18500 SLUICE_METRICS_PORT=-1 SLUICE_API_PORT=$api \
  java -Xmx2g -jar "$jar" node --roles control,ingress --host 127.0.0.1 --port 25602 \
  --seed-nodes 127.0.0.1:25601 --config app.yaml > control.log 2>&1 &
control_pid=$!
running=0
for i in $(seq 180); do
  running=$(curl -s "http://127.0.0.1:$api/api/applications" \
    | grep -o '"RUNNING":[0-9]*' | head -1 | cut -d: -f2 || true)
  [ "${running:-0}" = "$replicas" ] && break
  sleep 1
done
echo "$running of $replicas replicas RUNNING after ${i} s; idle for 30 s..." >&2
sleep 30
actors() {
  echo "actor messages a second on the control node (dashboard feed):"
  # The event stream never ends: curl stops it after 4 s (and fails, which is expected).
  { curl -s -N --max-time 4 "http://127.0.0.1:$api/api/events" || true; } \
    | grep -A1 "event: snapshot" | tail -1 | python3 -c '
import sys, json
line = sys.stdin.read().strip()
for actor in json.loads(line[len("data: "):])["actors"]:
    print("  %-16s %8.2f" % (actor["actor"], actor["messages_per_s"]))'
}
threads() {  # pid seconds -> CPU ms/s and voluntary context switches/s per thread group
  local pid=$1 secs=$2
  snap() {
    for t in /proc/"$pid"/task/*; do
      printf '%s|%s|%s|%s\n' "$(basename "$t")" "$(sed 's/[0-9-]*$//' "$t/comm" 2>/dev/null)" \
        "$(awk '{print $14+$15}' "$t/stat" 2>/dev/null)" \
        "$(awk '/^voluntary_ctxt_switches/ {print $2}' "$t/status" 2>/dev/null)"
    done
  }
  snap > before; sleep "$secs"; snap > after
  python3 - "$secs" <<'PY'
import sys, collections
secs, hz = float(sys.argv[1]), 100
def load(name):
    rows = {}
    for line in open(name):
        p = line.strip().split("|")
        if len(p) == 4 and p[2] and p[3]:
            rows[p[0]] = (p[1], int(p[2]), int(p[3]))
    return rows
a, b = load("before"), load("after")
groups = collections.defaultdict(lambda: [0, 0])
for tid, (name, cpu, switches) in b.items():
    cpu0, sw0 = (a[tid][1], a[tid][2]) if tid in a else (0, 0)
    groups[name][0] += cpu - cpu0
    groups[name][1] += switches - sw0
print("  total %.1f ms/s" % (sum(g[0] for g in groups.values()) * 1000 / hz / secs))
for name, (cpu, sw) in sorted(groups.items(), key=lambda g: -g[1][0])[:6]:
    print("  %-24s %6.1f ms/s %7.1f wake-ups/s" % (name, cpu * 1000 / hz / secs, sw / secs))
PY
}
echo "== idle"
actors
echo "replica node:"; threads "$replica_pid" 20
echo "control node:"; threads "$control_pid" 20
if [ -n "${LOAD:-}" ]; then
  echo "== under load, concurrency $LOAD"
  java -jar "$jar" bench --url http://127.0.0.1:18000 --model sluice-sim \
    --concurrency "$LOAD" --duration 45s --max-tokens 64 > bench.txt 2>&1 &
  bench_pid=$!
  sleep 10
  actors
  echo "replica node:"; threads "$replica_pid" 10
  echo "control node:"; threads "$control_pid" 10
  wait "$bench_pid"
  grep -E "requests in|tokens/s|status" bench.txt | head -4
fi
