#!/usr/bin/env bash
# Workspace import of one large file three ways, with the server's peak RSS (VmHWM) after each: JSON with base64
# `content` (what `databricks workspace import --file` sends), multipart form data (the Python SDK's
# `workspace.upload`) and workspace-files import-file (a raw body); then each is exported back and compared.
# Usage: bash bench/workspace-import.sh [MB=200]   (MINILAKE_SERVER_ENTRY: default apps/server/dist/cli.js)
set -euo pipefail
cd "$(dirname "$0")/.."
mb=${1:-200}
entry=${MINILAKE_SERVER_ENTRY:-$PWD/apps/server/dist/cli.js}
w=$(mktemp -d)
pid=
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  rm -rf "$w"
}
trap cleanup EXIT
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
mkdir -p "$w/data"
MINILAKE_DATA_DIR="$w/data" node "$entry" --port "$port" >"$w/server.log" 2>&1 &
pid=$!
u="http://127.0.0.1:$port"
for _ in $(seq 1 600); do curl -fsS -o /dev/null "$u/_minilake/ready" 2>/dev/null && break; sleep 0.05; done
hwm() { awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/$pid/status"; }
ms() { local t0; t0=$(date +%s%N); "$@" >/dev/null; echo "$((($(date +%s%N) - t0) / 1000000)) ms"; }
echo "$(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/'); server idle VmHWM $(hwm)"
me=$(curl -fsS "$u/api/2.0/preview/scim/v2/Me" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).userName))')
head -c $((mb * 1024 * 1024)) /dev/urandom >"$w/f.bin"
{
  printf '{"path":"/Users/%s/json.bin","format":"AUTO","overwrite":true,"content":"' "$me"
  base64 -w0 "$w/f.bin"
  printf '"}'
} >"$w/body.json"
post() { curl -fsS -o /dev/null "$@"; }
echo "json base64 import:  $(ms post -H 'Content-Type: application/json' --data-binary "@$w/body.json" "$u/api/2.0/workspace/import"), VmHWM $(hwm)"
echo "multipart import:    $(ms post -F "path=/Users/$me/form.bin" -F format=AUTO -F overwrite=true -F "content=@$w/f.bin" "$u/api/2.0/workspace/import"), VmHWM $(hwm)"
echo "import-file (raw):   $(ms post --data-binary "@$w/f.bin" "$u/api/2.0/workspace-files/import-file/Users/$me/raw.bin?overwrite=true"), VmHWM $(hwm)"
for n in json form raw; do
  curl -fsS -o "$w/back.bin" "$u/api/2.0/workspace/export?path=/Users/$me/$n.bin&direct_download=true"
  cmp -s "$w/f.bin" "$w/back.bin" || { echo "FAIL: $n.bin exports different bytes"; exit 1; }
done
echo "all three export the same bytes"
