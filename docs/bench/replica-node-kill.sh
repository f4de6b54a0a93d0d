#!/usr/bin/env bash
# A replica node killed under load, through both data planes at once: `sluice local --nodes 3
# --haproxy-port 8080` (one control,ingress node, two replica nodes), 4 replicas of a simulated
# engine (20 tokens at 20 ms), 2 on each replica node. 4 clients stream back to back through the
# ingress (:8000) and 4 through HAProxy (:8080); after 4 s replica-1 gets kill -9, and the
# clients go on for 16 s. Prints, per data plane, how every request ended: "ok" (200 and
# [DONE]), a refusal (status, X-Serve-Reason, start of the body) or a client exception (a
# stream cut by the kill). Uses the ports of `sluice local --nodes 3`; about 70 s per jar.
# Usage: docs/bench/replica-node-kill.sh [JAR ...]   (default: deploy/target/sluice.jar)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
jars=("$@")
[ ${#jars[@]} -eq 0 ] && jars=(deploy/target/sluice.jar)
work=$(mktemp -d)
trap 'pkill -TERM -f "sluice-kill-bench" 2>/dev/null || true; rm -rf "$work"' EXIT
cat > "$work/app.yaml" <<'EOF'
applications:
  - name: llm
    llm_configs:
      - model_loading_config: {model_id: sluice-sim}
        engine_config: {ttft_ms: 0, itl_ms: 20, default_max_tokens: 20}
        deployment_config: {num_replicas: 4}
EOF
cat > "$work/load.py" <<'EOF'
import collections, http.client, json, os, signal, sys, threading, time
stop, t_kill = False, None
tally = {8000: collections.Counter(), 8080: collections.Counter()}
first = {}
def worker(port):
    while not stop:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            c.request("POST", "/v1/chat/completions", json.dumps({"model": "sluice-sim",
                "stream": True, "messages": [{"role": "user", "content": "hi"}]}),
                {"content-type": "application/json"})
            r = c.getresponse()
            body = r.read().decode(errors="replace")
            c.close()
            key = "ok" if r.status == 200 and body.rstrip().endswith("[DONE]") else \
                "%s %s %s" % (r.status, r.getheader("x-serve-reason"), body[:60].replace("\n", " "))
        except Exception as e:
            key = "client exception (stream cut): " + type(e).__name__
        tally[port][key] += 1
        if key != "ok" and t_kill:
            first.setdefault((port, key), time.time() - t_kill)
threads = [threading.Thread(target=worker, args=(p,)) for p in (8000, 8080) for _ in range(4)]
[t.start() for t in threads]
time.sleep(4)
t_kill = time.time()
os.kill(int(sys.argv[1]), signal.SIGKILL)
time.sleep(16)
stop = True
[t.join() for t in threads]
for port, name in ((8000, "ingress (splice)"), (8080, "HAProxy+Lua")):
    print("  %-17s %s" % (name, dict(tally[port])))
for (port, key), at in sorted(first.items()):
    print("    %d first '%s' at +%.1f s" % (port, key, at))
EOF
for jar in "${jars[@]}"; do
  echo "== $jar"
  java -Dsluice-kill-bench=1 -jar "$jar" local --nodes 3 --haproxy-port 8080 \
    --config "$work/app.yaml" > "$work/local.log" 2>&1 &
  for _ in $(seq 1 90); do
    grep -q "is ready" "$work/local.log" && break
    sleep 1
  done
  sleep 5  # the replicas' first load reports
  pid=$(grep -o "replica-1 (replica, pid [0-9]*" "$work/local.log" | grep -o "[0-9]*$")
  python3 "$work/load.py" "$pid"
  pkill -TERM -f "sluice-kill-bench"
  while pgrep -f "sluice-kill-bench" > /dev/null; do sleep 1; done
done
