#!/usr/bin/env bash
# What the GitHub Action (action.yml at the repository root) runs: starts MiniLake in the background, waits
# for /_minilake/ready, exports the environment for the job's later steps and prints the CA certificate's path.
# Inputs come as INPUT_* variables (action.yml maps them); outside Actions it runs the same way, writing to
# $GITHUB_ENV / $GITHUB_OUTPUT when they are set and printing `export` lines otherwise.
#
#   INPUT_SOURCE=package|bin|image   INPUT_VERSION, INPUT_PACKAGE (package), INPUT_BIN (bin), INPUT_IMAGE (image)
#   INPUT_PORT=8000  INPUT_SERVICES  INPUT_PERSIST=false  INPUT_DATA_DIR  INPUT_TLS=false  INPUT_TOKEN
#   INPUT_ENV (NAME=VALUE lines)  INPUT_WAIT_TIMEOUT=180
#
# Exports DATABRICKS_HOST, DATABRICKS_TOKEN, MINILAKE_URL, and when they exist MINILAKE_CA_FILE and
# MINILAKE_SPARK_REMOTE; MINILAKE_PID (a process) or MINILAKE_CONTAINER (an image) say what to stop
# (action/stop.sh does). Exits non-zero, with the server's last lines, when it does not get ready.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source=${INPUT_SOURCE:-package}
port=${INPUT_PORT:-8000}
token=${INPUT_TOKEN:-dapi-minilake}
timeout=${INPUT_WAIT_TIMEOUT:-180}
tmp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
data=${INPUT_DATA_DIR:-$tmp/minilake-data}
log=$tmp/minilake-$port.log
t0=$(date +%s)

die() {
  echo "::error title=MiniLake::$*" >&2
  exit 1
}
truthy() { case "${1,,}" in 1 | true | yes | on) return 0 ;; *) return 1 ;; esac; }
[[ $port =~ ^[0-9]+$ ]] && [ "$port" -gt 0 ] && [ "$port" -le 65535 ] || die "port '$port' is not a port number (1-65535)"
[[ $timeout =~ ^[0-9]+$ ]] || die "wait-timeout '$timeout' is not a number of seconds"

# The server's settings.
settings=("MINILAKE_PORT=$port")
[ -n "${INPUT_SERVICES:-}" ] && settings+=("MINILAKE_SERVICES=$INPUT_SERVICES")
truthy "${INPUT_PERSIST:-false}" && settings+=("MINILAKE_PERSIST=1")
truthy "${INPUT_TLS:-false}" && settings+=("MINILAKE_TLS=1")
while IFS= read -r line; do
  line=${line#"${line%%[![:space:]]*}"}
  [ -z "$line" ] || [ "${line:0:1}" = "#" ] && continue
  [[ $line =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || die "env line '$line' is not NAME=VALUE"
  settings+=("$line")
done <<<"${INPUT_ENV:-}"
mkdir -p "$data"

node_cmd() { # the command line that runs a bin or tarball
  case "$1" in
    *.tgz | *.tar.gz) echo npx --yes --package "$(realpath "$1")" minilake ;;
    *.js | *.mjs | *.cjs) echo node "$(realpath "$1")" ;;
    *) echo "$(realpath "$1")" ;;
  esac
}

