#!/usr/bin/env bash
# The plugin's own tests (tests/), run with pytester in the Python e2e venv against the built server
# (pnpm build first): bash python/pytest-minilake/run-tests.sh [pytest args]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
{ read -r venv; read -r site; } < <(bash "$repo/e2e/python/venv.sh")
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
export MINILAKE_TEST_BIN=${MINILAKE_SERVER_ENTRY:-$repo/apps/server/dist/cli.js}
cd "$here"
exec "$venv/bin/pytest" -q -p no:cacheprovider -p pytester tests "$@"
