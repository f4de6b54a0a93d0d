#!/usr/bin/env bash
# Runs the router's JMH benchmarks: ./llm-router/jmh.sh [JMH options, e.g. PolicyBenchmark -p policy=consistent-hash]
# Builds the module's test classes first, then runs JMH with the test classpath.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
echo "Building llm-router test classes..." >&2
mvn -B -q -DskipTests install -pl llm-router -am
mvn -B -q -pl llm-router dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/jmh.classpath
cp="llm-router/target/test-classes:llm-router/target/classes:$(cat llm-router/target/jmh.classpath)"
exec java -cp "$cp" org.openjdk.jmh.Main "$@"
