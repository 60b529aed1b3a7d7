"""Databricks Connect from another container (e2e/docker/full.sh): run by the image's own Python with
databricks-connect 16.1 mounted read-only on PYTHONPATH, on a `docker network create --internal` network where
the full image answers as `minilake`. A user's session, unchanged but for the host: plain Spark Connect with
a cluster id (DatabricksSession.builder.remote("sc://minilake:15002/;x-databricks-cluster-id=...")), SQL, a
Delta table saved by name, a Python UDF, and the SQL warehouse reading that table over REST. Prints one JSON
line per step: {"step", "ok", "ms", "detail"}."""
import json
import os
import sys
import time
import traceback

HOST = os.environ.get("MINILAKE_HOST_URL", "http://minilake:8000")
SC = os.environ.get("MINILAKE_SC", "sc://minilake:15002")
state = {}


def step(name, fn):
    t0 = time.time()
    try:
        detail, ok = fn(), True
    except Exception as e:  # noqa: BLE001 - reported, not raised
        detail, ok = f"{type(e).__name__}: {e}"[:1500] + "\n" + traceback.format_exc()[-1500:], False
    print(json.dumps({"step": name, "ok": ok, "ms": int((time.time() - t0) * 1000), "detail": str(detail)}),
          flush=True)
    return ok


def cluster():
    from databricks.sdk import WorkspaceClient
    w = WorkspaceClient(host=HOST, token="dapi-internal-net", auth_type="pat", config_file="/dev/null")
    c = w.clusters.create_and_wait(cluster_name="from-another-container", spark_version="16.1.x-scala2.12",
                                   node_type_id="i3.xlarge", num_workers=0)
    state["w"], state["cluster"] = w, c.cluster_id
    return f"cluster {c.cluster_id} {c.state.value}"


def session():
    from databricks.connect import DatabricksSession
    state["spark"] = DatabricksSession.builder.remote(
        f"{SC}/;x-databricks-cluster-id={state['cluster']}").getOrCreate()
    return state["spark"].version


def work():
    from pyspark.sql.functions import udf
    spark = state["spark"]
    assert spark.sql("SELECT 6 * 7 AS a").collect()[0].a == 42
    spark.sql("CREATE SCHEMA IF NOT EXISTS main.net").collect()
    spark.createDataFrame([(1, "a"), (2, "b")], "id INT, v STRING").write.mode("overwrite").saveAsTable("main.net.t")
    plus1 = udf(lambda x: x + 1, "int")
    assert [r.y for r in spark.table("main.net.t").orderBy("id").select(plus1("id").alias("y")).collect()] == [2, 3]
    return "SQL, saveAsTable main.net.t, a Python UDF"


def warehouse_reads():
    r = state["w"].statement_execution.execute_statement(warehouse_id="dev", wait_timeout="50s",
                                                         statement="SELECT count(*), max(v) FROM main.net.t")
    assert r.result.data_array == [["2", "b"]], (r.status, r.result)
    return "the SQL warehouse reads main.net.t"


for name, fn in (("cluster", cluster), ("connect-session", session), ("connect-work", work),
                 ("warehouse-reads-connect-table", warehouse_reads)):
    if not step(name, fn):
        sys.exit(1)
