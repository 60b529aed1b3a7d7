#!/usr/bin/env bash
# Tests the GitHub Action (action.yml) by running the script it runs, action/start.sh, as a runner would:
# INPUT_* variables from the action's inputs, GITHUB_ENV / GITHUB_OUTPUT / RUNNER_TEMP files, then the job's
# next step reading the exported environment. Cases: the built bin; a packed tarball through npx (the
# `package` source with a tarball spec); https with MiniLake's own CA and extra settings; bad inputs and a
# server that cannot start (a clear error, non-zero); the Docker image (when docker answers and
# minilake:slim exists, or MINILAKE_ACTION_IMAGE names one). Needs `pnpm build`. Prints "N passed, N failed".
set -uo pipefail
repo=$(cd "$(dirname "$0")/../.." && pwd)
cd "$repo"
tmp=$(mktemp -d)
passed=0 failed=0 t0=$(date +%s)
say() { echo "[e2e/action +$(($(date +%s) - t0))s] $*"; }
ok() { passed=$((passed + 1)); say "ok   $1"; }
bad() { failed=$((failed + 1)); say "FAIL $1${2:+: $2}"; }
check() { if [ "$2" = "$3" ]; then ok "$1"; else bad "$1" "expected '$2', got '$3'"; fi; }
stops=()
finish() {
  for s in "${stops[@]}"; do (eval "$s") >/dev/null 2>&1; done
  rm -rf "$tmp"
  say "total $(($(date +%s) - t0))s"
  echo "$passed passed, $failed failed"
  [ "$failed" = 0 ] && [ "$passed" -gt 0 ]
}
trap 'finish; exit $?' EXIT
free_port() { node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})"; }

# run_action NAME [INPUT_X=... ...]: a fresh "runner" (temp folder, env and output files) running start.sh with
# the action's defaults for the inputs not given. Leaves $run (its folder) and $rc.
run_action() {
  run="$tmp/$1"
  shift
  mkdir -p "$run/temp"
  : >"$run/env"
  : >"$run/output"
  (
    # The defaults action.yml declares, as the runner would pass them.
    export INPUT_SOURCE=package INPUT_VERSION=latest INPUT_PACKAGE=@minilake/server INPUT_BIN= \
      INPUT_IMAGE=minilake:local INPUT_PORT=8000 INPUT_SERVICES= INPUT_PERSIST=false INPUT_DATA_DIR= \
      INPUT_TLS=false INPUT_TOKEN=dapi-minilake INPUT_ENV= INPUT_WAIT_TIMEOUT=180
    for kv in "$@"; do export "${kv?}"; done
    GITHUB_ENV="$run/env" GITHUB_OUTPUT="$run/output" RUNNER_TEMP="$run/temp" \
      bash "$repo/action/start.sh" >"$run/stdout" 2>"$run/stderr"
  )
  rc=$?
  # The next step's environment, and how to stop what was started.
  stops+=("set -a; . '$run/env'; set +a; bash '$repo/action/stop.sh'")
}
# step CMD...: a later step of the job, with the exported environment.
step() { (set -a && . "$run/env" && set +a && "$@"); }
get() { grep "^$1=" "$run/${2:-env}" | head -n 1 | cut -d= -f2-; }

# -- action.yml and its script agree ---------------------------------------------------------------------
grep -q '^  using: composite' action.yml && ok "action.yml is a composite action" || bad "action.yml is a composite action"
inputs=$(awk '/^inputs:/{f=1;next} /^[a-z]/{f=0} f && /^  [a-z-]+:$/{sub(":","");gsub(" ","");print}' action.yml | sort)
mapped=$(grep -o 'INPUT_[A-Z_]*: \${{ inputs\.[a-z-]* }}' action.yml | sed -E 's/INPUT_([A-Z_]*): .*inputs\.([a-z-]*).*/\2 \1/' |
  while read -r i v; do [ "$(echo "$i" | tr a-z- A-Z_)" = "$v" ] && echo "$i"; done | sort)
