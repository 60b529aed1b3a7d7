#!/bin/bash
# Cold start, server side (issue 16): start -> /_minilake/ready (wall, and the server's CPU from /proc, which
# stays meaningful when the machine is loaded), then the first request to each group right after ready.
# usage: bash bench/cold-start.sh [ENTRY [BASELINE_ENTRY]] [ROUNDS=5 in the environment]
# With a baseline (another build's dist/cli.js) the two are started alternately.
set -u
entry=${1:-apps/server/dist/cli.js}; base=${2:-}; rounds=${ROUNDS:-5}
port() { node -e "const s=require('net').createServer().listen(0,()=>{console.log(s.address().port);s.close()})"; }
ms() { curl -sS -o /dev/null -w '%{time_total}' "$@" | awk '{printf "%.0f", $1*1000}'; }
start() { # entry first? -> "wall_ms cpu_ms [first requests]"
  local p d t0 pid u w cpu out wh
  p=$(port); d=$(mktemp -d); u=http://127.0.0.1:$p; t0=$(date +%s%N)
  MINILAKE_DATA_DIR=$d node "$1" --port "$p" >/dev/null 2>&1 & pid=$!
  until curl -fsS -o /dev/null "$u/_minilake/ready" 2>/dev/null; do sleep 0.005; done
  w=$(( ($(date +%s%N) - t0) / 1000000 )); cpu=$(awk '{print ($14+$15)*10}' "/proc/$pid/stat")
  out="wall $w cpu $cpu"
  if [ "$2" = first ]; then
    out="$out | first: uc $(ms "$u/api/2.1/unity-catalog/catalogs")"
    wh=$(curl -sS -X POST "$u/api/2.0/sql/warehouses" -d '{"name":"w","cluster_size":"Small"}' | sed 's/.*"id":"\([^"]*\)".*/\1/')
    out="$out select1 $(ms -X POST "$u/api/2.0/sql/statements" -d "{\"warehouse_id\":\"$wh\",\"statement\":\"SELECT 1\",\"wait_timeout\":\"30s\"}")"
    out="$out secrets $(ms "$u/api/2.0/secrets/scopes/list") clusters $(ms "$u/api/2.1/clusters/list")"
    out="$out jobs $(ms "$u/api/2.2/jobs/list") workspace $(ms "$u/api/2.0/workspace/list?path=/")"
  fi
  echo "$out"; kill $pid; wait $pid 2>/dev/null; rm -rf "$d"
}
uptime
for _ in $(seq "$rounds"); do
  echo "ours     $(start "$entry" first)"
  [ -n "$base" ] && echo "baseline $(start "$base" first)"
done
