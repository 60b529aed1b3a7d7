#!/usr/bin/env bash
# Databricks Connect against the built server (pnpm build first): databricks-connect 15.4 and 16.1, each in a
# venv of its own under $MINILAKE_CACHE (rebuilt only when its requirements file changes), driven by pytest
# from the Python suite's venv (e2e/python/run.sh). Arguments go to pytest (default: this folder).
# Databricks Connect 16.2 and later need Python 3.12: a 3.12 venv is made for the newest one when `python3.12`
# exists (MINILAKE_PYTHON312 names another), and its tests skip saying so when there is none.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
venv_for() { # REQUIREMENTS PYTHON -> prints the venv's python
  local req=$1 py=$2 hash venv
  hash=$(sha256sum "$req" | cut -c1-12)
  venv=$cache/dbconnect-$hash
  if [ ! -x "$venv/bin/python" ] || [ ! -f "$venv/.complete" ]; then
    rm -rf "$venv"
    "$py" -m venv "$venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
    touch "$venv/.complete"
  fi
  echo "$venv/bin/python"
}
export MINILAKE_DBCONNECT_16=$(venv_for "$here/requirements-16.1.txt" python3)
export MINILAKE_DBCONNECT_15=$(venv_for "$here/requirements-15.4.txt" python3)
py312=${MINILAKE_PYTHON312:-$(command -v python3.12 2>/dev/null || true)}
if [ -n "$py312" ] && "$py312" -c 'import sys; assert sys.version_info[:2] == (3, 12)' 2>/dev/null; then
  export MINILAKE_DBCONNECT_NEWEST=$(venv_for "$here/requirements-newest.txt" "$py312")
  export MINILAKE_PYTHON312=$py312  # the Python workers of the newest client's cluster (its UDFs)
fi
# pytest runs from e2e/python: path arguments are made absolute; with none, this folder.
args=() paths=0
for a in "$@"; do
  if [ -e "${a%%::*}" ]; then args+=("$(realpath "${a%%::*}")${a#"${a%%::*}"}") paths=1; else args+=("$a"); fi
done
[ $paths = 1 ] || args+=("$here")
exec bash "$here/../python/run.sh" -c "$here/pytest.ini" --rootdir "$here" "${args[@]}"
