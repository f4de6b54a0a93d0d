#!/usr/bin/env bash
# The data path to an external engine (issue 14, item 2): `sluice engine-sim` run by a replica as
# its `openai-process` engine (a separate server process, as vLLM would be), measured with
# `sluice bench compare` side by side, alternating rounds, at itl 0 and itl 20 ms:
#   limit   - the engine's own port, hit directly (no Sluice);
#   direct  - Sluice's ingress (splice), which forwards to the engine's port;
#   relayed - an ingress on the relayed path: router, replica actor, the replica's endpoint
#             streaming from the engine's /v1/completions;
#   haproxy - a plain HAProxy (no Lua, no routing) straight to the engine's port, when `haproxy`
#             is on the PATH (HAPROXY=off leaves it out): what any proxy in between costs here.
# Goals: direct's TTFT p50 within 0.5 ms of the limit's, its tokens/s within 5 %.
# PIN=on gives the proxies their own core, as beside a GPU engine: the node (its splice and
# relayed path) and HAProxy on CPU 1, the engine and the load generator on CPU 0. Unpinned (the
# default), all of them share the machine's cores, and at itl 0 every cycle a proxy spends is one
# the engine (a CPU process here) does not get.
# Usage: docs/bench/engine-path.sh [jar]   (env: ITLS="0 20" CONCURRENCY=1,64 REQUESTS=2000
#        JIT_WARM=4000 and JIT_WARM_ONE=8000 (unmeasured requests per target at concurrency 128,
#        then 1, before the rounds)
#        TOKENS=64 WARMUP=200 ROUNDS=4 OUT=docs/bench; at itl 20 a request takes TOKENS x 20 ms,
#        so give that run fewer REQUESTS and TOKENS)
# CAPTURE=file.pcap records the measured rounds on loopback (tcpdump, the engine's, the splice's
# and plain HAProxy's ports; one file per itl: file-itl<N>.pcap) and prints where each request's
# time to first token went: docs/bench/turnaround.py.
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
concurrency="${CONCURRENCY:-1,64}"
requests="${REQUESTS:-2000}"
tokens="${TOKENS:-64}"
warmup="${WARMUP:-200}"
rounds="${ROUNDS:-4}"
out="${OUT:-docs/bench}"
mkdir -p "$out"
java_bin="$(command -v java)"
proxy_cpu=(); client_cpu=()
case "${PIN:-off}" in
  on)
    command -v taskset > /dev/null || { echo "PIN=on needs taskset (util-linux)" >&2; exit 2; }
    [ "$(nproc --all)" -ge 2 ] || { echo "PIN=on needs CPUs 0 and 1; this machine has one" >&2
      exit 2; }
    proxy_cpu=(taskset -c 1); client_cpu=(taskset -c 0) ;;
  off) ;;
  *) echo "PIN: expected on or off, got '$PIN'" >&2; exit 2 ;;
