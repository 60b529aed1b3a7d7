"""The pytest plugin (entry point ``pytest11: minilake``): options, the ``minilake`` marker and the fixtures
``minilake`` (session), ``workspace_client``, ``sql_connection`` and ``spark`` (function)."""
from __future__ import annotations

import os
import tempfile
from typing import Dict, Iterator, Optional, Tuple

import pytest

from .server import CLIENT_ENV, DEFAULT_NPM_PACKAGE, MiniLake, MiniLakeError, MiniLakeStartError, start

SOURCES = ("url", "bin", "image", "npm")
ISOLATION = ("reset", "snapshot", "none")
# Variables that would point a client somewhere else or add a second way to authenticate next to the token.
FOREIGN = (
    "DATABRICKS_CONFIG_PROFILE", "DATABRICKS_CLIENT_ID", "DATABRICKS_CLIENT_SECRET", "DATABRICKS_USERNAME",
    "DATABRICKS_PASSWORD", "DATABRICKS_AUTH_TYPE", "DATABRICKS_ACCOUNT_ID", "DATABRICKS_CLUSTER_ID",
    "DATABRICKS_SERVERLESS_COMPUTE_ID", "DATABRICKS_AZURE_RESOURCE_ID", "DATABRICKS_GOOGLE_SERVICE_ACCOUNT",
    "ARM_CLIENT_ID", "ARM_CLIENT_SECRET", "ARM_TENANT_ID", "SPARK_REMOTE",
)


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("minilake", "MiniLake (pytest-minilake)")
    g.addoption("--minilake-url", help="use the MiniLake that runs at URL (nothing is started or stopped)")
    g.addoption("--minilake-bin", metavar="PATH",
                help="start MiniLake from PATH: a built bin (apps/server/dist/cli.js, run with node), an "
                     "executable, or a packed @minilake/server tarball (*.tgz, run by npx)")
    g.addoption("--minilake-image", metavar="IMAGE", help="start MiniLake from a Docker image (minilake:local)")
    g.addoption("--minilake-npm", metavar="SPEC", nargs="?", const=DEFAULT_NPM_PACKAGE,
                help=f"start MiniLake from the npm package (default {DEFAULT_NPM_PACKAGE}), run by npx")
    g.addoption("--minilake-env", metavar="NAME=VALUE", action="append", default=None,
                help="a setting for the started server (MINILAKE_PERSIST=1, ...); repeatable")
    g.addoption("--minilake-isolation", choices=ISOLATION, default=None,
                help="between tests: reset (default: every test starts from a fresh server), snapshot (a "
                     "test's changes are undone after it), none")
    g.addoption("--minilake-timeout", type=float, default=None, help="seconds to wait for start-up (180)")
    g.addoption("--minilake-docker-network", default=None,
                help="the started container's network: auto (default: bridge with published ports when the "
                     "daemon has one, else host), host, bridge or a network name")
    parser.addini("minilake_url", "the MiniLake to use (nothing is started)")
    parser.addini("minilake_bin", "start MiniLake from this bin or tarball (relative to the ini file)")
    parser.addini("minilake_image", "start MiniLake from this Docker image")
    parser.addini("minilake_npm", "start MiniLake from this npm package spec")
    parser.addini("minilake_env", "settings for the started server, NAME=VALUE per line", type="linelist")
    parser.addini("minilake_isolation", "reset (default), snapshot or none", default="reset")
    parser.addini("minilake_timeout", "seconds to wait for start-up", default="180")
    parser.addini("minilake_docker_network", "auto, host, bridge or a network name", default="auto")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "minilake(isolation='reset'|'snapshot'|'none', restore=None): how this test starts on the session's "
        "MiniLake. reset: a fresh server (the default); snapshot: the state the test finds is saved before "
        "it and put back after it; none: whatever the test before it left; restore='name': the named snapshot "
        "(made with minilake.snapshot('name')) instead.")


def _source(config: pytest.Config) -> Tuple[Optional[Tuple[str, str]], str]:
    """(kind, value) and where it was said: the command line, then PYTEST_MINILAKE_* (and MINILAKE_URL, which
    the GitHub Action exports), then the ini file; within each, url, bin, image, npm in that order."""
    cli = {k: config.getoption(f"--minilake-{k}") for k in SOURCES}
    env = {k: os.environ.get(f"PYTEST_MINILAKE_{k.upper()}") for k in SOURCES}
    env["url"] = env["url"] or os.environ.get("MINILAKE_URL")
    ini = {k: config.getini(f"minilake_{k}") or None for k in SOURCES}
    if ini["bin"] and config.inipath and not os.path.isabs(ini["bin"]) and os.sep in ini["bin"]:
        ini["bin"] = os.path.join(os.path.dirname(str(config.inipath)), ini["bin"])
    for where, values in (("command line", cli), ("environment", env), ("ini file", ini)):
        for k in SOURCES:
            if values[k]:
                return (k, values[k]), where
    return None, ""


def _server_env(config: pytest.Config) -> Dict[str, str]:
    out: Dict[str, str] = {}
    for line in list(config.getini("minilake_env")) + list(config.getoption("--minilake-env") or []):
        k, sep, v = line.partition("=")
        if not sep or not k.strip():
            raise pytest.UsageError(f"minilake env {line!r}: expected NAME=VALUE")
        out[k.strip()] = v.strip()
    return out


def _isolation(config: pytest.Config) -> str:
    v = config.getoption("--minilake-isolation") or config.getini("minilake_isolation") or "reset"
    if v not in ISOLATION:
        raise pytest.UsageError(f"minilake_isolation = {v!r}: use one of {', '.join(ISOLATION)}")
    return v


def pytest_report_header(config: pytest.Config) -> Optional[str]:
    src, where = _source(config)
    if not src:
        return None
    return f"minilake: {src[0]} {src[1]} (from the {where})"


