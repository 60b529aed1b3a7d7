#!/usr/bin/env bash
# Runs the suites that drive the real Databricks CLI and Terraform (e2e/cli, e2e/terraform, e2e/seeds) against
# the built server (pnpm build first). Builds the tools once per machine (e2e/tools/build.sh, cached under
# ~/.cache/minilake) and reuses the Python suite's venv. Arguments go to pytest (default: all three suites).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
e2e=$(dirname "$here")
tools=$(bash "$here/build.sh" | tail -n 1)
# shellcheck source=versions.sh
. "$here/versions.sh"
export MINILAKE_DATABRICKS_CLI="$tools/databricks-$CLI_VERSION"
export MINILAKE_TERRAFORM="$tools/terraform-$TF_VERSION" MINILAKE_TERRAFORM_VERSION="$TF_VERSION"
export MINILAKE_TFRC="$tools/tfrc-$PROVIDER_VERSION"
# pytest runs from e2e/python: make path arguments absolute first; with none, run all three suites.
args=() paths=0
for a in "$@"; do
  if [ -e "${a%%::*}" ]; then args+=("$(realpath "${a%%::*}")${a#"${a%%::*}"}") paths=1; else args+=("$a"); fi
done
[ $paths = 1 ] || args+=("$e2e/cli" "$e2e/terraform" "$e2e/seeds")
set -- "${args[@]}"
exec bash "$e2e/python/run.sh" -c "$e2e/tools/pytest.ini" --rootdir "$e2e" "$@"
