#!/usr/bin/env bash
# Runs every example of the docs against a real MiniLake per page (docs/conftest.py): bash docs/test.sh [page.md...]
# Needs pnpm build and pnpm install (the TypeScript examples import from docs/node_modules); uses the Python e2e
# venv (e2e/python/venv.sh) with pytest-minilake. Pages whose tools are missing are skipped, saying which
# (CI provides all of them: the CLI, Terraform, dbt, Spark, Docker with minilake:slim, Chromium).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(dirname "$here")
{ read -r venv; read -r site; } < <(bash "$repo/e2e/python/venv.sh")
export PYTHONPATH=$site:$repo/python/testcontainers-minilake/src${PYTHONPATH:+:$PYTHONPATH}
export PYTEST_MINILAKE_BIN=${PYTEST_MINILAKE_BIN:-${MINILAKE_SERVER_ENTRY:-$repo/apps/server/dist/cli.js}}
cd "$here"
args=()
for a in "$@"; do args+=("$(basename "$a")"); done
exec "$venv/bin/pytest" -q -p no:cacheprovider "${args[@]}"
