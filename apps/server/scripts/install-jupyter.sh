#!/usr/bin/env bash
# Installs JupyterLab for MiniLake's /jupyter into $MINILAKE_CACHE/jupyter/venv (once; re-running is a no-op).
# The kernel gets databricks-sdk from this venv and PySpark + delta-spark from the Spark install
# (bash packages/engine-spark/install.sh) through a .pth file, instead of a second copy of PySpark.
set -euo pipefail
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
venv=$cache/jupyter/venv
if [ ! -x "$venv/bin/jupyter-lab" ]; then
  mkdir -p "$cache/jupyter"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check jupyterlab==4.6.6 databricks-sdk==0.162.0
fi
spark_venv=$(ls -d "$cache"/spark-*/venv 2>/dev/null | head -1 || true)
if [ -n "$spark_venv" ]; then
  site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  spark_site=$("$spark_venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  echo "$spark_site" > "$site/minilake-spark.pth"
fi
echo "$venv/bin/python"