esac
work="$(mktemp -d)"
node_pid=""
haproxy_pid=""
# Every step on its own: under set -e, a killed process's non-zero wait at the end of an &&
# list would end the trap there and leave the next process running.
cleanup() { set +e
  [ -n "${capture_pid:-}" ] && kill "$capture_pid" 2>/dev/null
  [ -n "$node_pid" ] && kill "$node_pid" 2>/dev/null && wait "$node_pid" 2>/dev/null
  [ -n "$haproxy_pid" ] && kill "$haproxy_pid" 2>/dev/null && wait "$haproxy_pid" 2>/dev/null
  rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

for itl in ${ITLS:-0 20}; do
  engine=$(free_port); ingress=$(free_port); relayed=$(free_port); api=$(free_port)
  remoting=$(free_port)
  cat > "$work/app.yaml" <<YAML
applications:
  - name: bench
    llm_configs:
      - model_loading_config: {model_id: sluice-sim}
        engine_config:
          type: openai-process
          port: $engine
          health_path: /-/healthz
          startup_timeout_s: 120
          command: ['$java_bin', -Xmx1g, -cp, '$jar', dev.sluice.deploy.SluiceCli, engine-sim,
                    --host, '{host}', --port, '{port}', --model, '{model}', --ttft-ms, '0',
                    --itl-ms, '$itl', --max-tokens, '$tokens', --max-num-seqs, '4096',
                    --max-ongoing-requests, '4096']
        deployment_config: {num_replicas: 1, max_ongoing_requests: 4096}
YAML
  echo "itl $itl ms: starting a node whose replica runs engine-sim on :$engine ..." >&2
  SLUICE_METRICS_PORT=0 "${proxy_cpu[@]}" "$java_bin" -Xmx1g -jar "$jar" local \
    --config "$work/app.yaml" --port "$ingress" --relayed-port "$relayed" --api-port "$api" \
    --remoting-port "$remoting" --router-port -1 > "$work/node-$itl.log" 2>&1 &
  node_pid=$!
  for _ in $(seq 1 240); do
    if curl -sf -o /dev/null -X POST "http://127.0.0.1:$ingress/v1/chat/completions" \
        -H 'content-type: application/json' \
        -d '{"messages":[{"role":"user","content":"ready?"}],"max_tokens":1}'; then
      break
    fi
    kill -0 "$node_pid" 2>/dev/null || { cat "$work/node-$itl.log" >&2; exit 1; }
    sleep 0.5
  done
  if [ ${#proxy_cpu[@]} -gt 0 ]; then  # the engine inherited the node's CPU: move it to CPU 0
    engine_pid=$(pgrep -f "^[^ ]*java .*engine-sim.* --port $engine( |$)")
    taskset -a -p -c 0 "$engine_pid" > /dev/null
  fi
  targets="http://127.0.0.1:$engine,http://127.0.0.1:$ingress,http://127.0.0.1:$relayed"
  fourth=()
  if [ "${HAPROXY:-auto}" != off ] && command -v haproxy > /dev/null; then
    plain=$(free_port)
    printf '%s\n' global '  maxconn 8000' defaults '  mode http' '  timeout connect 5s' \
      '  timeout client 600s' '  timeout server 600s' '  option http-no-delay' \
      frontend\ plain \
      "  bind 127.0.0.1:$plain" '  default_backend engine' backend\ engine \
      "  server e1 127.0.0.1:$engine" > "$work/plain.cfg"
    "${proxy_cpu[@]}" haproxy -db -f "$work/plain.cfg" > "$work/haproxy-$itl.log" 2>&1 &
    haproxy_pid=$!
    targets="$targets,http://127.0.0.1:$plain"
    fourth=(--haproxy --haproxy-label "haproxy (plain)")
  fi
  # The JIT: a few thousand requests at high concurrency first, so that the rounds measure
  # compiled code (the engine and the node are both JVMs); JIT_WARM=0 skips it.
  # One stream takes other branches than many (the router's mailbox sees one message at a
  # time, say), and the JIT needs ~10,000 of them to settle: JIT_WARM_ONE more at concurrency 1.
  for url in ${targets//,/ }; do
    [ "${JIT_WARM:-4000}" -gt 0 ] || break
    echo "warming $url up (${JIT_WARM:-4000} requests at c=128, ${JIT_WARM_ONE:-8000} at c=1;" \
      "unmeasured) ..." >&2
    "${client_cpu[@]}" "$java_bin" -jar "$jar" bench --url "$url" --concurrency 128 \
      --requests "${JIT_WARM:-4000}" --max-tokens "$tokens" --warmup 0 --duration 120s \
      > /dev/null 2>&1 || true
    "${client_cpu[@]}" "$java_bin" -jar "$jar" bench --url "$url" --concurrency 1 \
      --requests "${JIT_WARM_ONE:-8000}" --max-tokens "$tokens" --warmup 0 --duration 60s \
      > /dev/null 2>&1 || true
  done
  capture_pid=""
  if [ -n "${CAPTURE:-}" ]; then
    command -v tcpdump > /dev/null || { echo "CAPTURE needs tcpdump" >&2; exit 2; }
    pcap="${CAPTURE%.pcap}-itl$itl.pcap"
    tcpdump -i lo -n -s 0 -U -w "$pcap" \
      "tcp port $engine or tcp port $ingress or tcp port ${plain:-$engine}" 2> /dev/null &
    capture_pid=$!
    sleep 1
  fi
  "${client_cpu[@]}" "$java_bin" -jar "$jar" bench compare \
    --targets "$targets" "${fourth[@]}" \
    --concurrency "$concurrency" --requests "$requests" --max-tokens "$tokens" \
    --warmup "$warmup" --rounds "$rounds" --json "$out/engine-path-itl$itl.json" \
    --chart "$out/engine-path-itl$itl.png"
  if [ -n "$capture_pid" ]; then
    kill -INT "$capture_pid"; wait "$capture_pid" 2>/dev/null || true
    python3 "$(dirname "$0")/turnaround.py" "$pcap" "$engine" "$ingress" "${plain:-0}"
  fi
  kill "$node_pid"; wait "$node_pid" 2>/dev/null || true; node_pid=""
  if [ -n "$haproxy_pid" ]; then kill "$haproxy_pid"; wait "$haproxy_pid" 2>/dev/null || true; fi
  haproxy_pid=""
done
