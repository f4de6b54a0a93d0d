#!/usr/bin/env bash
# A self-run HAProxy (sluice haproxy render) in front of a cluster of two control nodes and one
# replica node, and the younger control node killed (kill -9) under load. Twice per round: with
# --router naming that node's router endpoint alone, and naming it first and the other control
# node's second. Per run: sluice bench's outcomes through HAProxy.
# Usage: docs/bench/haproxy-routers.sh [jar]   (env: ROUNDS=1 CONCURRENCY=8 REQUESTS=3000
#        TOKENS=16 ITL=5 KILL_AFTER=5; needs haproxy, curl and jq)
set -euo pipefail
jar="${1:-deploy/target/sluice.jar}"
work="$(mktemp -d)"
pids=()
cleanup() { set +e; [ ${#pids[@]} -gt 0 ] && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null
  rm -rf "$work"; }
trap cleanup EXIT
a=18960 b=18961 c=18962 api=18963 router_a=18964 router_b=18965 haproxy=18966

cat > "$work/app.yaml" <<YAML
applications:
  - name: llm
    llm_configs:
      - model_loading_config: {model_id: sim}
        engine_config: {type: simulated, ttft_ms: 0, itl_ms: ${ITL:-5}, default_max_tokens: 16}
        deployment_config: {num_replicas: 2, max_ongoing_requests: 64}
YAML

node() { # name, then sluice node's arguments
  local name="$1"; shift
  SLUICE_INGRESS_PORT=-1 SLUICE_METRICS_PORT=-1 SLUICE_REPLICA_PORT_RANGE=18970-18979 \
    java -Xmx512m -jar "$jar" node --host 127.0.0.1 "$@" > "$work/$name.log" 2>&1 &
  pids+=($!)
}

until_ok() { # what, seconds, command...
  local what="$1" end=$(( $(date +%s) + $2 )); shift 2
  until "$@" > /dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || { echo "$what: not within the time" >&2
      tail -5 "$work"/*.log >&2; exit 1; }
    sleep 0.5
  done
}

serving() {
  curl -sf "http://127.0.0.1:$api/api/cluster" | jq -e '[.members[] | select(.status == "Up")]
    | length == 3' && curl -sf "http://127.0.0.1:$api/api/applications" \
    | jq -e '.applications[0].deployments[0].current_replicas == 2'
}

completion() {
  [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$haproxy/v1/completions" \
    -H 'content-type: application/json' -d '{"prompt":"hi","max_tokens":1}')" = 200 ]
}

run() { # routers: "b" or "b,a"
  pids=()
  node control-a --roles control --port $a --api-port $api --router-port $router_a \
    --config "$work/app.yaml"
  node control-b --roles control --port $b --api-port -1 --router-port $router_b \
    --seed-nodes 127.0.0.1:$a
  node replica --roles replica --port $c --api-port -1 --router-port -1 \
    --seed-nodes 127.0.0.1:$a
  local killed=${pids[1]}
  until_ok "three nodes up, two replicas running" 120 serving
  local routers="127.0.0.1:$router_b"
  [ "$1" = "b,a" ] && routers="$routers,127.0.0.1:$router_a"
  java -jar "$jar" haproxy render --address "http://127.0.0.1:$api" --router "$routers" \
    --bind "127.0.0.1:$haproxy" --lua "$work/route.lua" > "$work/haproxy.cfg"
  haproxy -db -f "$work/haproxy.cfg" > "$work/haproxy.log" 2>&1 &
  pids+=($!)
  until_ok "HAProxy serving" 30 completion
  echo "--router $routers: load, control node b killed after ${KILL_AFTER:-5} s ..." >&2
  java -jar "$jar" bench --url "http://127.0.0.1:$haproxy" --concurrency "${CONCURRENCY:-8}" \
    --requests "${REQUESTS:-3000}" --max-tokens "${TOKENS:-16}" --warmup 0 \
    --json "$work/bench.json" > /dev/null &
  local load=$!
  sleep "${KILL_AFTER:-5}"
  kill -9 "$killed"
  wait "$killed" 2> /dev/null || true
  wait "$load"
  jq -r --arg routers "$1" '.results[0] | "\($routers)\t\(.requests)\t\(.ok)\t\(.outcomes)"' \
    "$work/bench.json"
  kill "${pids[@]}" 2> /dev/null || true
  wait "${pids[@]}" 2> /dev/null || true
  pids=()
}

printf -- '--router\trequests\t200s\toutcomes\n'
for round in $(seq 1 "${ROUNDS:-1}"); do
  run b
  run b,a
done
