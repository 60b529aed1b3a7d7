"""Databricks Connect against MiniLake through every way in, with no change to the user's code but the host:
plain Spark Connect (`sc://`, with and without a cluster id, SPARK_REMOTE) and Databricks' own way
(`remote(host, token, cluster_id)`, `.serverless()`, DATABRICKS_* in the environment, a .databrickscfg
profile, `databricks.sdk.runtime.spark`), whose gRPC goes over TLS to MiniLake's own port. Each runs SQL,
DataFrames, a Python UDF, Delta writes the SQL warehouse reads, Databricks SQL (USE CATALOG, CREATE CATALOG,
GRANT), and sees an error with its class."""
import os

import pytest

from conftest import driver_log, run_client, sql, unique

# (client version, way in): every step through the three doors (plain Spark Connect to a cluster, Databricks'
# TLS door to a cluster, serverless) on 16.1 and 15.4 LTS; the other ways in with 16.1 run the quick steps
# (each client run costs the client's start-up; the doors behind them are the same).
FULL = [(v, way) for v in ("16.1", "15.4") for way in ("sc-cluster", "remote-cluster", "serverless")]
QUICK = [("16.1", way) for way in ("sc-plain", "spark-remote", "env-cluster", "env-serverless", "profile",
                                   "sdk-runtime")]


def way_env(way, server, cluster, tmp_path):
    host = server.url
    cert = os.path.join(server.data_dir, "tls", "cert.pem")
    # gRPC speaks TLS to the host's port even though REST is plain http: trust MiniLake's local certificate.
    tls = {"GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": cert}
    if way in ("sc-cluster", "sc-plain"):
        return {"SC_PORT": str(server.spark_connect_port), "CLUSTER_ID": cluster}
    if way == "spark-remote":
        return {"SPARK_REMOTE": f"sc://localhost:{server.spark_connect_port}/;x-databricks-cluster-id={cluster}"}
    if way in ("remote-cluster", "serverless"):
        return {**tls, "HOST": host, "CLUSTER_ID": cluster}
    if way in ("env-cluster", "sdk-runtime"):
        return {**tls, "DATABRICKS_HOST": host, "DATABRICKS_TOKEN": "dapi-connect-test",
                "DATABRICKS_CLUSTER_ID": cluster}
    if way == "env-serverless":
        return {**tls, "DATABRICKS_HOST": host, "DATABRICKS_TOKEN": "dapi-connect-test",
                "DATABRICKS_SERVERLESS_COMPUTE_ID": "auto"}
    if way == "profile":
        cfg = tmp_path / "databrickscfg"
        cfg.write_text(f"[connect]\nhost = {host}\ntoken = dapi-connect-test\ncluster_id = {cluster}\n")
        return {**tls, "DATABRICKS_CONFIG_FILE": str(cfg)}
    raise AssertionError(way)


@pytest.mark.parametrize("version,way", QUICK, ids=[f"{v}-{w}" for v, w in QUICK])
def test_way_in_quick(version, way, server, w, cluster, lake, tmp_path):
    schema = unique(f"q{version.replace('.', '')}_{way.replace('-', '_')}")
    s = run_client(version, way, {**way_env(way, server, cluster, tmp_path), **lake}, schema, quick=True)
    failed = {k: v for k, v in s.items() if not v["ok"] and k != "error"}
    assert not failed, f"{failed}\n{driver_log(server, cluster)}"
    assert s["sql"]["value"] == 42 and s["catalog"]["value"] == ["main", "default"]
    assert s["table"]["value"] == [[1, "a"], [2, "b"]] and s["udf"]["value"] == [1, 2, 3]
    assert sql(w, f"SELECT count(*) FROM main.{schema}.t") == [["2"]]
    assert s["error"]["errorClass"] == "TABLE_OR_VIEW_NOT_FOUND"


@pytest.mark.parametrize("version,way", FULL, ids=[f"{v}-{w}" for v, w in FULL])
def test_way_in(version, way, server, w, cluster, lake, tmp_path):
    check_full(version, way, server, w, cluster, lake, tmp_path)


def test_newest_client_on_its_runtime(server, w, cluster_newest, lake, tmp_path):
    """databricks-connect 19.3 (Python 3.12) through Databricks' own way, on a 19.3 cluster."""
    check_full("newest", "remote-cluster", server, w, cluster_newest, lake, tmp_path)


