"""One MiniLake server whose clusters really run Spark (MINILAKE_CLUSTER_RUNTIME=spark), one all-purpose
cluster shared by the suite (its driver started once), `main` with two tables the SQL warehouse made, and the
Databricks Connect clients under test, each in its own venv (e2e/connect/run.sh makes them)."""
import json
import os
import subprocess
import sys
import tempfile

import pytest
from databricks.sdk import WorkspaceClient

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "lib"))
from minilake import Server, unique  # noqa: E402,F401

HERE = os.path.dirname(__file__)
CLIENTS = {
    "16.1": os.environ.get("MINILAKE_DBCONNECT_16"),
    "15.4": os.environ.get("MINILAKE_DBCONNECT_15"),
    "newest": os.environ.get("MINILAKE_DBCONNECT_NEWEST"),
}


def client_python(version):
    py = CLIENTS.get(version)
    if version == "newest" and not py:
        pytest.skip("the newest databricks-connect needs Python 3.12 and there is no python3.12 here "
                    "(MINILAKE_PYTHON312 names one)")
    if not py or not os.path.exists(py):
        pytest.skip(f"databricks-connect {version} venv missing: run e2e/connect/run.sh, which makes it")
    return py


@pytest.fixture(scope="session")
def server():
    s = Server(env={"MINILAKE_CLUSTER_RUNTIME": "spark", "MINILAKE_CLUSTER_START_DELAY": "0.2",
                    "MINILAKE_CLUSTER_TERMINATE_DELAY": "0.2", "MINILAKE_WAREHOUSE_START_DELAY": "0.2"})
    yield s
    s.stop()


@pytest.fixture(scope="session")
def w(server):
    os.environ["DATABRICKS_CONFIG_FILE"] = "/dev/null"
    return WorkspaceClient(host=server.url, token="dapi-connect-test", auth_type="pat")


def sql(w, statement):
    r = w.statement_execution.execute_statement(warehouse_id="dev", statement=statement, wait_timeout="50s")
    assert r.status.state.value == "SUCCEEDED", (statement, r.status)
    return r.result.data_array if r.result else None


@pytest.fixture(scope="session")
def lake(w, server):
    """`main.default`, and two tables the SQL warehouse created: an EXTERNAL Delta one and a MANAGED one."""
    for stmt in ("CREATE CATALOG IF NOT EXISTS main", "CREATE SCHEMA IF NOT EXISTS main.default",
                 "CREATE SCHEMA IF NOT EXISTS main.wh"):
        sql(w, stmt)
    loc = tempfile.mkdtemp(prefix="minilake-connect-ext-")
    sql(w, f"CREATE TABLE main.wh.ext (x INT) USING DELTA LOCATION '{loc}/ext'")
    sql(w, "INSERT INTO main.wh.ext VALUES (1), (2)")
    sql(w, "CREATE TABLE main.wh.managed AS SELECT 1 AS x")
    return {"WAREHOUSE_DELTA": "main.wh.ext", "WAREHOUSE_DUCKDB": "main.wh.managed"}


@pytest.fixture(scope="session")
def cluster(w, lake):
    """An all-purpose cluster on a current runtime; RUNNING means its driver (a Spark Connect server) serves."""
    c = w.clusters.create_and_wait(cluster_name=unique("connect"), spark_version="16.4.x-scala2.12",
                                   node_type_id="i3.xlarge", num_workers=0,
                                   spark_conf={"spark.sql.shuffle.partitions": "4"},
                                   spark_env_vars={"CONNECT_SUITE": "yes"})
    return c.cluster_id


@pytest.fixture(scope="session")
def cluster_newest(w, lake):
    """A cluster on the runtime the newest client targets, its Python workers on 3.12 like the client
    (PYSPARK_PYTHON in spark_env_vars, as Databricks lets a cluster choose), for its UDFs."""
    client_python("newest")
    c = w.clusters.create_and_wait(cluster_name=unique("connect19"), spark_version="19.3.x-scala2.13",
                                   node_type_id="i3.xlarge", num_workers=0,
                                   spark_env_vars={"PYSPARK_PYTHON": os.environ["MINILAKE_PYTHON312"]})
    return c.cluster_id


def run_client(version, way, env, schema, timeout=600, quick=False):
    """Runs dbc_client.py with the client's own python; returns {step: result}."""
    py = client_python(version)
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DATABRICKS_", "SPARK_", "PYSPARK_"))}
    full.update(env)
    p = subprocess.run([py, os.path.join(HERE, "dbc_client.py"), way, schema, *(["quick"] if quick else [])],
                       env=full, capture_output=True, text=True, timeout=timeout)
    steps = {}
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            r = json.loads(line)
            steps[r["step"]] = r
    if "session" not in steps or not steps["session"]["ok"]:
        raise AssertionError(f"{way} with databricks-connect {version}: no session\n{p.stdout}\n{p.stderr[-3000:]}")
    return steps


def driver_log(server, cluster_id, lines=60):
    """The tail of a cluster's driver log (its Spark Connect server's), for a failure's message."""
    path = os.path.join(server.data_dir, "spark", "servers", cluster_id, "server.log")
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return f"(no driver log at {path})"
