"""One built MiniLake for the whole run, and the real `mlflow` client pointed at it the way a user points it at
Databricks: MLFLOW_TRACKING_URI=databricks with DATABRICKS_HOST and DATABRICKS_TOKEN in the environment.

The server is not reset between tests (a reset stops the MLflow server, which takes seconds to start again):
every test works under its own workspace folder, catalog and names."""
import os
import sys

import pytest
import requests

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from minilake import ROOT, Server, raw_request, unique  # noqa: E402,F401  (re-exported for the test modules)


def client_env(url):
    return {
        "MLFLOW_TRACKING_URI": "databricks",
        "DATABRICKS_HOST": url,
        "DATABRICKS_TOKEN": "dapi-minilake-mlflow",
        "DATABRICKS_CONFIG_FILE": "/dev/null",
        # A failing server must fail the test, not keep the client in its back-off for minutes.
        "MLFLOW_HTTP_REQUEST_MAX_RETRIES": "2",
        "MLFLOW_HTTP_REQUEST_TIMEOUT": "180",
    }


@pytest.fixture(scope="session")
def server():
    s = Server()
    os.environ.pop("DATABRICKS_CONFIG_PROFILE", None)
    os.environ.update(client_env(s.url))
    yield s
    s.stop()


@pytest.fixture(scope="session")
def url(server):
    return server.url


class Api:
    """Plain REST calls next to the client, to check what MiniLake answers (status, JSON)."""

    def __init__(self, url):
        self.url = url
        self.s = requests.Session()
        self.s.headers["Authorization"] = "Bearer dapi-minilake-mlflow"

    def call(self, method, path, **kw):
        r = self.s.request(method, self.url + path, timeout=180, **kw)
        try:
            body = r.json()
        except ValueError:
            body = r.text
        return r.status_code, body

    def ok(self, method, path, **kw):
        status, body = self.call(method, path, **kw)
        assert status == 200, f"{method} {path}: {status} {body}"
        return body


@pytest.fixture(scope="session")
def api(url):
    return Api(url)


@pytest.fixture(scope="session")
def me(api):
    return api.ok("GET", "/api/2.0/preview/scim/v2/Me")["userName"]


@pytest.fixture
def folder(api, me):
    """A fresh workspace folder of the current user for this test's experiments."""
    d = f"/Users/{me}/{unique('ml')}"
    api.ok("POST", "/api/2.0/workspace/mkdirs", json={"path": d})
    return d


@pytest.fixture
def schema(api):
    """A fresh catalog.schema for this test's registered models."""
    cat = unique("mlcat")
    api.ok("POST", "/api/2.1/unity-catalog/catalogs", json={"name": cat})
    api.ok("POST", "/api/2.1/unity-catalog/schemas", json={"name": "models", "catalog_name": cat})
    return f"{cat}.models"
