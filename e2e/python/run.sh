#!/usr/bin/env bash
# Runs the Python e2e suite with the real databricks-sdk against the built server (pnpm build first).
# The venv lives under ~/.cache/minilake and is rebuilt only when requirements.txt changes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
req_hash=$(sha256sum "$here/requirements.txt" | cut -c1-12)
venv=$cache/venv-py-$req_hash
if [ ! -x "$venv/bin/pytest" ]; then
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
fi
cd "$here"
exec "$venv/bin/pytest" -q -p no:cacheprovider "$@"
