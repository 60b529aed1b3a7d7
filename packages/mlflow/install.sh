#!/usr/bin/env bash
# Installs the MLflow tracking server MiniLake runs behind /api/2.0/mlflow once: a venv with mlflow (the full
# package: Flask server, SQLAlchemy, alembic) and scikit-learn (the tests' models), under
# ${MINILAKE_CACHE:-~/.cache/minilake}/mlflow-<version>/venv. The versions are pinned in versions.json next to
# this script, which the server reads too, so both derive the same folder. Re-running is a no-op once the
# folder is complete. Prints the venv's python.
#
#   bash packages/mlflow/install.sh            # install (or check) the cached MLflow
#   bash packages/mlflow/install.sh --print    # print the install folder and exit
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
py=${PYTHON:-python3}
ver() { "$py" -c 'import json,sys; v=json.load(open(sys.argv[1])); print(eval(sys.argv[2], {"v": v}))' "$here/versions.json" "$1"; }
dir="$cache/mlflow-$(ver 'v["mlflow"]')"
if [ "${1:-}" = "--print" ]; then
  echo "$dir"
  exit 0
fi
# The marker holds versions.json: a changed pin list re-runs the install.
if [ -f "$dir/.complete" ] && cmp -s "$dir/.complete" "$here/versions.json"; then
  echo "$dir/venv/bin/python"
  exit 0
fi
mkdir -p "$dir"
[ -x "$dir/venv/bin/python" ] || "$py" -m venv "$dir/venv"
mapfile -t reqs < <(ver '"\n".join(v["python"])')
echo "install.sh: pip install ${reqs[*]} into $dir/venv" >&2
"$dir/venv/bin/pip" install -q --disable-pip-version-check "${reqs[@]}" >&2
"$dir/venv/bin/python" -c 'import mlflow.server, sklearn' >&2
cp "$here/versions.json" "$dir/.complete"
echo "$dir/venv/bin/python"
