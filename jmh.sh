#!/usr/bin/env bash
# Runs a module's JMH benchmarks (they live in its test sources, package ...bench):
#   ./jmh.sh llm-router                      # every benchmark of the module
#   ./jmh.sh llm-router PolicyBenchmark -p policy=consistent-hash
#   ./jmh.sh capacity-queue
# Builds the module's test classes first, then runs JMH on the test classpath.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
module="${1:?usage: ./jmh.sh MODULE [JMH options]}"
shift
cd "$root"
echo "Building $module test classes..." >&2
mvn -B -q -DskipTests install -pl "$module" -am
mvn -B -q -pl "$module" dependency:build-classpath -Dmdep.includeScope=test \
  -Dmdep.outputFile=target/jmh.classpath
cp="$module/target/test-classes:$module/target/classes:$(cat "$module/target/jmh.classpath")"
exec java -cp "$cp" org.openjdk.jmh.Main "$@"
