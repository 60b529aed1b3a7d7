#!/usr/bin/env bash
# uv, which the CLI's default-python template builds its wheel with (`uv build --wheel` at `bundle deploy`),
# installed once from its PyPI wheel into $MINILAKE_CACHE/uv-<version>. Prints the folder holding `uv`.
set -euo pipefail
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
version=0.13.9
dir="$cache/uv-$version"
if [ ! -x "$dir/bin/uv" ]; then
  python3 -m venv "$dir.tmp"
  "$dir.tmp/bin/pip" install -q --disable-pip-version-check "uv==$version" >&2
  rm -rf "$dir" && mv "$dir.tmp" "$dir"
  # the venv was made at .tmp: its scripts name that path; uv itself is a binary and does not care
fi
echo "$dir/bin"
