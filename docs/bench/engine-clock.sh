#!/usr/bin/env bash
# How closely the simulated engine keeps its configured ttft_ms and itl_ms: `sluice engine-sim`
# alone (no Sluice in front), warmed, then `sluice bench` at concurrency 1 and 16, 20 tokens per
# answer; TTFT and ITL as the client sees them. Several jars alternate, round by round (e.g. the
# jar before and after a change to the engine's timing).
# Usage: docs/bench/engine-clock.sh [jar...]   (env: ROUNDS=2 SETTINGS="35:20 0:20" as ttft:itl)
set -euo pipefail
jars=("$@"); [ ${#jars[@]} -gt 0 ] || jars=(deploy/target/sluice.jar)
work="$(mktemp -d)"; engine_pid=""
cleanup() { set +e; [ -n "$engine_pid" ] && kill "$engine_pid" 2>/dev/null && wait "$engine_pid" 2>/dev/null
  rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()')
for round in $(seq 1 "${ROUNDS:-2}"); do for jar in "${jars[@]}"; do
  for setting in ${SETTINGS:-35:20 0:20}; do
    ttft=${setting%%:*}; itl=${setting##*:}
    java -jar "$jar" engine-sim --port "$port" --ttft-ms "$ttft" --itl-ms "$itl" --max-tokens 20 \
      > "$work/engine.log" 2>&1 &
    engine_pid=$!
    for _ in $(seq 1 120); do curl -sf -o /dev/null "http://127.0.0.1:$port/health" && break
      sleep 0.5; done
    echo "round $round, $jar, ttft $ttft ms, itl $itl ms: warming up (2,000 requests) ..." >&2
    java -jar "$jar" bench --url "http://127.0.0.1:$port" --concurrency 16 --requests 2000 \
      --max-tokens 8 --warmup 0 > /dev/null 2>&1
    for c in 1 16; do
      java -jar "$jar" bench --url "http://127.0.0.1:$port" --concurrency "$c" \
        --requests $((c * 25)) --max-tokens 20 --warmup $((c * 2)) --json "$work/run.json" \
        > /dev/null 2>&1
      python3 - "$work/run.json" "$round" "$jar" "$ttft" "$itl" "$c" <<'PY'
import json, sys
run = json.load(open(sys.argv[1]))["results"][0]; t = run["ttft_ms"]; i = run["itl_ms"]
print(f"round {sys.argv[2]} {sys.argv[3]}: ttft {sys.argv[4]} itl {sys.argv[5]} c={sys.argv[6]:<2}"
      f"  TTFT p50 {t['p50']:6.2f} p99 {t['p99']:6.2f} ms  ITL mean {i['mean']:6.2f}"
      f" p50 {i['p50']:6.2f} p99 {i['p99']:6.2f} ms  outcomes {run['outcomes']}")
PY
    done
    kill "$engine_pid"; wait "$engine_pid" 2>/dev/null || true; engine_pid=""
  done
done; done
