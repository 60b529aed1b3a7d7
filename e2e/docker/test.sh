#!/usr/bin/env bash
# End-to-end test of the MiniLake Docker image: build it, run it, talk to it with curl. It tests the slim image
# (what every image does: REST, SQL, health, non-root, persistence, --network none, compose); the full image's
# Spark side is e2e/docker/full.sh's.
#
#   bash e2e/docker/test.sh
#
# Starts dockerd (safe flags, data root under $MINILAKE_CACHE/docker) when none answers, and stops it again
# only if it started it. Builds the image with docker/build.sh --slim (needs `pnpm build` first, or
# MINILAKE_SERVER_DIST=<dir of a server bundle>; MINILAKE_SKIP_BUILD=1 tests an existing minilake:slim;
# MINILAKE_IMAGE_REF=minilake:local tests the full image instead).
# Containers use --network host (the daemon runs with --bridge=none) on free ports. Every wait is bounded.
# Prints "N passed, N failed" last and exits non-zero on any failure.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
export MINILAKE_CACHE=${MINILAKE_CACHE:-$HOME/.cache/minilake}
image=${MINILAKE_IMAGE_REF:-${MINILAKE_IMAGE:-minilake}:slim}
prefix="ml-e2e-$$"
passed=0
failed=0
t0=$(date +%s)
tmp=$(mktemp -d)

say() { echo "[e2e/docker +$(($(date +%s) - t0))s] $*"; }
ok() {
  passed=$((passed + 1))
  say "ok   $1"
}
bad() {
  failed=$((failed + 1))
  say "FAIL $1${2:+: $2}"
}
check() { # check NAME EXPECTED ACTUAL
  if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected '$2', got '$3'"; fi
}
finish() {
  for c in $(docker ps -aq --filter "name=^$prefix-" 2>/dev/null); do docker rm -f -v "$c" >/dev/null 2>&1; done
  for v in $(docker volume ls -q --filter "name=^$prefix-" 2>/dev/null); do docker volume rm "$v" >/dev/null 2>&1; done
  rm -rf "$tmp"
  if [ "${MINILAKE_DOCKERD_STARTED:-}" = 1 ]; then bash "$repo/docker/dockerd.sh" stop; fi
  say "total $(($(date +%s) - t0))s"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ] && [ "$passed" -gt 0 ]
}
trap 'finish; exit $?' EXIT
trap 'exit 130' INT TERM

free_port() {
  node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"
}
# api METHOD PORT PATH [JSON] -> prints "<status> <body>"
api() {
  local out status
  out=$(curl -s -m 40 -o "$tmp/body" -w '%{http_code}' -X "$1" -H 'Content-Type: application/json' \
    ${4:+--data "$4"} "http://127.0.0.1:$2$3")
  status=$?
  [ $status = 0 ] || out="curl-exit-$status"
  echo "$out $(cat "$tmp/body" 2>/dev/null)"
}
json() { # json FIELD_EXPR  (reads a JSON body on stdin, prints a JS expression over it as `b`)
  node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{let b;try{b=JSON.parse(s)}catch{b={}};const v=($1);console.log(typeof v==='string'?v:JSON.stringify(v))})"
}
wait_ready() { # wait_ready PORT CONTAINER -> 0 when /_minilake/ready answers 200 within 60 s
  for _ in $(seq 1 120); do
    [ "$(curl -s -m 2 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/_minilake/ready")" = 200 ] && return 0
    [ "$(docker inspect -f '{{.State.Running}}' "$2" 2>/dev/null)" = true ] || break
    sleep 0.5
  done
  docker logs "$2" 2>&1 | tail -n 20
  return 1
}
# sql PORT WAREHOUSE STATEMENT -> prints "<state> <data_array JSON>"
sql() {
  local body
  body=$(node -e 'console.log(JSON.stringify({warehouse_id:process.argv[1],statement:process.argv[2],wait_timeout:"30s"}))' "$2" "$3")
  api POST "$1" /api/2.0/sql/statements "$body" | cut -d' ' -f2- |
    json '(b.status&&b.status.state)+" "+JSON.stringify((b.result&&b.result.data_array)||(b.status&&b.status.error)||null)'
}

# -- daemon and image ---------------------------------------------------------------------------------
command -v docker >/dev/null || {
  bad "docker client" "not installed (apt-get install -y docker.io)"
  exit 1
}
unset MINILAKE_DOCKERD_STARTED # only a daemon started below is ours to stop
if ! env_out=$(bash docker/dockerd.sh start); then
  bad "docker daemon" "could not start dockerd"
  exit 1
fi
eval "$env_out"
say "docker daemon: $(docker version -f '{{.Server.Version}}' 2>/dev/null)${MINILAKE_DOCKERD_STARTED:+ (started by this test)}"
if [ "${MINILAKE_SKIP_BUILD:-}" = 1 ]; then
  say "using the existing $image"
