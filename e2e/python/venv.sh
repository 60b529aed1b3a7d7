#!/usr/bin/env bash
# Makes (once) and prints the Python e2e venv and the pytest-minilake build for it, as two lines: the venv's
# folder, then the folder to put on PYTHONPATH. The venv lives under ~/.cache/minilake and is rebuilt only when
# requirements.txt changes. The plugin (python/pytest-minilake) is built into a folder of its own keyed by its
# sources, where pytest finds its entry point, so worktrees with different plugin sources share the venv.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
plugin=$(cd "$here/../../python/pytest-minilake" && pwd)
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
req_hash=$(sha256sum "$here/requirements.txt" | cut -c1-12)
venv=$cache/venv-py-$req_hash
if [ ! -x "$venv/bin/pytest" ]; then
  mkdir -p "$cache"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --disable-pip-version-check -r "$here/requirements.txt" >&2
fi
src_hash=$(cd "$plugin" && find pyproject.toml src -name '*.py' -o -name '*.toml' | LC_ALL=C sort | xargs cat | sha256sum | cut -c1-12)
site=$cache/pytest-minilake-$src_hash
if [ ! -f "$site/.complete" ]; then
  rm -rf "$site.tmp.$$"
  # pip builds the wheel in an isolated environment (setuptools from the package index, then cached).
  "$venv/bin/pip" install -q --disable-pip-version-check --no-deps --target "$site.tmp.$$" "$plugin" >&2
  rm -rf "$plugin/build" "$plugin"/src/*.egg-info
  touch "$site.tmp.$$/.complete"
  rm -rf "$site" && mv "$site.tmp.$$" "$site"
fi
echo "$venv"
echo "$site"
