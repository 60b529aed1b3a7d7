#!/usr/bin/env bash
# MiniLakeContainer's tests against the real Docker daemon and image (minilake:slim unless
# MINILAKE_TEST_IMAGE names another; bash docker/build.sh --slim makes it). The venv (testcontainers,
# databricks-sdk, pytest from requirements-test.txt) is cached under ~/.cache/minilake.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
venv=$cache/venv-testcontainers-$(sha256sum "$here/requirements-test.txt" | cut -c1-12)
if [ ! -x "$venv/bin/pytest" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements-test.txt"
fi
# No image registry here: Ryuk (testcontainers' reaper, an image pulled from a registry) stays off; the
# tests remove their containers themselves.
export TESTCONTAINERS_RYUK_DISABLED=${TESTCONTAINERS_RYUK_DISABLED:-true}
export PYTHONPATH=$here/src${PYTHONPATH:+:$PYTHONPATH}
cd "$here"
exec "$venv/bin/pytest" -q -p no:cacheprovider tests "$@"