elif timeout 900 bash docker/build.sh "$([ "${image##*:}" = slim ] && echo --slim || echo --full)" >/dev/null; then
  ok "image builds ($(($(date +%s) - t0))s so far)"
else
  bad "image builds"
  exit 1
fi

# -- 1. full MiniLake: catalog + SQL, health check ----------------------------------------------------
p1=$(free_port)
c1="$prefix-full"
docker run -d --name "$c1" --network host -e MINILAKE_PORT="$p1" --health-interval=1s "$image" >/dev/null
if wait_ready "$p1" "$c1"; then ok "full server ready on :$p1"; else bad "full server ready on :$p1"; fi
check "liveness /_minilake/health" '200 {"status":"ok"}' "$(api GET "$p1" /_minilake/health)"
cat=e2edocker$$
wh=$(api POST "$p1" /api/2.0/sql/warehouses '{"name":"e2e","cluster_size":"Small"}' | cut -d' ' -f2- | json 'b.id')
[ -n "$wh" ] && [ "$wh" != undefined ] && ok "create warehouse $wh" || bad "create warehouse"
check "create catalog" "200 $cat" "$(api POST "$p1" /api/2.1/unity-catalog/catalogs "{\"name\":\"$cat\"}" |
  { read -r s b; echo "$s $(echo "$b" | json 'b.name')"; })"
check "sql CREATE SCHEMA" "SUCCEEDED" "$(sql "$p1" "$wh" "CREATE SCHEMA $cat.s" | cut -d' ' -f1)"
check "sql CREATE TABLE" "SUCCEEDED" "$(sql "$p1" "$wh" "CREATE TABLE $cat.s.t (id INT, name STRING)" | cut -d' ' -f1)"
check "sql INSERT" "SUCCEEDED" "$(sql "$p1" "$wh" "INSERT INTO $cat.s.t VALUES (1, 'ana'), (2, 'bo')" | cut -d' ' -f1)"
check "sql SELECT" 'SUCCEEDED [["1","ana"],["2","bo"]]' "$(sql "$p1" "$wh" "SELECT id, name FROM $cat.s.t ORDER BY id")"
check "table visible in Unity Catalog" "200 $cat.s.t" "$(api GET "$p1" "/api/2.1/unity-catalog/tables/$cat.s.t" |
  { read -r s b; echo "$s $(echo "$b" | json 'b.full_name')"; })"
health=""
for _ in $(seq 1 60); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$c1" 2>/dev/null)
  [ "$health" = healthy ] && break
  sleep 0.5
done
check "HEALTHCHECK reports healthy" healthy "$health"
check "runs as the non-root user" "10001" "$(docker exec "$c1" node -e 'console.log(process.getuid())' 2>&1)"
docker rm -f -v "$c1" >/dev/null

# -- 2. selective services ----------------------------------------------------------------------------
p2=$(free_port)
c2="$prefix-secrets"
docker run -d --name "$c2" --network host -e MINILAKE_PORT="$p2" -e MINILAKE_SERVICES=secrets "$image" >/dev/null
if wait_ready "$p2" "$c2"; then ok "secrets-only server ready"; else bad "secrets-only server ready"; fi
check "MINILAKE_SERVICES=secrets: unity-catalog answers 501" 501 \
  "$(api GET "$p2" /api/2.1/unity-catalog/catalogs | cut -d' ' -f1)"
check "MINILAKE_SERVICES=secrets: secrets answer 200" 200 "$(api GET "$p2" /api/2.0/secrets/scopes/list | cut -d' ' -f1)"
docker rm -f -v "$c2" >/dev/null

# -- 3. persistence across docker kill + restart, bind-mounted /data ----------------------------------
p3=$(free_port)
c3="$prefix-persist"
mkdir -p "$tmp/data"
chown 10001:10001 "$tmp/data" 2>/dev/null || chmod 0777 "$tmp/data"
docker run -d --name "$c3" --network host -e MINILAKE_PORT="$p3" -e MINILAKE_PERSIST=1 \
  -e MINILAKE_SERVICES=unity-catalog,sql -v "$tmp/data:/data" "$image" >/dev/null
