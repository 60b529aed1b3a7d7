#!/usr/bin/env bash
# End-to-end test of the full MiniLake image with no route out of the container: `docker run --network none`,
# clients inside it (`docker exec`): the real databricks-sdk from the image's own Spark venv drives SQL, a
# Spark job writing a Delta table that SQL reads, a Spark task reading by its Unity Catalog name a Delta
# table that SQL wrote, and a Lakeflow pipeline update (e2e/docker/inside_full.py); then Databricks Connect
# from another container, both on a `docker network create --internal` network (e2e/docker/connect_client.py).
# What passes here downloaded nothing at run time.
#
#   bash e2e/docker/full.sh        # needs pnpm build, the Spark install and e2e/connect's 16.1 venv; MINILAKE_SKIP_BUILD=1 reuses minilake:local
#
# Starts dockerd (safe flags) when none answers and stops it again only if it started it. Prints the image's
# size, each step's time, and "N passed, N failed" last.
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
export MINILAKE_CACHE=${MINILAKE_CACHE:-$HOME/.cache/minilake}
image=${MINILAKE_IMAGE_REF:-${MINILAKE_IMAGE:-minilake}:local}
c="ml-full-$$"
passed=0 failed=0 t0=$(date +%s)
say() { echo "[e2e/docker/full +$(($(date +%s) - t0))s] $*"; }
ok() { passed=$((passed + 1)); say "ok   $1"; }
bad() { failed=$((failed + 1)); say "FAIL $1${2:+: $2}"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected '$2', got '$3'"; fi; }
# steps_from LABEL: reads a client's JSON lines ({"step","ok","ms","detail"}) from stdin, one ok/FAIL per
# step, other lines echoed; sets $steps to the number of steps reported.
steps_from() {
  steps=0
  local line okv name ms detail
  while IFS= read -r line; do
    case "$line" in
      '{"step"'*)
        steps=$((steps + 1))
        # ok<TAB>step<TAB>ms<TAB>detail (one line)
        IFS=$'\t' read -r okv name ms detail < <(echo "$line" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{
          const j=JSON.parse(s); console.log([j.ok, j.step, j.ms, String(j.detail).replace(/\s+/g, " ").slice(0, 600)].join("\t"))})')
        if [ "$okv" = true ]; then ok "$1: $name (${ms} ms): $detail"; else bad "$1: $name (${ms} ms)" "$detail"; fi
        ;;
      *) say "  $line" ;;
    esac
  done
}
finish() {
  docker rm -f -v "$c" >/dev/null 2>&1
  if [ "${MINILAKE_DOCKERD_STARTED:-}" = 1 ]; then bash "$repo/docker/dockerd.sh" stop; fi
  say "total $(($(date +%s) - t0))s"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ] && [ "$passed" -gt 0 ]
}
trap 'finish; exit $?' EXIT
trap 'exit 130' INT TERM

command -v docker >/dev/null || { bad "docker client" "not installed (apt-get install -y docker.io)"; exit 1; }
unset MINILAKE_DOCKERD_STARTED
env_out=$(bash docker/dockerd.sh start) || { bad "docker daemon" "could not start dockerd"; exit 1; }
eval "$env_out"
if [ "${MINILAKE_SKIP_BUILD:-}" = 1 ]; then
  say "using the existing $image"
elif timeout 1200 bash docker/build.sh >/dev/null; then
  ok "full image builds ($(($(date +%s) - t0))s)"
else
  bad "full image builds"
  exit 1
fi
check "the image is the full one" full "$(docker image inspect -f '{{index .Config.Labels "dev.minilake.image.variant"}}' "$image" 2>&1)"
say "image $image: $(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%d MB", $1/1e6}')"

docker run -d --name "$c" --network none --health-interval=1s "$image" >/dev/null || { bad "docker run --network none"; exit 1; }
inside() { timeout 900 docker exec -i "$c" "$@"; }
# ready_status CONTAINER: /_minilake/ready's status from inside it, once 200 or the container stopped (60 s).
ready_status() {
  local r=""
  for _ in $(seq 1 120); do
    r=$(timeout 30 docker exec "$1" node -e "fetch('http://127.0.0.1:8000/_minilake/ready').then(r=>console.log(r.status),()=>console.log('down'))" 2>/dev/null)
    [ "$r" = 200 ] && break
    [ "$(docker inspect -f '{{.State.Running}}' "$1" 2>/dev/null)" = true ] || break
    sleep 0.5
  done
  echo "$r"
}
check "ready with --network none" 200 "$(ready_status "$c")"
check "no network but loopback inside" "lo" "$(inside sh -c "tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d ' '" 2>&1 | tr '\n' ' ' | sed 's/ $//')"
check "runs as the non-root user" 10001 "$(inside node -e 'console.log(process.getuid())' 2>&1)"
health=""
for _ in $(seq 1 60); do
  health=$(docker inspect -f '{{.State.Health.Status}}' "$c" 2>/dev/null)
  [ "$health" = healthy ] && break
  sleep 0.5
done
check "HEALTHCHECK reports healthy" healthy "$health"

# The steps, each a JSON line from inside the container.
py=$(docker image inspect -f '{{range .Config.Env}}{{println .}}{{end}}' "$image" | sed -n 's/^MINILAKE_CACHE=//p')
py="$py/spark-$(node -p "require('./packages/engine-spark/versions.json').pyspark")-delta-$(node -p "require('./packages/engine-spark/versions.json').deltaSpark")/venv/bin/python"
steps_from inside < <(inside "$py" - <e2e/docker/inside_full.py 2>&1)
check "every step inside the container reported" 4 "$steps"

# Databricks Connect from another container: the full image as `minilake` on an internal network (no route
# out), a client container of the same image running databricks-connect 16.1 (its venv's packages mounted
# read-only, made by e2e/connect/run.sh) with the image's Python.
dbc_site=$(ls -d "$MINILAKE_CACHE"/dbconnect-"$(sha256sum e2e/connect/requirements-16.1.txt | cut -c1-12)"/lib/python3*/site-packages 2>/dev/null | head -1)
if [ -z "$dbc_site" ]; then
  bad "Databricks Connect from another container" "no databricks-connect 16.1 venv (bash e2e/connect/run.sh makes it)"
  exit 1
fi
net="ml-internal-$$"
docker network create --internal "$net" >/dev/null || { bad "docker network create --internal"; exit 1; }
cleanup_net() { docker rm -f -v "$c-net" >/dev/null 2>&1; docker network rm "$net" >/dev/null 2>&1; }
trap 'cleanup_net; finish; exit $?' EXIT
docker run -d --name "$c-net" --network "$net" --network-alias minilake "$image" >/dev/null || { bad "docker run --network $net"; exit 1; }
check "ready on an internal network" 200 "$(ready_status "$c-net")"
steps_from "another container" < <(timeout 900 docker run --rm -i --network "$net" -v "$dbc_site:/opt/dbconnect:ro" -e PYTHONPATH=/opt/dbconnect \
  -e HOME=/tmp --entrypoint /opt/python/bin/python3 "$image" - <e2e/docker/connect_client.py 2>&1)
check "every step from another container reported" 4 "$steps"
