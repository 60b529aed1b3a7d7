"""Starts the built MiniLake server once per pytest run on a free port and resets it between tests.

Every test talks to it with the real databricks-sdk (pinned in requirements.txt)."""
import os
import sys

import pytest
from databricks.sdk import WorkspaceClient

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from minilake import ENTRY, ROOT, Server, raw_request, unique  # noqa: E402,F401  (re-exported for the test modules)


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