check "every input reaches the script as INPUT_<NAME>" "$inputs" "$mapped"
used=$(grep -o 'INPUT_[A-Z][A-Z_]*' action/start.sh | sort -u | sed 's/INPUT_//' | tr A-Z_ a-z- | sort)
check "the script reads exactly the declared inputs" "$inputs" "$used"
outs=$(grep -o 'steps\.start\.outputs\.[a-z-]*' action.yml | cut -d. -f4 | sort -u)
written=$(grep -o '^out [a-z-]*' action/start.sh | cut -d' ' -f2 | sort -u)
check "every output is written by the script" "$outs" "$written"

entry=$repo/apps/server/dist/cli.js
[ -f "$entry" ] || { bad "built server" "$entry is missing: pnpm build"; exit 1; }

# -- 1. the built bin ------------------------------------------------------------------------------------
p=$(free_port)
run_action bin INPUT_SOURCE=bin INPUT_BIN="$entry" INPUT_PORT="$p"
check "bin: start.sh exits 0" 0 "$rc"
check "bin: DATABRICKS_HOST exported" "http://127.0.0.1:$p" "$(get DATABRICKS_HOST)"
check "bin: DATABRICKS_TOKEN exported" "dapi-minilake" "$(get DATABRICKS_TOKEN)"
check "bin: url output" "http://127.0.0.1:$p" "$(get url output)"
check "bin: the log named in the outputs holds the start-up line" 1 "$(grep -c 'listening on' "$(get log output)")"
grep -q '^CA certificate: ' "$run/stderr" && ok "bin: the CA line is printed" || bad "bin: the CA line is printed" "$(cat "$run/stderr")"
# The job's next step: a client that reads only the environment (curl with the exported host and token).
cat=action_$$
r=$(step sh -c 'curl -s -X POST -H "Authorization: Bearer $DATABRICKS_TOKEN" "$DATABRICKS_HOST/api/2.1/unity-catalog/catalogs" -d "{\"name\":\"'$cat'\"}"' |
  node -pe 'JSON.parse(require("fs").readFileSync(0)).name')
check "bin: the next step creates a catalog through DATABRICKS_HOST" "$cat" "$r"
pid=$(get MINILAKE_PID)
step bash action/stop.sh
sleep 0.2
kill -0 "$pid" 2>/dev/null && bad "bin: stop.sh stops the server" "pid $pid still runs" || ok "bin: stop.sh stops the server"

# -- 2. https, its CA and extra settings -----------------------------------------------------------------
p=$(free_port)
run_action tls INPUT_SOURCE=bin INPUT_BIN="$entry" INPUT_PORT="$p" INPUT_TLS=true \
  INPUT_ENV=$'MINILAKE_USER=ci@example.com\n# a comment\n\nMINILAKE_WAREHOUSE_START_DELAY=0'
check "tls: start.sh exits 0" 0 "$rc"
ca=$(get MINILAKE_CA_FILE)
[ -f "$ca" ] && ok "tls: MINILAKE_CA_FILE names the certificate" || bad "tls: MINILAKE_CA_FILE names the certificate" "'$ca'"
check "tls: ca-path output" "$ca" "$(get ca-path output)"
grep -q "^CA certificate: $ca" "$run/stderr" && ok "tls: the CA path is printed" || bad "tls: the CA path is printed" "$(cat "$run/stderr")"
check "tls: https URL exported" "https://127.0.0.1:$p" "$(get DATABRICKS_HOST)"
r=$(step sh -c 'curl -s --cacert "$MINILAKE_CA_FILE" -H "Authorization: Bearer $DATABRICKS_TOKEN" "$DATABRICKS_HOST/api/2.0/preview/scim/v2/Me"' |
  node -pe 'JSON.parse(require("fs").readFileSync(0)).userName')
check "tls: a client trusting only that CA reaches it; env lines reach the server" "ci@example.com" "$r"
step bash action/stop.sh