def check_full(version, way, server, w, cluster, lake, tmp_path):
    schema = unique(f"c{version.replace('.', '')}_{way.replace('-', '_')}")
    env = {**way_env(way, server, cluster, tmp_path), **lake}
    # DeltaTable (Delta Connect): its 15 steps cost about 3 minutes a run here, so by default one run, 16.1 on a
    # cluster's driver (the warm serverless server has the same plugin conf, engine.ts). DELTA_TABLE_ALL=1 runs
    # them in every full case (15.4's delta/connect too; it has no addFeatureSupport), DELTA_TABLE_ALL=0 in none
    # (.ci/run, for time).
    cases = os.environ.get("DELTA_TABLE_ALL")
    delta_table = cases != "0" and ((version, way) == ("16.1", "remote-cluster") or (
        cases == "1" and way in ("remote-cluster", "serverless")))
    # With them a run takes minutes more, and far more when CI runs the Docker lane beside this one.
    s = run_client(version, way, {**env, "DELTA_TABLE": "1" if delta_table else "0"}, schema,
                   timeout=1500 if delta_table else 600)
    failed = {k: v for k, v in s.items() if not v["ok"] and k not in ("warehouse duckdb table", "error")}
    assert not failed, f"{failed}\n{driver_log(server, cluster)}"
    assert s["sql"]["value"] == 42 and s["range"]["value"] == [0, 1, 2, 3, 4]
    # A Unity Catalog workspace's defaults.
    assert s["catalog"]["value"] == ["main", "default"]
    assert s["table"]["value"] == [[1, "a"], [2, "b"]]
    assert s["udf"]["value"] == [1, 2, 3]
    assert s["history"]["value"][0] == "DELETE" and "UPDATE" in s["history"]["value"]
    assert s["warehouse delta table"]["value"] == [1, 2]
    assert f"{schema}_cat" in s["show catalogs"]["value"] or "main" in s["show catalogs"]["value"]
    # What Spark wrote is a MANAGED Delta table in Unity Catalog's storage root, read at once by the warehouse.
    t = w.tables.get(f"main.{schema}.t")
    assert (t.table_type.value, t.data_source_format.value) == ("MANAGED", "DELTA")
    assert "__unitystorage" in t.storage_location
    assert sql(w, f"SELECT id, v FROM main.{schema}.t ORDER BY id") == [["2", "b"], ["3", "z"]]
    # Databricks SQL went through Unity Catalog.
    assert w.catalogs.get(f"{schema}_cat").name == f"{schema}_cat"
    assert w.schemas.get(f"{schema}_cat.inner").name == "inner"
    grants = w.grants.get("table", f"main.{schema}.t").privilege_assignments
    assert any(g.principal == "someone@example.com" for g in grants)
    # Errors keep their class.
    assert not s["error"]["ok"] and s["error"]["errorClass"] == "TABLE_OR_VIEW_NOT_FOUND"
    assert "AnalysisException" in s["error"]["error"]
    # A MANAGED DuckDB table (the warehouse's default format) is refused, saying why and what to do.
    assert not s["warehouse duckdb table"]["ok"]
    assert "DuckDB" in s["warehouse duckdb table"]["error"]
    if delta_table:
        check_delta_table(s, version, w, schema)


def check_delta_table(s, version, w, schema):
    """Every DeltaTable operation read back (dbc_client.py's delta_table_steps), and the history naming them."""
    v = {k[len("DeltaTable "):]: r["value"] for k, r in s.items() if k.startswith("DeltaTable ")}
    first = [[1, "a"], [2, "b"], [3, "c"], [4, "d"]]
    assert v["create"] == first
    assert v["detail"][0] == "delta"
    assert v["isDeltaTable"] == [True, False]
    assert v["forPath"] == first
    # DELETE and UPDATE answer their metrics (num_affected_rows) as on Databricks.
    assert v["delete"] == [[[1]], first[:3]]
    assert v["update"] == [[[1]], [[1, "a"], [2, "b"], [3, "z"]]]
    merged = [[2, "B"], [3, "z"], [5, "e"]]
    assert "num_affected_rows" in v["merge"][0] and v["merge"][1] == merged
    assert v["optimize"][0] == ["path", "metrics"] and v["optimize"][1] == 1 and v["optimize"][2] == merged
    assert v["restore"][1] == first
    assert v["vacuum"] == [None, first]
    assert v["upgradeTableProtocol"][0] is None and v["upgradeTableProtocol"][1] >= 4
    if version != "15.4":  # 15.4's client has no addFeatureSupport
        assert v["addFeatureSupport"][0] is None and v["addFeatureSupport"][1] == 7
    assert v["clone"] == first
    history = v["history"]
    assert {"CREATE TABLE", "WRITE", "DELETE", "UPDATE", "MERGE", "OPTIMIZE", "RESTORE"} <= set(history), history
    assert history[-1] == "CREATE TABLE"
    # What DeltaTable changed is what the SQL warehouse reads.
    assert sql(w, f"SELECT id, v FROM main.{schema}.dt ORDER BY id") == [[str(i), c] for i, c in first]
