"""Runs a command (spark-submit, the Spark Connect server, a task's Python) as a child in this process group
and kills the whole group when the MiniLake server that started it (MINILAKE_SERVER_PID) is gone, so a
server that crashed or was killed leaves no Spark JVM behind. Exits with the child's code."""
import os
import signal
import subprocess
import sys


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A killed server that its parent has not reaped yet is a zombie: gone for our purpose.
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def main():
    server = int(os.environ.pop("MINILAKE_SERVER_PID", "0") or 0)
    child = subprocess.Popen(sys.argv[1:])
    signal.signal(signal.SIGTERM, lambda *_: child.terminate())
    signal.signal(signal.SIGINT, lambda *_: child.terminate())
    while True:
        try:
            code = child.wait(timeout=1)
            break
        except subprocess.TimeoutExpired:
            if server and not _alive(server):
                os.killpg(0, signal.SIGKILL)
    sys.exit(128 - code if code < 0 else code)


if __name__ == "__main__":
    main()