# -- 3. clear failures -----------------------------------------------------------------------------------
run_action badport INPUT_SOURCE=bin INPUT_BIN="$entry" INPUT_PORT=eighty
check "bad port: non-zero" 1 "$rc"
grep -q "::error title=MiniLake::port 'eighty'" "$run/stderr" && ok "bad port: an ::error line names it" || bad "bad port: ::error" "$(cat "$run/stderr")"
run_action badsource INPUT_SOURCE=helm
grep -q "source 'helm' is not one of package, bin, image" "$run/stderr" && ok "bad source: named" || bad "bad source" "$(cat "$run/stderr")"
p=$(free_port)
run_action badsetting INPUT_SOURCE=bin INPUT_BIN="$entry" INPUT_PORT="$p" INPUT_ENV=MINILAKE_LOG_LEVEL=loud
check "a server that cannot start: non-zero" 1 "$rc"
grep -q 'MINILAKE_LOG_LEVEL="loud" must be one of' "$run/stderr" && grep -q 'exited before it was ready' "$run/stderr" &&
  ok "a server that cannot start: its own message and the reason" || bad "a server that cannot start" "$(tail -5 "$run/stderr")"
[ ! -s "$run/env" ] && ok "a server that cannot start: nothing exported" || bad "nothing exported" "$(cat "$run/env")"

# -- 4. the package source, from a packed tarball (npx installs it and its dependencies) -----------------
mkdir -p "$tmp/tgz"
(cd apps/server && pnpm pack --pack-destination "$tmp/tgz" >/dev/null 2>&1)
tgz=$(ls "$tmp"/tgz/*.tgz 2>/dev/null | head -n 1)
if [ -z "$tgz" ]; then
  bad "pnpm pack apps/server"
else
  p=$(free_port)
  # npm answers from its cache when it can (the dependencies are the ones docker/build.sh installs too).
  npm_config_prefer_offline=true run_action package INPUT_SOURCE=package INPUT_PACKAGE="$tgz" INPUT_PORT="$p" INPUT_WAIT_TIMEOUT=300
  check "package (tarball through npx): start.sh exits 0" 0 "$rc"
  r=$(step sh -c 'curl -s -o /dev/null -w "%{http_code}" -H "Authorization: Bearer $DATABRICKS_TOKEN" "$DATABRICKS_HOST/api/2.1/unity-catalog/catalogs"')
  check "package: the next step lists catalogs" 200 "$r"
  pid=$(get MINILAKE_PID)
  step bash action/stop.sh
  sleep 0.2
  pgrep -g "$pid" >/dev/null 2>&1 && bad "package: stop.sh stops npx and the server" "$(pgrep -a -g "$pid")" || ok "package: stop.sh stops npx and the server"
fi

# -- 5. the Docker image ---------------------------------------------------------------------------------
image=${MINILAKE_ACTION_IMAGE:-minilake:slim}
if ! command -v docker >/dev/null || ! docker info >/dev/null 2>&1; then
  say "skip image: no Docker daemon answers (docker/dockerd.sh start)"
elif ! docker image inspect "$image" >/dev/null 2>&1; then
  say "skip image: no $image (bash docker/build.sh)"
else
  p=$(free_port)
  run_action image INPUT_SOURCE=image INPUT_IMAGE="$image" INPUT_PORT="$p" INPUT_PERSIST=true INPUT_SERVICES=unity-catalog,sql
  check "image: start.sh exits 0" 0 "$rc"
  check "image: MINILAKE_CONTAINER exported" "minilake-action-$p" "$(get MINILAKE_CONTAINER)"
  r=$(step sh -c 'curl -s -o /dev/null -w "%{http_code}" -X POST -H "Authorization: Bearer $DATABRICKS_TOKEN" "$DATABRICKS_HOST/api/2.1/unity-catalog/catalogs" -d "{\"name\":\"'$cat'\"}"')
  check "image: the next step creates a catalog" 200 "$r"
  check "image: services input reaches the container (secrets off: 501)" 501 \
    "$(step sh -c 'curl -s -o /dev/null -w "%{http_code}" "$DATABRICKS_HOST/api/2.0/secrets/scopes/list"')"
  [ -n "$(ls -A "$run/temp/minilake-data" 2>/dev/null)" ] && ok "image: state in the runner's data dir" || bad "image: state in the runner's data dir"
  step bash action/stop.sh
  check "image: stop.sh removes the container" "" "$(docker ps -aq --filter "name=^minilake-action-$p\$")"
fi
