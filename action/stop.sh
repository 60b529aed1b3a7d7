#!/usr/bin/env bash
# Stops the MiniLake that action/start.sh started: MINILAKE_PID (its process group) or MINILAKE_CONTAINER.
# A job's runner stops everything at its end anyway; this is for a job that wants the port back, or a restart.
set -uo pipefail
if [ -n "${MINILAKE_CONTAINER:-}" ]; then
  docker rm -f "$MINILAKE_CONTAINER" >/dev/null
elif [ -n "${MINILAKE_PID:-}" ]; then
  kill -TERM -- -"$MINILAKE_PID" 2>/dev/null || kill -TERM "$MINILAKE_PID" 2>/dev/null
  for _ in $(seq 1 30); do kill -0 "$MINILAKE_PID" 2>/dev/null || exit 0; sleep 0.5; done
  kill -KILL -- -"$MINILAKE_PID" 2>/dev/null
else
  echo "neither MINILAKE_PID nor MINILAKE_CONTAINER is set: nothing to stop" >&2
  exit 1
fi
