#!/usr/bin/env bash
# CPU per delivered token of three data planes in front of the same simulated replica (issue 13),
# at a realistic pace: itl 20 ms (50 tokens/s per stream), 1,000 concurrent streams of 250 tokens
# (the docs/bench/stream-cost.sh setting):
#   splice       - Sluice's ingress (direct path); its node also runs the router;
#   haproxy+lua  - HAProxy run by the same node (sluice.haproxy) with the generated config: the
#                  Lua action asks the router's POST /internal/route per request;
#   haproxy      - a plain HAProxy straight to the replica (no Lua, no router: the floor), with
#                  option http-no-delay as any token stream needs (HAProxy's default holds
#                  small writes back for up to ~200 ms and sends fewer, bigger segments).
# Targets run in alternating order, ROUNDS times (default 2), after WARM (default 1) unmeasured
# warm-up runs of each (the JIT: about 8 are needed before the node's compiler threads fall
# below 0.5 us/token). TOKENS (default 250) sets the answer length and REQUESTS (4000) the run's
# size: comparing two lengths splits the per-request cost from the per-token one. For haproxy+lua the
# router's share (CPU the ingress node spent answering /internal/route) is printed beside
# HAProxy's own, and for the splice the node's CPU by thread group (selector threads, Pekko's
# dispatchers, the JIT compiler...). Each run's line is over the whole run (its ramp and tail
# too); the "steady" line under it is a WINDOW-second (default 10) window from SETTLE seconds
# (default 6) after the run's start, tokens counted at the replica
# (sluice_replica_generated_tokens_total): CPU per token with all streams running, with the
# share of the JVM's compiler threads (the JIT still warming) given apart. TARGETS (default
# "splice lua plain") picks the targets: "splice plain" alternates the node and the floor only.
# `sluice bench compare --haproxy --plain-haproxy --no-relayed --itl-ms 20 --concurrency 1000`
# gives the whole-round figure by process in one command; this script adds the steady windows,
# the thread groups and a node that serves only the target being measured.
# Usage: docs/bench/haproxy-cost.sh [jar]   (needs haproxy 2.6+ with Lua; curl; python3)
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
rounds="${ROUNDS:-2}"
tokens="${TOKENS:-250}"
requests="${REQUESTS:-4000}"
haproxy_bin="$(command -v haproxy || echo /usr/sbin/haproxy)"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; sleep 1; rm -rf "$work"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }
ticks() { local sum=0; for p in "$@"; do sum=$(( sum + $(awk '{print $14+$15}' "/proc/$p/stat") )); done; echo $sum; }
jit_ticks() { # CPU ticks of the JIT compiler threads (C1, C2) of the given processes
  local sum=0 t
  for p in "$@"; do
    for t in /proc/"$p"/task/*; do
      case "$(cat "$t/comm" 2>/dev/null)" in
        C1*|C2*) sum=$(( sum + $(awk '{print $14+$15}' "$t/stat" 2>/dev/null || echo 0) )) ;;
      esac
    done
  done
  echo $sum
}
hz=$(getconf CLK_TCK)

replica=$(free_port); ingress=$(free_port); remoting=$(free_port); router=$(free_port)
replica_metrics=$(free_port)
lua_port=$(free_port); plain_port=$(free_port)
cat > "$work/app.yaml" <<YAML
applications:
  - name: cost
    llm_configs:
      - model_loading_config: {model_id: sluice-sim}
        engine_config: {type: simulated, ttft_ms: 0, itl_ms: 20, default_max_tokens: $tokens, max_num_seqs: 8192}
        deployment_config: {num_replicas: 1, max_ongoing_requests: 8192}
YAML
SLUICE_REPLICA_PORT_RANGE=$replica SLUICE_INGRESS_PORT=-1 SLUICE_METRICS_PORT=$replica_metrics \
  java -Xmx2g -jar "$jar" node --roles replica --host 127.0.0.1 --port "$remoting" \
  > "$work/replica.log" 2>&1 &
replica_pid=$!
SLUICE_INGRESS_PORT=$ingress SLUICE_ROUTER_PORT=$router SLUICE_METRICS_PORT=0 \
  SLUICE_HAPROXY_PORT=$lua_port SLUICE_HAPROXY_DIR="$work/hx" SLUICE_HAPROXY_BINARY="$haproxy_bin" \
  java -Xmx2g -jar "$jar" node --roles control,ingress --host 127.0.0.1 --port 0 \
  --seed-nodes "127.0.0.1:$remoting" --config "$work/app.yaml" > "$work/ingress.log" 2>&1 &
ingress_pid=$!
cat > "$work/plain.cfg" <<CFG
global
  maxconn 8000
defaults
  mode http
  timeout connect 5s
  timeout client 600s
  timeout server 600s
  option http-no-delay
frontend plain
  bind 127.0.0.1:$plain_port
  default_backend replica
backend replica
  server r1 127.0.0.1:$replica
CFG
"$haproxy_bin" -db -f "$work/plain.cfg" > "$work/plain.log" 2>&1 &
plain_pid=$!

ready() { curl -sf -o /dev/null "$1/v1/chat/completions" -H 'content-type: application/json' \
  -d '{"messages":[{"role":"user","content":"x"}],"max_tokens":1}'; }
for url in "http://127.0.0.1:$ingress" "http://127.0.0.1:$lua_port" "http://127.0.0.1:$plain_port"; do
  for i in $(seq 1 120); do ready "$url" && break; sleep 0.5; done
  ready "$url" || { echo "not ready: $url" >&2; for f in "$work"/*.log; do echo "== $f"; tail -n 8 "$f"; done >&2; exit 1; }
done
sleep 2  # let HAProxy's reload for the replica set finish: no reload during a measurement
lua_pids=$(pgrep -f "$work/hx/master.sock" | tr '\n' ' ')
echo "setup: replica pid $replica_pid, ingress node pid $ingress_pid, HAProxy+Lua pids $lua_pids, plain HAProxy pid $plain_pid" >&2

warm() { # url
  for _ in $(seq 1 "${WARM:-1}"); do
    java -jar "$jar" bench --url "$1" --concurrency 1000 --requests 2000 --max-tokens "$tokens" \
      --prompt-tokens 16 --warmup 0 > /dev/null 2>&1 || true
  done
}
threads() { # pid: "thread-name ticks" per thread, numbers at the end of names dropped
  for t in /proc/"$1"/task/*; do
    echo "$(sed 's/[-#]*[0-9]*$//; s/ /_/g' "$t/comm" 2>/dev/null) $(awk '{print $14+$15}' "$t/stat" 2>/dev/null)"
  done
}
generated() { # tokens the replica has generated so far
  curl -sf "http://127.0.0.1:$replica_metrics/metrics" \
    | awk '/^sluice_replica_generated_tokens_total/ {sum += $NF} END {printf "%d", sum}'
}
run() { # name url pids-to-charge...
  local name=$1 url=$2; shift 2
  local t0 n0; t0=$(ticks "$@"); n0=$(ticks "$ingress_pid"); threads "$ingress_pid" > "$work/t0"
  java -jar "$jar" bench --url "$url" --concurrency 1000 --requests "$requests" --max-tokens "$tokens" \
    --prompt-tokens 16 --warmup 0 --json "$work/$name.json" > "$work/$name.out" 2>&1 &
  local load=$!
  sleep "${SETTLE:-6}"
  local w0 g0 wn0 j0; w0=$(ticks "$@"); wn0=$(ticks "$ingress_pid"); g0=$(generated)
  j0=$(jit_ticks "$@")
  sleep "${WINDOW:-10}"
  local w1 g1 wn1 j1; w1=$(ticks "$@"); wn1=$(ticks "$ingress_pid"); g1=$(generated)
  j1=$(jit_ticks "$@")
  wait "$load"
  local t1 n1; t1=$(ticks "$@"); n1=$(ticks "$ingress_pid"); threads "$ingress_pid" > "$work/t1"
  python3 -c "import sys; t, n, g, hz, j = map(int, sys.argv[1:6]); us = lambda x: x / hz / g * 1e6; print(f'  steady: {us(t):6.2f} us/token (JIT {us(j):.2f}) over {g} tokens in ${WINDOW:-10} s (the Sluice node meanwhile {us(n):.2f})')" \
    $(( w1 - w0 )) $(( wn1 - wn0 )) $(( g1 - g0 )) "$hz" $(( j1 - j0 )) > "$work/steady"
  python3 - "$work/$name.json" "$name" $(( t1 - t0 )) $(( n1 - n0 )) "$hz" "$work" <<'PY'
import collections, json, sys
run = json.load(open(sys.argv[1]))["results"][0]
name, ticks, node_ticks, hz = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
tokens = run["output_tokens"]
us = ticks / hz / tokens * 1e6
extra = ""
if name == "haproxy+lua":
    extra = f" + router (ingress node) {node_ticks / hz / tokens * 1e6:.2f} us/token"
elif name == "haproxy":
    extra = f" (the Sluice node meanwhile, idle: {node_ticks / hz / tokens * 1e6:.2f} us/token)"
print(f"{name:12s} {us:6.2f} us/token{extra}; tokens/s {run['output_tokens_per_s']:.0f},"
      f" TTFT p50 {run['ttft_ms']['p50']:.1f} ms p99 {run['ttft_ms']['p99']:.1f},"
      f" ITL p99 {run['itl_ms']['p99']:.1f} ms, outcomes {run['outcomes']}")
if name == "splice":  # where the node's CPU went, by thread group
    def load(path):
        out = collections.Counter()
        for line in open(path):
            parts = line.split()
            if len(parts) == 2:
                out[parts[0]] += int(parts[1])
        return out
    before, after = load(sys.argv[6] + "/t0"), load(sys.argv[6] + "/t1")
    groups = sorted(((after[k] - before[k]) / hz / tokens * 1e6, k) for k in after)[::-1]
    print("             by thread: " + ", ".join(f"{k} {us:.2f}" for us, k in groups[:6] if us > 0))
PY
  cat "$work/steady"
}
targets="${TARGETS:-splice lua plain}"
url_of() { case $1 in splice) echo "http://127.0.0.1:$ingress" ;; lua) echo "http://127.0.0.1:$lua_port" ;;
  plain) echo "http://127.0.0.1:$plain_port" ;; *) echo "unknown target: $1" >&2; exit 2 ;; esac; }
for target in $targets; do url_of "$target" > /dev/null; done
echo "warm-up (unmeasured)" >&2
for target in $targets; do
  warm "$(url_of "$target")"
done
echo "tokens per answer: $tokens" >&2
for round in $(seq 1 "$rounds"); do
  echo "round $round/$rounds" >&2
  order="$targets"
  if (( round % 2 == 0 )); then order="$(echo "$targets" | tr ' ' '\n' | tac | tr '\n' ' ')"; fi
  for target in $order; do
    case $target in
      splice) run splice "$(url_of splice)" "$ingress_pid" ;;
      lua) run haproxy+lua "$(url_of lua)" $lua_pids ;;
      plain) run haproxy "$(url_of plain)" "$plain_pid" ;;
    esac
  done
done
kill "$plain_pid" "$ingress_pid" "$replica_pid"; wait 2>/dev/null || true
