#!/usr/bin/env bash
# Runs the Python e2e suite with the real databricks-sdk against the built server (pnpm build first), through
# pytest-minilake (python/pytest-minilake): its pytest11 entry point loads it, as for a user who installed it.
# The venv lives under ~/.cache/minilake and is rebuilt only when requirements.txt changes. The plugin is built
# into a folder of its own keyed by its sources (put on PYTHONPATH, where pytest finds its entry point), so
# worktrees with different plugin sources can share the venv at the same time.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(cd "$here/../../python/pytest-minilake" && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
req_hash=$(sha256sum "$here/requirements.txt" | cut -c1-12)
venv=$cache/venv-py-$req_hash
if [ ! -x "$venv/bin/pytest" ]; then
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt"
fi
src_hash=$(cd "$plugin" && find pyproject.toml src -name '*.py' -o -name '*.toml' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
site=$cache/pytest-minilake-$src_hash
if [ ! -f "$site/.complete" ]; then
  rm -rf "$site.tmp"
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --target "$site.tmp" "$plugin"
  rm -rf "$plugin/build" "$plugin"/src/*.egg-info
  touch "$site.tmp/.complete"
  rm -rf "$site" && mv "$site.tmp" "$site"
fi
export PYTHONPATH=$site${PYTHONPATH:+:$PYTHONPATH}
if [ -n "${MINILAKE_SERVER_ENTRY:-}" ] && [ -z "${PYTEST_MINILAKE_BIN:-}" ]; then
  export PYTEST_MINILAKE_BIN=$MINILAKE_SERVER_ENTRY
fi
cd "$here"
exec "$venv/bin/pytest" -q -p no:cacheprovider "$@"
