"""The real MiniLake server for the Python-driven suites (e2e/python, e2e/cli, e2e/terraform, e2e/seeds):
the built `apps/server/dist/cli.js` on a free port with its own data directory."""
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

import requests

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ENTRY = os.environ.get("MINILAKE_SERVER_ENTRY") or os.path.join(ROOT, "apps", "server", "dist", "cli.js")


class Server:
    def __init__(self, env=None, data_dir=None):
        if not os.path.exists(ENTRY):
            raise RuntimeError(f"{ENTRY} is missing: run 'pnpm build' first")
        self.data_dir = data_dir or tempfile.mkdtemp(prefix="minilake-py-")
        # Clusters run no Spark (their states move on the clock) unless a suite asks for it: most tests are
        # about the control plane, and a JVM per cluster is minutes of CPU. The Spark Connect port is a free
        # one, so parallel servers never contend for 15002.
        full_env = dict(os.environ, MINILAKE_DATA_DIR=self.data_dir, MINILAKE_LOG_LEVEL="info",
                        MINILAKE_CLUSTER_RUNTIME="none", MINILAKE_SPARK_CONNECT_PORT="0")
        full_env.update(env or {})
        self.proc = subprocess.Popen(
            ["node", ENTRY, "--port", "0"],
            env=full_env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.output = []
        self.url = None
        self.spark_connect_port = None
        ready = threading.Event()

        def pump():
            for line in self.proc.stdout:
                self.output.append(line)
                m = re.search(r"listening on (https?://\S+) ", line)
                if m and not self.url:
                    self.url = m.group(1)
                    c = re.search(r"spark connect: sc://([^:]+):(\d+)", line)
                    self.spark_connect_port = int(c.group(2)) if c else None
                    ready.set()
            ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(30) or not self.url:
            self.proc.kill()
            raise RuntimeError("server did not start:\n" + "".join(self.output))

    def reset(self):
        r = requests.post(f"{self.url}/_minilake/reset", timeout=30)
        if not r.ok:
            # The server's own account of the failure, not just the status.
            raise RuntimeError(f"reset failed: {r.status_code} {r.text}\n" + "".join(self.output[-20:]))

    def stop(self, keep_data=False):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        if not keep_data:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    def kill9(self):
        """The crash a persistent server must survive; the data dir stays for a restart on it."""
        self.proc.kill()
        self.proc.wait(15)


def unique(prefix="t"):
    return f"{prefix}_{os.getpid()}_{time.time_ns() % 10**9}"


def raw_request(url, method, path, body=None):
    """One request with the path exactly as given (no client re-quoting of %2F): (status, body bytes)."""
    import http.client
    from urllib.parse import urlparse

    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.request(method, path, body=body, headers={"Authorization": "Bearer dapi-x"})
        r = conn.getresponse()
        return (r.status, r.read())
    finally:
        conn.close()
