"""The real MiniLake server for the Python-driven suites (e2e/python, e2e/cli, e2e/terraform, e2e/seeds):
the built `apps/server/dist/cli.js` on a free port with its own data directory, started by pytest-minilake's
launcher (the suites' venv installs the plugin from python/pytest-minilake)."""
import os
import sys
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
try:
    from pytest_minilake import start
except ImportError:  # a suite whose venv does not install the plugin (e2e/mlflow's) uses its sources
    sys.path.insert(0, os.path.join(ROOT, "python", "pytest-minilake", "src"))
    from pytest_minilake import start
ENTRY = os.environ.get("MINILAKE_SERVER_ENTRY") or os.path.join(ROOT, "apps", "server", "dist", "cli.js")


class Server:
    """A server of a test's own (other settings, a data dir to kill and restart on), started the way
    pytest-minilake starts the session's (python/pytest-minilake): free port, own data dir, ready waited for."""

    def __init__(self, env=None, data_dir=None):
        if not os.path.exists(ENTRY):
            raise RuntimeError(f"{ENTRY} is missing: run 'pnpm build' first")
        # Clusters run no Spark (their states move on the clock) unless a suite asks for it: most tests are
        # about the control plane, and a JVM per cluster is minutes of CPU. The launcher gives the Spark
        # Connect server a free port, so parallel servers never contend for 15002.
        self._s = start(bin=ENTRY, env={"MINILAKE_LOG_LEVEL": "info", "MINILAKE_CLUSTER_RUNTIME": "none",
                                        **(env or {})}, data_dir=data_dir, timeout=60)
        self.url = self._s.url
        self.data_dir = self._s.data_dir
        self.proc = self._s.proc
        sc = self._s.spark_connect_url
        self.spark_connect_port = int(sc.rsplit(":", 1)[1]) if sc else None

    @property
    def output(self):
        return self._s.output

    def reset(self):
        self._s.reset()

    def stop(self, keep_data=False):
        self._s.stop(keep_data)

    def kill9(self):
        """The crash a persistent server must survive; the data dir stays for a restart on it."""
        self._s.kill()


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
