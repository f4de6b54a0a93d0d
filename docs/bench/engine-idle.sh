#!/usr/bin/env bash
# The simulated engine's time to first token by how long it had been idle, for one or more
# jars side by side (alternating, ROUNDS times): `sluice engine-sim` (ttft 0, itl 20 ms) alone
# on CPU 0, one client on CPU 1 (docs/bench/idle-ttft.py), after WARM unmeasured requests (the
# JIT of a Pekko HTTP server needs tens of thousands to settle). Prints TTFT p50 in µs per gap:
# the client's wait after the previous answer (one token per request), and "open" rows where the
# previous request's stream was still open (two tokens: the engine idles one itl with it).
# Usage: docs/bench/engine-idle.sh [jar ...]   (env: ROUNDS=2 WARM=30000 COUNT=200
#        GAPS=0,200,500,1000,3000,20000 PORT=21001)
set -euo pipefail
jars=("$@"); [ ${#jars[@]} -gt 0 ] || jars=(deploy/target/sluice.jar)
here="$(cd "$(dirname "$0")" && pwd)"
port="${PORT:-21001}"
gaps="${GAPS:-0,200,500,1000,3000,20000}"
engine_cpu=(); client_cpu=()
if [ "$(nproc --all)" -ge 2 ] && command -v taskset > /dev/null; then
  engine_cpu=(taskset -c 0); client_cpu=(taskset -c 1)
fi
engine_pid=""
log="$(mktemp)"
cleanup() { set +e; [ -n "$engine_pid" ] && kill "$engine_pid" 2>/dev/null && wait "$engine_pid" 2>/dev/null
  rm -f "$log"; }
trap cleanup EXIT
for round in $(seq 1 "${ROUNDS:-2}"); do
  for jar in "${jars[@]}"; do
    "${engine_cpu[@]}" java -Xmx1g -cp "$jar" dev.sluice.deploy.SluiceCli engine-sim \
      --port "$port" --ttft-ms 0 --itl-ms 20 --max-tokens 16 > "$log" 2>&1 &
    engine_pid=$!
    for _ in $(seq 1 120); do
      curl -sf -o /dev/null "http://127.0.0.1:$port/-/healthz" && break
      kill -0 "$engine_pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
      sleep 0.5
    done
    echo "round $round, $jar: warming up (${WARM:-30000} requests) ..." >&2
    "${client_cpu[@]}" python3 "$here/idle-ttft.py" "$port" 0 "${WARM:-30000}" 1 0 > /dev/null
    echo "round $round, $jar: measuring ..." >&2
    printf '%-40s idle   %s\n' "$jar" \
      "$("${client_cpu[@]}" python3 "$here/idle-ttft.py" "$port" "$gaps" "${COUNT:-200}" 1)"
    printf '%-40s open   %s\n' "$jar" \
      "$("${client_cpu[@]}" python3 "$here/idle-ttft.py" "$port" 0,1000 "${COUNT:-200}" 2)"
    kill "$engine_pid"; wait "$engine_pid" 2>/dev/null || true; engine_pid=""
  done
done
