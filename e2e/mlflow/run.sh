#!/usr/bin/env bash
# Runs the MLflow e2e suite: the real `mlflow` client (MLFLOW_TRACKING_URI=databricks) against the built
# server (pnpm build first). The client is the MLflow install the server runs (packages/mlflow/install.sh:
# mlflow, scikit-learn, databricks-sdk), seen from a small pytest venv through a .pth file, so nothing is
# installed twice; the venv is cached under ~/.cache/minilake and rebuilt only when requirements.txt changes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
mlflow_python=$(bash "$root/packages/mlflow/install.sh")
req_hash=$(cat "$here/requirements.txt" "$root/packages/mlflow/versions.json" | sha256sum | cut -c1-12)
venv=$cache/venv-mlflow-e2e-$req_hash
if [ ! -x "$venv/bin/pytest" ]; then
  mkdir -p "$cache"
  rm -rf "$venv"
  "$mlflow_python" -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  "$mlflow_python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])' > "$site/minilake-mlflow.pth"
fi
cd "$here"
exec "$venv/bin/pytest" -q -p no:cacheprovider "$@"