if wait_ready "$p3" "$c3"; then ok "persistent server ready (unity-catalog,sql)"; else bad "persistent server ready"; fi
check "persistent server: secrets are off (501)" 501 "$(api GET "$p3" /api/2.0/secrets/scopes/list | cut -d' ' -f1)"
wh3=$(api POST "$p3" /api/2.0/sql/warehouses '{"name":"e2e","cluster_size":"Small"}' | cut -d' ' -f2- | json 'b.id')
api POST "$p3" /api/2.1/unity-catalog/catalogs "{\"name\":\"$cat\"}" >/dev/null
sql "$p3" "$wh3" "CREATE SCHEMA $cat.s" >/dev/null
sql "$p3" "$wh3" "CREATE TABLE $cat.s.t (id INT, name STRING)" >/dev/null
check "persistent: INSERT acknowledged" SUCCEEDED "$(sql "$p3" "$wh3" "INSERT INTO $cat.s.t VALUES (7, 'kept')" | cut -d' ' -f1)"
docker kill "$c3" >/dev/null
check "docker kill stops it" false "$(docker inspect -f '{{.State.Running}}' "$c3")"
docker start "$c3" >/dev/null
if wait_ready "$p3" "$c3"; then ok "restarted after SIGKILL"; else bad "restarted after SIGKILL"; fi
check "catalog survived" "200 $cat" "$(api GET "$p3" "/api/2.1/unity-catalog/catalogs/$cat" |
  { read -r s b; echo "$s $(echo "$b" | json 'b.name')"; })"
check "rows survived" 'SUCCEEDED [["7","kept"]]' "$(sql "$p3" "$wh3" "SELECT id, name FROM $cat.s.t")"
[ -n "$(ls -A "$tmp/data")" ] && ok "state written to the bind mount ($(ls "$tmp/data" | tr '\n' ' '))" ||
  bad "state written to the bind mount"
docker rm -f -v "$c3" >/dev/null

# -- 4. no network at all: the image downloads nothing at run time -----------------------------------
c4="$prefix-offline"
docker run -d --name "$c4" --network none "$image" >/dev/null
offline=""
for _ in $(seq 1 60); do
  offline=$(docker exec "$c4" node -e "fetch('http://127.0.0.1:8000/_minilake/ready').then(r=>console.log(r.status),()=>console.log('down'))" 2>/dev/null)
  [ "$offline" = 200 ] && break
  [ "$(docker inspect -f '{{.State.Running}}' "$c4" 2>/dev/null)" = true ] || break
  sleep 0.5
done
check "ready with --network none on the default port 8000" 200 "$offline"
docker rm -f -v "$c4" >/dev/null

# -- 5. the compose example (when a compose tool is installed) ---------------------------------------
if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null; then
  compose=(docker-compose)
else
  compose=()
  say "skip compose: neither 'docker compose' nor 'docker-compose' is installed"
fi
if [ ${#compose[@]} -gt 0 ]; then
  p5=$(free_port)
  p6=$(free_port)
  proj="$prefix-compose"
  cid() { "${compose[@]}" -p "$proj" -f docker/compose.yaml ps -q "$1" 2>/dev/null; }
  export MINILAKE_PORT=$p5 MINILAKE_UC_SQL_PORT=$p6 MINILAKE_COMPOSE_IMAGE=$image
  if timeout 120 "${compose[@]}" -p "$proj" -f docker/compose.yaml up -d >"$tmp/compose.log" 2>&1; then
    ok "compose up (${compose[*]})"
  else
    bad "compose up" "$(tail -n 5 "$tmp/compose.log")"
  fi
  if wait_ready "$p5" "$(cid minilake)"; then
    ok "compose: full server ready"
  else bad "compose: full server ready"; fi
  if wait_ready "$p6" "$(cid minilake-uc-sql)"; then
    ok "compose: unity-catalog,sql server ready"
  else bad "compose: unity-catalog,sql server ready"; fi
  check "compose: unity-catalog,sql server has no secrets (501)" 501 \
    "$(api GET "$p6" /api/2.0/secrets/scopes/list | cut -d' ' -f1)"
  check "compose: catalog in the named volume" 200 \
    "$(api POST "$p6" /api/2.1/unity-catalog/catalogs "{\"name\":\"$cat\"}" | cut -d' ' -f1)"
  check "compose: catalog in the full server's named volume" 200 \
    "$(api POST "$p5" /api/2.1/unity-catalog/catalogs "{\"name\":\"$cat\"}" | cut -d' ' -f1)"
  timeout 120 "${compose[@]}" -p "$proj" -f docker/compose.yaml restart >/dev/null 2>&1
  if wait_ready "$p6" "$(cid minilake-uc-sql)" && wait_ready "$p5" "$(cid minilake)"; then
    check "compose: catalog survives a restart" 200 "$(api GET "$p6" "/api/2.1/unity-catalog/catalogs/$cat" | cut -d' ' -f1)"
    check "compose: the full server's catalog survives a restart" 200 "$(api GET "$p5" "/api/2.1/unity-catalog/catalogs/$cat" | cut -d' ' -f1)"
  else bad "compose: restart"; fi
  timeout 120 "${compose[@]}" -p "$proj" -f docker/compose.yaml down -v >/dev/null 2>&1 ||
    bad "compose down"
  unset MINILAKE_PORT MINILAKE_UC_SQL_PORT MINILAKE_COMPOSE_IMAGE
fi
