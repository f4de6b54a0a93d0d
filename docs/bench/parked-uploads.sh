#!/usr/bin/env bash
# The upload attack of issue 9: 40 clients each announce an 8 MiB body, send all of it but the
# last byte, and park. Measures the ingress's heap (after a full GC) before and while they are
# parked, how many uploads it refused (503 over its buffer budget), whether a victim request is
# still served, and whether the node survived. One `sluice local` JVM with a given heap.
# Usage: docs/bench/parked-uploads.sh [jar] [heap, default 512m]
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
heap="${2:-512m}"
work="$(mktemp -d)"
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
port=18700
heap_used_kb() { jcmd "$1" GC.run >/dev/null 2>&1 || return 0; sleep 1; jcmd "$1" GC.heap_info | awk '/used/ {for(i=1;i<=NF;i++) if ($i=="used") {gsub("K","",$(i+1)); print $(i+1); exit}}'; }

cat > "$work/app.yaml" <<YAML
applications:
  - name: upload
    llm_configs:
      - model_loading_config: {model_id: sluice-sim}
        engine_config: {type: simulated, ttft_ms: 0, itl_ms: 0, default_max_tokens: 4}
        deployment_config: {num_replicas: 1}
YAML
SLUICE_REPLICA_PORT_RANGE=18710-18719 java -Xmx"$heap" -jar "$jar" local \
  --config "$work/app.yaml" --port $port --router-port -1 --remoting-port 18701 \
  > "$work/node.log" 2>&1 &
pid=$!
for i in $(seq 1 120); do grep -q "Sluice local is ready" "$work/node.log" && break; sleep 0.5; done
idle=$(heap_used_kb $pid)

python3 - "$port" > "$work/attack.out" <<'PY' &
import socket, sys, time
port = int(sys.argv[1]); size = 8 * 1024 * 1024; chunk = b"x" * (256 * 1024)
socks, parked, refused, stalled = [], 0, 0, 0
for i in range(40):
    s = socket.create_connection(("127.0.0.1", port))
    socks.append(s)
    s.settimeout(5)
    try:
        s.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % size)
        sent = 0
        while sent < size - 1:
            n = min(len(chunk), size - 1 - sent); s.sendall(chunk[:n]); sent += n
    except socket.timeout:
        stalled += 1  # the ingress stopped reading: nobody is serving this port
        continue
    except OSError:
        refused += 1
        continue
    s.settimeout(0.3)
    try:
        if s.recv(12).startswith(b"HTTP/1.1 503"): refused += 1
        else: parked += 1
    except socket.timeout:
        parked += 1
    except OSError:
        refused += 1
print("parked %d, refused %d, stalled %d" % (parked, refused, stalled), flush=True)
time.sleep(30)
PY
attack=$!
for i in $(seq 1 600); do grep -q refused "$work/attack.out" && break; sleep 0.5; done
parked=$(heap_used_kb $pid)
victim=$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "http://127.0.0.1:$port/v1/chat/completions" \
  -H 'content-type: application/json' -d '{"messages":[{"role":"user","content":"victim"}],"max_tokens":2}' || echo none)
alive=$(kill -0 $pid 2>/dev/null && echo yes || echo no)
oom=$(grep -c OutOfMemoryError "$work/node.log" || true)
echo "heap -Xmx$heap: idle ${idle:-?} KiB, with 40 parked 8 MiB uploads ${parked:-?} KiB;" \
  "uploads: $(cat "$work/attack.out" | tr -d '\n'); victim HTTP ${victim}; node alive: ${alive};" \
  "OutOfMemoryError lines in its log: ${oom}"
kill $attack 2>/dev/null || true
kill $pid 2>/dev/null || true
wait $pid 2>/dev/null || true