pid="" container=""
case "$source" in
  package | bin)
    if [ "$source" = package ]; then
      command -v npx >/dev/null || die "source 'package' needs Node 20 or newer with npx on the runner (actions/setup-node)"
      spec=${INPUT_PACKAGE:-@minilake/server}
      # A version goes on a registry name, not on a tarball path or URL.
      case "$spec" in /* | ./* | *.tgz | http*) ;; *) [ -n "${INPUT_VERSION:-}" ] && spec="$spec@$INPUT_VERSION" ;; esac
      cmd=(npx --yes --package "$spec" minilake)
    else
      [ -n "${INPUT_BIN:-}" ] || die "source 'bin' needs the input 'bin' (a built bin or a packed tarball)"
      [ -e "$INPUT_BIN" ] || die "bin '$INPUT_BIN' does not exist"
      read -r -a cmd <<<"$(node_cmd "$INPUT_BIN")"
    fi
    # Its own session, so it outlives this step and a stop reaches npx's children too.
    env "${settings[@]}" MINILAKE_DATA_DIR="$data" setsid "${cmd[@]}" </dev/null >"$log" 2>&1 &
    pid=$!
    what="${cmd[*]}"
    ;;
  image)
    command -v docker >/dev/null || die "source 'image' needs docker on the runner"
    image=${INPUT_IMAGE:-minilake:local}
    docker image inspect "$image" >/dev/null 2>&1 || die "no image '$image' here (build it with docker/build.sh, or docker pull it first)"
    container=minilake-action-$port
    docker rm -f "$container" >/dev/null 2>&1 || true
    args=(run -d --name "$container" --user "$(id -u):$(id -g)" -v "$(realpath "$data"):/data")
    for s in "${settings[@]}"; do [ "${s%%=*}" = MINILAKE_PORT ] || args+=(-e "$s"); done
    if docker network inspect bridge >/dev/null 2>&1; then
      args+=(-p "127.0.0.1:$port:8000")
    else
      # A daemon without a bridge (started with --bridge=none): the host's network, on the chosen port.
      args+=(--network host -e "MINILAKE_PORT=$port" -e MINILAKE_BIND_HOST=127.0.0.1)
    fi
    docker "${args[@]}" "$image" >/dev/null || die "docker run $image failed"
    what="the image $image (container $container)"
    ;;
  *) die "source '$source' is not one of package, bin, image" ;;
esac

logs() { if [ -n "$container" ]; then docker logs "$container" 2>&1; else cat "$log" 2>/dev/null; fi; }
alive() { if [ -n "$container" ]; then [ "$(docker inspect -f '{{.State.Running}}' "$container" 2>/dev/null)" = true ]; else kill -0 "$pid" 2>/dev/null; fi; }
ready() { # 200 from /_minilake/ready, over http or (MiniLake's own certificate) https
  curl -sk -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/_minilake/ready" 2>/dev/null | grep -q 200 ||
    curl -sk -m 5 -o /dev/null -w '%{http_code}' "https://127.0.0.1:$port/_minilake/ready" 2>/dev/null | grep -q 200
}
until ready; do
  if ! alive; then
    logs | tail -n 30 >&2
    die "MiniLake from $what exited before it was ready (its output is above)"
  fi
  if [ $(($(date +%s) - t0)) -ge "$timeout" ]; then
    logs | tail -n 30 >&2
    [ -n "$pid" ] && kill -- -"$pid" 2>/dev/null
    [ -n "$container" ] && docker rm -f "$container" >/dev/null 2>&1
    die "MiniLake from $what was not ready within $timeout s (its output is above)"
  fi
  sleep 0.5
done

# What the server says about itself: its URL and Spark Connect address, from the start-up lines.
url=$(logs | grep -o 'listening on https\?://[^ ]*' | head -n 1 | cut -d' ' -f3)
url=${url:-http://127.0.0.1:$port}
# In a container the server names its own port; the runner reaches it on the chosen one.
url=$(echo "$url" | sed -E "s#^(https?)://[^/]*#\1://127.0.0.1:$port#")
sc=$(logs | grep -o 'sc://[^ ]*:[0-9]\+' | grep -v ':0$' | head -n 1 || true)
[ -n "$container" ] && sc="" # the image's Spark Connect port is not published by this action
ca=""
[ -f "$data/tls/cert.pem" ] && ca=$(realpath "$data/tls/cert.pem")

put() { # put NAME VALUE: for later steps (GITHUB_ENV), or printed as an export line outside Actions
  if [ -n "${GITHUB_ENV:-}" ]; then echo "$1=$2" >>"$GITHUB_ENV"; else echo "export $1=$(printf '%q' "$2")"; fi
}
out() { [ -n "${GITHUB_OUTPUT:-}" ] && echo "$1=$2" >>"$GITHUB_OUTPUT" || true; }
put DATABRICKS_HOST "$url"
put DATABRICKS_TOKEN "$token"
put MINILAKE_URL "$url"
[ -n "$ca" ] && put MINILAKE_CA_FILE "$ca"
[ -n "$sc" ] && put MINILAKE_SPARK_REMOTE "$sc"
[ -n "$pid" ] && put MINILAKE_PID "$pid"
[ -n "$container" ] && put MINILAKE_CONTAINER "$container"
out url "$url"
out token "$token"
out ca-path "$ca"
out spark-connect-url "$sc"
out log "$log"
echo "MiniLake is ready at $url after $(($(date +%s) - t0)) s (from $what; data in $data; log in ${container:+docker logs }${container:-$log})" >&2
if [ -n "$ca" ]; then
  echo "CA certificate: $ca (trust it with REQUESTS_CA_BUNDLE, SSL_CERT_FILE or GRPC_DEFAULT_SSL_ROOTS_FILE_PATH)" >&2
else
  echo "CA certificate: none yet (plain http; tls: true makes one at $data/tls/cert.pem)" >&2
fi