@pytest.fixture(scope="session")
def minilake(request: pytest.FixtureRequest) -> Iterator[MiniLake]:
    """The session's MiniLake (``.url``, ``.token``, ``.reset()``, ``.snapshot(name)``, ``.restore(name)``,
    ``.env()``; ``str()`` is the URL). While it runs, DATABRICKS_HOST and DATABRICKS_TOKEN (and MINILAKE_URL)
    point at it and ``~/.databrickscfg`` is out of the way, so any client made without arguments finds it."""
    config = request.config
    src, _ = _source(config)
    kw = {src[0]: src[1]} if src else {}
    timeout = config.getoption("--minilake-timeout") or float(config.getini("minilake_timeout") or 180)
    network = config.getoption("--minilake-docker-network") or config.getini("minilake_docker_network") or "auto"
    try:
        server = start(env=_server_env(config), timeout=timeout, docker_network=network, **kw)
    except MiniLakeStartError as e:
        pytest.fail(f"pytest-minilake: {e}", pytrace=False)
    saved = {k: os.environ.get(k) for k in FOREIGN + CLIENT_ENV}
    empty_cfg = tempfile.NamedTemporaryFile(prefix="pytest-minilake-", suffix=".databrickscfg", delete=False)
    empty_cfg.close()
    for k in FOREIGN:
        os.environ.pop(k, None)
    os.environ.update(server.env())
    os.environ["DATABRICKS_CONFIG_FILE"] = empty_cfg.name
    try:
        yield server
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        os.unlink(empty_cfg.name)
        server.stop()


@pytest.fixture(autouse=True)
def _minilake_isolation(request: pytest.FixtureRequest) -> Iterator[None]:
    # Only tests that use the server (directly or through another fixture) touch it.
    if "minilake" not in request.fixturenames:
        yield
        return
    server: MiniLake = request.getfixturevalue("minilake")
    marker = request.node.get_closest_marker("minilake")
    opts = dict(marker.kwargs) if marker else {}
    unknown = set(opts) - {"isolation", "restore", "reset"}
    if unknown or (marker and marker.args):
        raise pytest.UsageError(f"@pytest.mark.minilake takes isolation= and restore= only, not "
                                f"{', '.join(sorted(unknown)) or marker.args}")
    isolation = opts.get("isolation") or _isolation(request.config)
    if opts.get("reset") is False:
        isolation = "none"
    if isolation not in ISOLATION:
        raise pytest.UsageError(f"@pytest.mark.minilake(isolation={isolation!r}): use one of {', '.join(ISOLATION)}")
    restore = opts.get("restore")
    undo: Optional[str] = None
    try:
        if restore:
            server.restore(restore)
        elif isolation == "reset":
            server.reset()
        if isolation == "snapshot":
            undo = f"pytest-minilake-{os.getpid()}-{abs(hash(request.node.nodeid)) % 10**8}"
            server.snapshot(undo)
    except MiniLakeError as e:
        pytest.fail(f"pytest-minilake could not prepare the server for this test: {e}", pytrace=False)
    yield
    if undo:
        server.restore(undo)
        server.delete_snapshot(undo)


@pytest.fixture
def workspace_client(minilake: MiniLake):
    """A ``databricks.sdk.WorkspaceClient`` on the session's MiniLake (``pip install databricks-sdk``)."""
    pytest.importorskip("databricks.sdk", reason="workspace_client needs databricks-sdk (pip install "
                                                  "'pytest-minilake[sdk]')")
    return minilake.workspace_client()


def _warehouse_id(server: MiniLake) -> str:
    status, body = server.request("GET", "/api/2.0/sql/warehouses")
    if status == 200 and (body or {}).get("warehouses"):
        return body["warehouses"][0]["id"]
    status, body = server.request("POST", "/api/2.0/sql/warehouses",
                                  {"name": "pytest-minilake", "cluster_size": "2X-Small"})
    if status != 200:
        pytest.fail(f"sql_connection: no SQL warehouse and none could be made: {status} {body}", pytrace=False)
    return body["id"]


@pytest.fixture
def sql_connection(minilake: MiniLake):
    """A ``databricks.sql`` connection (databricks-sql-connector) to the server's first SQL warehouse (the
    starter warehouse of a fresh server), closed after the test."""
    dbsql = pytest.importorskip("databricks.sql", reason="sql_connection needs databricks-sql-connector "
                                                         "(pip install 'pytest-minilake[sql]')")
    path = f"/sql/1.0/warehouses/{_warehouse_id(minilake)}"
    host = minilake.url.split("://", 1)[1]
    kw = {}
    if minilake.url.startswith("http:"):
        kw["_connection_uri"] = minilake.url + path  # the connector speaks https unless told the full URI
    elif minilake.ca_file:
        kw["_tls_trusted_ca_file"] = minilake.ca_file
    conn = dbsql.connect(server_hostname=host, http_path=path, access_token=minilake.token,
                         enable_telemetry=False, **kw)
    try:
        yield conn
    finally:
        conn.close()


@pytest.fixture
def spark(minilake: MiniLake):
    """A Databricks Connect session (``databricks-connect``) on the server's Spark Connect port."""
    try:
        from databricks.connect import DatabricksSession
    except ImportError:
        pytest.skip("spark needs databricks-connect (pip install 'pytest-minilake[connect]', the version "
                    "of your Databricks runtime)")
    if not minilake.spark_connect_url:
        pytest.skip(f"{minilake.describe} serves no Spark Connect (no Spark install, the slim image, or "
                    "MINILAKE_SPARK_CONNECT_PORT=off)")
    session = DatabricksSession.builder.remote(minilake.spark_connect_url).getOrCreate()
    yield session

