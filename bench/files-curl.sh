#!/usr/bin/env bash
# The Files API figures of ../shared/checks/perf (a 200 MB upload and download with curl, against `cp` of the
# same file), with their floors measured in the same run, rounds interleaved so load drifts hit all alike:
#   - server: the built MiniLake server (MINILAKE_SERVER_ENTRY, default apps/server/dist/cli.js)
#   - bare:   a bare node:http server that only pipes the body to a file and a file to the response
#   - curl file://: curl itself reading and writing the same files with no socket and no server, i.e. the
#     client's own cost, which no server can beat
# Also prints the server's peak RSS (VmHWM). Usage: bash bench/files-curl.sh [rounds=5] [MB=200]
set -euo pipefail
cd "$(dirname "$0")/.."
rounds=${1:-5}
mb=${2:-200}
entry=${MINILAKE_SERVER_ENTRY:-$PWD/apps/server/dist/cli.js}
work=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
free_port() { node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
# wait_up URL [curl flag]: until the URL answers (with -f: answers 2xx)
wait_up() { for _ in $(seq 1 600); do curl -sS ${2:-} -o /dev/null "$1" 2>/dev/null && return 0; sleep 0.05; done; echo "no answer from $1"; exit 1; }
ms() { local t0; t0=$(date +%s%N); "$@" >/dev/null 2>&1; echo $((($(date +%s%N) - t0) / 1000000)); }
med() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
ratio() { node -e 'console.log((+process.argv[1] / +process.argv[2]).toFixed(2))' "$1" "$2"; }

echo "$(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/'); curl $(curl --version | head -1 | cut -d' ' -f2); node $(node --version)"
port=$(free_port)
mkdir -p "$work/data"
MINILAKE_DATA_DIR="$work/data" node "$entry" --port "$port" >"$work/server.log" 2>&1 &
spid=$!
pids+=("$spid")
base="http://127.0.0.1:$port"
wait_up "$base/_minilake/ready" -f
json() { curl -fsS -o /dev/null -X POST -H 'Content-Type: application/json' -d "$2" "$base$1"; }
json /api/2.1/unity-catalog/catalogs '{"name":"bench"}'
json /api/2.1/unity-catalog/volumes '{"catalog_name":"bench","schema_name":"default","name":"v","volume_type":"MANAGED"}'
ours="$base/api/2.0/fs/files/Volumes/bench/default/v/big.bin"

cat >"$work/bare.mjs" <<'JS'
import fs from 'node:fs';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
const [port, dir] = process.argv.slice(2);
http
  .createServer(async (q, s) => {
    const f = `${dir}/big.bin`;
    try {
      if (q.method === 'PUT') {
        const tmp = `${dir}/tmp-${process.hrtime.bigint()}`;
        await pipeline(q, fs.createWriteStream(tmp, { highWaterMark: 4 << 20 }));
        fs.renameSync(tmp, f);
        s.writeHead(204).end();
      } else if (!fs.existsSync(f)) s.writeHead(404).end();
      else {
        s.writeHead(200, { 'content-length': fs.statSync(f).size, 'content-type': 'application/octet-stream' });
        await pipeline(fs.createReadStream(f, { highWaterMark: 1 << 20 }), s);
      }
    } catch {
      s.destroy();
    }
  })
  .listen(+port, '127.0.0.1');
JS
bport=$(free_port)
mkdir -p "$work/bare"
node "$work/bare.mjs" "$bport" "$work/bare" &
pids+=($!)
bare="http://127.0.0.1:$bport/big.bin"
wait_up "$bare"

src="$work/src.bin"
head -c $((mb * 1024 * 1024)) /dev/urandom >"$src"
cat "$src" >/dev/null
put() { curl -sS -T "$src" -H 'Content-Type: application/octet-stream' "$1"; }
cp_ms="" up_ms="" bup_ms="" fup_ms="" down_ms="" bdown_ms="" fdown_ms=""
for _ in $(seq "$rounds"); do
  cp_ms+=" $(ms cp "$src" "$work/cp.bin")"
  up_ms+=" $(ms put "$ours?overwrite=true")"
  bup_ms+=" $(ms put "$bare")"
  fup_ms+=" $(ms curl -sS -T "$src" "file://$work/up.bin")"
done
for _ in $(seq "$rounds"); do
  down_ms+=" $(ms curl -sS -o "$work/down.bin" "$ours")"
  cmp -s "$src" "$work/down.bin" || { echo "FAIL: the download differs from the upload"; exit 1; }
  bdown_ms+=" $(ms curl -sS -o "$work/down.bin" "$bare")"
  fdown_ms+=" $(ms curl -sS -o "$work/down.bin" "file://$src")"
done
c=$(echo "$cp_ms" | med)
row() { printf '%-28s [%s ] median %5s ms = %s of cp\n' "$1" "$2" "$(echo "$2" | med)" "$(ratio "$c" "$(echo "$2" | med)")"; }
printf '%-28s [%s ] median %5s ms\n' "cp" "$cp_ms" "$c"
row "upload: MiniLake" "$up_ms"
row "upload: bare node:http" "$bup_ms"
row "upload: curl -T file://" "$fup_ms"
row "download: MiniLake" "$down_ms"
row "download: bare node:http" "$bdown_ms"
row "download: curl file://" "$fdown_ms"
echo "MiniLake server peak RSS (VmHWM): $(awk '/VmHWM/ {printf "%.0f MB", $2 / 1024}' "/proc/$spid/status")"
echo "$(date -u +%FT%TZ) $(uptime | sed 's/.*load/load/')"
