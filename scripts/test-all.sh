#!/usr/bin/env bash
# `pnpm test:all`, the README's test command: the Spark install, the build, the checks, then every tier.
# Each tier runs two tests at a time (vitest's maxWorkers in vitest.config.ts, pytest-xdist here): most tests
# wait on a server or a Spark process, so one at a time leaves a core idle on a 2-core CI. The Python suite's
# tests each reset the server first, so they are spread one by one (worksteal: its pipeline tests take minutes
# each); the tools' modules share a server per module, so they go whole.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/test-env.sh
pnpm test:setup
pnpm build
pnpm check
pnpm test
pnpm test:e2e
bash e2e/python/run.sh -n 2 --dist worksteal
bash e2e/mlflow/run.sh -n 2 --dist loadfile
bash e2e/tools/run.sh -n 2 --dist loadfile
