"""A warm Python for Spark Connect tasks: imports what every serverless task needs (the Spark Connect
client, pandas, pyarrow, grpc, the MiniLake runtime) once, then forks one child per task, so a task starts
in milliseconds instead of paying those imports (seconds, most of a trivial task's wall time).

Protocol, one JSON object per line: the engine writes {"id", "env", "cwd", "log"} on stdin; the zygote
answers {"id", "pid"} once the child runs (or {"id", "error"}), and {"id", "exit", "signal"} when it ends.
The first line it writes is {"ready": true}. Requests are never logged (their env holds secrets).

The child leads a new session (so the engine kills its whole process group), gets the task's environment,
working directory and argv, writes stdout and stderr to the task's log file, and runs the runtime's main()
exactly as minilake_entry.py would. It exits when the MiniLake server (MINILAKE_SERVER_PID) is gone, as the
supervisor does for plain processes.
"""
import json
import os
import select
import signal
import sys
import threading
import time

RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, RUNTIME_DIR)

from minilake_supervise import _alive  # noqa: E402  (the same zombie-aware check the supervisor uses)


def _preimport():
    # What a serverless task imports before its first line runs; a module that fails to import here is
    # simply imported (and fails) in the task, as in a plain process.
    for name in (
        "pandas",
        "pyarrow",
        "grpc",
        "pyspark.sql",
        "pyspark.sql.connect.session",
        "pyspark.sql.connect.dataframe",
        "pyspark.sql.connect.functions",
        "minilake_runtime.main",
        "minilake_runtime.dbutils",
        "minilake_runtime.notebook",
    ):
        try:
            __import__(name)
        except Exception as e:  # noqa: BLE001
            print("minilake zygote: could not pre-import %s: %s" % (name, e), file=sys.stderr)


def _watch_server(server):
    while True:
        time.sleep(1)
        if not _alive(server):
            os.killpg(0, signal.SIGKILL)


def _child(req, server, keep_fds):
    """Runs in the forked child; never returns."""
    code = 1
    try:
        os.setsid()
        for sig in (signal.SIGCHLD, signal.SIGTERM, signal.SIGINT, signal.SIGPIPE):
            signal.signal(sig, signal.SIG_DFL)
        signal.set_wakeup_fd(-1)
        for fd in keep_fds:
            try:
                os.close(fd)
            except OSError:
                pass
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        log = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(log)
        import io

        sys.stdin = io.TextIOWrapper(io.FileIO(0, "r", closefd=False), encoding="utf-8")
        sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True)
        sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8", errors="backslashreplace", write_through=True)
        os.chdir(req["cwd"])
        os.environ.clear()
        os.environ.update(req["env"])
        os.environ.pop("MINILAKE_SERVER_PID", None)
        if server:
            threading.Thread(target=_watch_server, args=(server,), daemon=True).start()
        entry = os.path.join(RUNTIME_DIR, "minilake_entry.py")
        sys.argv = [entry]
        from minilake_runtime.main import main

        try:
            main()
            code = 0
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException as e:  # noqa: BLE001 (a failure to set the child up is the task's failure)
        try:
            sys.stderr.write("minilake zygote: the task could not start: %r\n" % (e,))
        except Exception:  # noqa: BLE001
            pass
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except Exception:  # noqa: BLE001
            pass
        os._exit(code)


def main():
    server = int(os.environ.get("MINILAKE_SERVER_PID", "0") or 0)
    _preimport()
    out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
    # Nothing else may write to the protocol channel: stray prints go to stderr (the zygote's log).
    os.dup2(2, 1)

    def send(obj):
        out.write(json.dumps(obj) + "\n")
        out.flush()

    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    children = {}  # pid -> request id
    buf = b""
    send({"ready": True, "pid": os.getpid()})
    while True:
        try:
            ready, _, _ = select.select([0, wake_r], [], [], 1.0)
        except InterruptedError:
            ready = []
        if wake_r in ready:
            try:
                os.read(wake_r, 4096)
            except BlockingIOError:
                pass
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            rid = children.pop(pid, None)
            if rid is None:
                continue
            if os.WIFSIGNALED(status):
                send({"id": rid, "exit": None, "signal": os.WTERMSIG(status)})
            else:
                send({"id": rid, "exit": os.WEXITSTATUS(status), "signal": None})
        if 0 in ready:
            chunk = os.read(0, 1 << 16)
            if not chunk:
                # The engine is gone: the children watch the server themselves.
                return
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                req = json.loads(line)
                try:
                    pid = os.fork()
                except OSError as e:
                    send({"id": req["id"], "error": str(e)})
                    continue
                if pid == 0:
                    _child(req, server, [wake_r, wake_w, out.fileno()])
                children[pid] = req["id"]
                send({"id": req["id"], "pid": pid})
        if server and not _alive(server):
            return


if __name__ == "__main__":
    main()
