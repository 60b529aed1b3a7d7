#!/usr/bin/env bash
# Installs the Python peer (`minilake` 1.9.0, a Databricks emulator in Python) into a cached venv, for the
# side-by-side bench scenario (bench/scenarios/peer.mjs). Idempotent.
set -euo pipefail
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
venv=$cache/peer-minilake-1.9.0
[ -x "$venv/bin/minilake" ] && { echo "$venv"; exit 0; }
python3 -m venv "$venv"
"$venv/bin/pip" install -q minilake==1.9.0
echo "$venv"
