/**
 * The Python that runs `mlflow server` for MiniLake and takes it down with MiniLake, passed with `python -c`
 * (so a bundled or packed server needs no file of this package). MiniLake starts it in a process group of its
 * own with a pipe on stdin; the `mlflow server` arguments follow `--`.
 */
export const LAUNCHER = `"""Runs mlflow server for MiniLake and takes it down with MiniLake.

MiniLake starts this script in a process group of its own, with a pipe on stdin, and passes the
mlflow server arguments after --. The server (the mlflow CLI and the uvicorn process it starts)
runs in the same group. When MiniLake closes the pipe, or dies (even by SIGKILL, which closes it too),
or sends SIGTERM, the whole group is stopped: no MLflow server outlives the MiniLake that started it.
"""

import os
import signal
import subprocess
import sys
import threading

GRACE_SECONDS = 5


def main() -> int:
    args = sys.argv[1:]
    if args and args[0] == "--":
        args = args[1:]
    child = subprocess.Popen([sys.executable, "-m", "mlflow", "server", *args], stdin=subprocess.DEVNULL)
    stopping = threading.Event()

    def stop(*_):
        if stopping.is_set():
            return
        stopping.set()
        # The group signal reaches the launcher too: its handler (this function) returns at once.
        try:
            os.killpg(os.getpgrp(), signal.SIGTERM)
        except ProcessLookupError:
            pass

    def watch_stdin():
        try:
            while sys.stdin.buffer.read(4096):
                pass
        except Exception:
            pass
        stop()

    signal.signal(signal.SIGTERM, stop)
    threading.Thread(target=watch_stdin, daemon=True).start()
    code = None
    while code is None:
        try:
            code = child.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            continue
    if stopping.is_set():
        try:
            child.wait(timeout=GRACE_SECONDS)
        except subprocess.TimeoutExpired:
            pass
    # Whatever is left of the group (uvicorn if the CLI died first) goes with the launcher.
    try:
        os.killpg(os.getpgrp(), signal.SIGKILL)
    except ProcessLookupError:
        pass
    return code


if __name__ == "__main__":
    sys.exit(main())
`;
