#!/usr/bin/env bash
# Makes sure a Docker daemon answers, without touching the host network.
#
#   eval "$(bash docker/dockerd.sh start)"   # prints `export DOCKER_HOST=...` (and MINILAKE_DOCKERD_STARTED=1
#                                            # when this call started the daemon)
#   bash docker/dockerd.sh stop              # stops only a daemon that `start` started (pid file)
#
# If `docker info` already works (DOCKER_HOST or the default socket), nothing is started. Otherwise dockerd is
# started with --iptables=false --ip-forward=false --bridge=none (the default flags create a bridge, enable IP
# forwarding and rewrite iptables), a private socket, and its data root under $MINILAKE_CACHE/docker so images
# and layers stay cached between runs. With those flags containers use `--network host` or `--network none`.
set -euo pipefail
cache=${MINILAKE_CACHE:-$HOME/.cache/minilake}
root="$cache/docker"
sock="$root/docker.sock"
pidfile="$root/dockerd.pid"
cmd=${1:-start}

case "$cmd" in
  start)
    if docker info >/dev/null 2>&1; then
      echo "# docker daemon already running${DOCKER_HOST:+ at $DOCKER_HOST}"
      exit 0
    fi
    if [ -S "$sock" ] && DOCKER_HOST="unix://$sock" docker info >/dev/null 2>&1; then
      echo "export DOCKER_HOST=unix://$sock"
      exit 0
    fi
    command -v dockerd >/dev/null || {
      echo "dockerd not found: apt-get install -y docker.io" >&2
      exit 1
    }
    mkdir -p "$root/data" "$root/exec"
    rm -f "$sock" "$pidfile"
    nohup dockerd \
      --iptables=false --ip-forward=false --bridge=none \
      --data-root "$root/data" --exec-root "$root/exec" \
      -H "unix://$sock" --pidfile "$pidfile" >"$root/dockerd.log" 2>&1 </dev/null &
    for _ in $(seq 1 120); do
      if DOCKER_HOST="unix://$sock" docker info >/dev/null 2>&1; then
        echo "export DOCKER_HOST=unix://$sock MINILAKE_DOCKERD_STARTED=1"
        exit 0
      fi
      sleep 0.5
    done
    echo "dockerd did not answer within 60 s; last log lines:" >&2
    tail -n 20 "$root/dockerd.log" >&2
    exit 1
    ;;
  stop)
    [ -f "$pidfile" ] || exit 0
    pid=$(cat "$pidfile")
    if kill -0 "$pid" 2>/dev/null; then
      kill "$pid"
      for _ in $(seq 1 60); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
      done
    fi
    rm -f "$pidfile"
    ;;
  *)
    echo "usage: $0 start|stop" >&2
    exit 2
    ;;
esac
