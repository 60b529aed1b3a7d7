"""What the crash chaos suites share (e2e/python/test_chaos.py and test_chaos_spark.py, e2e/mlflow/test_chaos.py):
raw HTTP with no retries (one answer is exactly one acknowledgement), the ledger of acknowledged writes, and a kill -9
of the server process alone, as a crash takes it (its children are left to their own watchdogs)."""
import http.client
import json
import os
import random
import signal
import threading
import time
from urllib.parse import urlparse


def req(url, method, path, body=None, raw=None, timeout=30):
    """One request, no retries: (status, parsed JSON or bytes). Raises OSError when the server is gone."""
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        headers = {"Authorization": "Bearer dapi-chaos"}
        data = None
        if raw is not None:
            headers["Content-Type"] = "application/octet-stream"
            data = raw
        elif body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body)
        conn.request(method, path, body=data, headers=headers)
        r = conn.getresponse()
        payload = r.read()
        if "json" in (r.getheader("Content-Type") or ""):
            return r.status, json.loads(payload or b"{}")
        return r.status, payload
    finally:
        conn.close()


def ok(status):
    return 200 <= status < 300


def sql(url, wh, statement):
    s, b = req(url, "POST", "/api/2.0/sql/statements",
               {"warehouse_id": wh, "statement": statement, "wait_timeout": "30s"})
    return s, b


class Ledger:
    """The acknowledged writes: (kind, key, expected) appended only after a 2xx answer."""

    def __init__(self):
        self.lock = threading.Lock()
        self.acked = []
        self.answers = {}

    def ack(self, kind, key, expected=None):
        with self.lock:
            self.acked.append((kind, key, expected))

    def saw(self, status):
        with self.lock:
            self.answers[status] = self.answers.get(status, 0) + 1


def kill9_server_only(server):
    """SIGKILL to the MiniLake process alone (not its process group, as Server.kill9 does): what an OOM kill or
    a crash does. Answers the pids of the processes it had started, which must go by themselves."""
    pid = server.proc.pid
    children = descendants(pid)
    os.kill(pid, signal.SIGKILL)
    server.proc.wait(15)
    return children


def descendants(pid):
    """Every process under `pid` (from /proc), whatever process group or session it moved to."""
    parents = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    parents[int(d)] = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    found, todo = [], [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parents.items() if pp == p]
        found += kids
        todo += kids
    return found


def alive(pids):
    """The pids still running (zombies count as gone)."""
    out = []
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    out.append(p)
        except OSError:
            pass
    return out


def wait_gone(pids, seconds):
    """Waits until none of `pids` runs; answers the ones left after `seconds`."""
    deadline = time.monotonic() + seconds
    while alive(pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return alive(pids)


def burst(writer, args, ledger, rng, round_, clients, kill):
    """One round's write burst: `clients` threads each run writer(*args, their own seeded Random, a tag, stop),
    the server is killed by kill() after a seeded 1-3 s, then the writers stop. Returns (acknowledged writes
    before the round, the delay, what kill() returned)."""
    stop = threading.Event()
    threads = [threading.Thread(target=writer, args=(*args, random.Random(rng.random()), f"r{round_}c{i}", stop),
                                daemon=True) for i in range(clients)]
    before = len(ledger.acked)
    for t in threads:
        t.start()
    delay = rng.uniform(1.0, 3.0)
    time.sleep(delay)
    killed = kill()
    stop.set()
    for t in threads:
        t.join(60)
    return before, delay, killed
