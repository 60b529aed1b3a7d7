#!/usr/bin/env bash
# Runs the Python e2e suite with the real databricks-sdk against the built server (pnpm build first), through
# pytest-minilake (python/pytest-minilake): its pytest11 entry point loads it, as for a user who installed it.
# venv.sh makes the venv and the plugin's build.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
{ read -r venv; read -r site; } < <(bash "$here/venv.sh")
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
if [ -n "${MINILAKE_SERVER_ENTRY:-}" ] && [ -z "${PYTEST_MINILAKE_BIN:-}" ]; then
  export PYTEST_MINILAKE_BIN=$MINILAKE_SERVER_ENTRY
fi
cd "$here"
exec "$venv/bin/pytest" -q -p no:cacheprovider "$@"
