#!/usr/bin/env bash
# The `SELECT 1` figure of ../shared/checks/perf alone, repeated: one keep-alive client (bench/load1.mjs, the
# check's load shape), `GET /api/2.1/unity-catalog/catalogs/pc` 500 warm-up + 3000 timed, then
# `SELECT 1` through `POST /api/2.0/sql/statements` (wait_timeout 30s) 300 warm-up + 2000 timed, p50s and their
# ratio, plus the server's CPU per request (utime + stime from /proc, all threads), which moves far less
# with the machine's load than a p50 does. Servers: MINILAKE_SERVER_ENTRY (default apps/server/dist/cli.js);
# set BASE_ENTRY to another build's cli.js to measure it in the same run, rounds interleaved.
# Usage: bash bench/select1.sh [rounds=5]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
entry=${MINILAKE_SERVER_ENTRY:-$PWD/apps/server/dist/cli.js}
load=bench/load1.mjs
pids=()
dirs=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for d in "${dirs[@]}"; do rm -rf "$d"; done
}
trap cleanup EXIT
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
field() { node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }

one() { # label entry
  local port data pid url wh body a b c d uc sel
  port=$(free_port)
  data=$(mktemp -d)
  dirs+=("$data")
  MINILAKE_DATA_DIR=$data node "$2" --port "$port" >/dev/null 2>&1 &
  pid=$!
  pids+=("$pid")
  url="http://127.0.0.1:$port"
  for _ in $(seq 1 600); do curl -fsS -o /dev/null "$url/_minilake/ready" 2>/dev/null && break; sleep 0.05; done
  h=(-H 'Authorization: Bearer dev' -H 'Content-Type: application/json')
  wh=$(curl -sS "${h[@]}" -d '{"name":"perf","cluster_size":"Small"}' "$url/api/2.0/sql/warehouses" | field id)
  curl -sS "${h[@]}" -d '{"name":"pc"}' "$url/api/2.1/unity-catalog/catalogs" >/dev/null
  body="{\"warehouse_id\":\"$wh\",\"statement\":\"SELECT 1\",\"wait_timeout\":\"30s\"}"
  node "$load" "$url/api/2.1/unity-catalog/catalogs/pc" 500 1 GET >/dev/null
  a=$(cpu "$pid")
  uc=$(node "$load" "$url/api/2.1/unity-catalog/catalogs/pc" 3000 1 GET | field p50)
  b=$(cpu "$pid")
  node "$load" "$url/api/2.0/sql/statements" 300 1 POST "$body" >/dev/null
  c=$(cpu "$pid")
  sel=$(node "$load" "$url/api/2.0/sql/statements" 2000 1 POST "$body" | field p50)
  d=$(cpu "$pid")
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  printf '%-6s UC GET p50 %s ms (%s us CPU/req) | SELECT 1 p50 %s ms (%s us CPU/req) | %sx | %s\n' "$1" "$uc" \
    $(((b - a) * 10000 / 3000)) "$sel" $(((d - c) * 10000 / 2000)) \
    "$(node -e 'console.log((+process.argv[1] / +process.argv[2]).toFixed(2))' "$sel" "$uc")" \
    "$(uptime | sed 's/.*load/load/')"
}

for _ in $(seq 1 "$rounds"); do
  one this "$entry"
  if [ -n "${BASE_ENTRY:-}" ]; then one base "$BASE_ENTRY"; fi
done
