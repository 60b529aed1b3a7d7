#!/usr/bin/env bash
# `pnpm test:all`, the README's test command: the Spark install, the build, the checks, then every tier.
# Each tier runs two tests at a time (vitest's maxWorkers in vitest.config.ts, pytest-xdist here): most tests
# wait on a server or a Spark process, so one at a time leaves a core idle on a 2-core CI. The Python suite's
# tests each reset the server first, so they are spread one by one (worksteal: its pipeline tests take minutes
# each); the tools' modules share a server per module, so they go whole.
set -euo pipefail
cd "$(dirname "$0")/.."
# The tests start hundreds of short-lived Spark JVMs (spark-submit, PySpark sessions, Spark Connect servers),
# each on a few rows. C1 alone and the serial collector spend about a third less CPU on them than the JVM's
# defaults on 2 cores (packages/delta/test/dml.test.ts: 98 s → 78 s, 157 s → 110 s on a slower day); the few
# long Spark runs pay for it (a pipeline test with several updates: 248 s → 292 s). Spark's launcher adds
# SPARK_SUBMIT_OPTS to every driver it starts, MiniLake's included; what the tests check does not depend on the JIT.
export SPARK_SUBMIT_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC${SPARK_SUBMIT_OPTS:+ $SPARK_SUBMIT_OPTS}"
pnpm test:setup
pnpm build
pnpm check
pnpm test
pnpm test:e2e
bash e2e/python/run.sh -n 2 --dist worksteal
bash e2e/mlflow/run.sh -n 2 --dist loadfile
bash e2e/tools/run.sh -n 2 --dist loadfile
