"""The suite runs through pytest-minilake (python/pytest-minilake, installed into the venv by run.sh): its
session `minilake` fixture starts the built server (`minilake_bin` in pytest.ini, or PYTEST_MINILAKE_BIN) on a
free port with the settings in pytest.ini's `minilake_env`, and resets it before every test that uses it.

Every test talks to it with the real databricks-sdk (pinned in requirements.txt)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from minilake import ENTRY, ROOT, Server, raw_request, unique  # noqa: E402,F401  (re-exported for the test modules)


@pytest.fixture(scope="session")
def server(minilake):
    return minilake


@pytest.fixture
def w(workspace_client):
    return workspace_client


@pytest.fixture
def url(minilake):
    return minilake.url
