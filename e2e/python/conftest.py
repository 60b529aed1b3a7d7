"""Starts the built MiniLake server once per pytest run on a free port and resets it between tests.

Every test talks to it with the real databricks-sdk (pinned in requirements.txt)."""
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time

import pytest
import requests
from databricks.sdk import WorkspaceClient

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
ENTRY = os.environ.get("MINILAKE_SERVER_ENTRY") or os.path.join(ROOT, "apps", "server", "dist", "cli.js")


class Server:
    def __init__(self, env=None):
        if not os.path.exists(ENTRY):
            raise RuntimeError(f"{ENTRY} is missing: run 'pnpm build' first")
        self.data_dir = tempfile.mkdtemp(prefix="minilake-py-")
        full_env = dict(os.environ, MINILAKE_DATA_DIR=self.data_dir, MINILAKE_LOG_LEVEL="info")
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
        ready = threading.Event()

        def pump():
            for line in self.proc.stdout:
                self.output.append(line)
                m = re.search(r"listening on (http://\S+) ", line)
                if m and not self.url:
                    self.url = m.group(1)
                    ready.set()
            ready.set()

        threading.Thread(target=pump, daemon=True).start()
        if not ready.wait(30) or not self.url:
            self.proc.kill()
            raise RuntimeError("server did not start:\n" + "".join(self.output))

    def reset(self):
        r = requests.post(f"{self.url}/_minilake/reset", timeout=30)
        r.raise_for_status()

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def server():
    s = Server(env={"MINILAKE_CLUSTER_START_DELAY": "0.2", "MINILAKE_CLUSTER_TERMINATE_DELAY": "0.2",
                    "MINILAKE_WAREHOUSE_START_DELAY": "0.2"})
    yield s
    s.stop()


@pytest.fixture(autouse=True)
def _reset(server):
    server.reset()
    yield


@pytest.fixture
def w(server):
    # An isolated config: no ~/.databrickscfg, no environment profile, a PAT for the local server.
    os.environ["DATABRICKS_CONFIG_FILE"] = "/dev/null"
    for k in ("DATABRICKS_HOST", "DATABRICKS_TOKEN", "DATABRICKS_CONFIG_PROFILE"):
        os.environ.pop(k, None)
    return WorkspaceClient(host=server.url, token="dapi-minilake-test", auth_type="pat")


@pytest.fixture
def url(server):
    return server.url


def unique(prefix="t"):
    return f"{prefix}_{os.getpid()}_{time.time_ns() % 10**9}"
