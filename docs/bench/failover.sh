#!/usr/bin/env bash
# Issue 11's figures: FailoverIT runs five node processes on loopback (three control+ingress
# nodes, two replica nodes; simulated engines, 20 ms per token, 25-token streams) and puts each
# fault under 32 streams running back to back: a replica node kill -9, the singletons' node
# leaving (SIGTERM), then the next singletons' node kill -9. It asserts the behaviour and writes
# what each fault cost to deploy/target/failover-figures.md, printed here. About 2 minutes.
# Usage: docs/bench/failover.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
mvn -B -q -o install -DskipTests -Dfuzz.skip=true
(cd deploy && mvn -B -o test -Dfuzz.skip=true -Dtest=FailoverIT | grep -E "Tests run|FAIL" || true)
cat deploy/target/failover-figures.md
