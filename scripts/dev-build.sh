#!/usr/bin/env bash
# Builds a private copy of the server bundle under apps/server/.build-<name>/ and prints its entry.
# Use with MINILAKE_SERVER_ENTRY=<entry> for the e2e suites, so parallel work never races on dist/.
set -euo pipefail
name=${1:?usage: scripts/dev-build.sh NAME}
cd "$(dirname "$0")/../apps/server"
MINILAKE_OUT_DIR=".build-$name" pnpm exec tsup >/dev/null
echo "$PWD/.build-$name/cli.js"
