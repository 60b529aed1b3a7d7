"""spark.read / spark.write of `dbfs:/...` and `/Volumes/<c>/<s>/<v>/...` inside a job's Spark task, on the
classic path (spark-submit, a job cluster) and the serverless one (Spark Connect): MiniLake's Hadoop file
systems map them onto the very files the DBFS and Files APIs serve, so a CSV uploaded through the Files API
is read by Spark, and what Spark writes (parquet, Delta) is seen by the Files API, the DBFS API and SQL.
Skipped when the Spark install (with minilake-fs.jar) is missing: run `bash packages/engine-spark/install.sh`."""
import io
import json
import os
import time

import pytest
from databricks.sdk.service import compute, jobs
from databricks.sdk.service.catalog import VolumeType
from databricks.sdk.service.workspace import ImportFormat

from conftest import ROOT, unique

_versions = json.load(open(os.path.join(ROOT, "packages", "engine-spark", "versions.json")))
_install = os.path.join(
    os.environ.get("MINILAKE_CACHE") or os.path.expanduser("~/.cache/minilake"),
    f"spark-{_versions['pyspark']}-delta-{_versions['deltaSpark']}",
)
pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(_install, "fs", "minilake-fs.jar")),
    reason="the Spark install or its file systems jar is missing: run bash packages/engine-spark/install.sh",
)


def sql(w, statement):
    r = w.statement_execution.execute_statement(statement=statement, warehouse_id="dev", wait_timeout="50s")
    # On a loaded machine a statement may outlast the wait: poll it to the end.
    while r.status.state.value in ("PENDING", "RUNNING"):
        time.sleep(0.5)
        r = w.statement_execution.get_statement(r.statement_id)
    assert r.status.state.value == "SUCCEEDED", r.status
    return r.result.data_array if r.result else None


SCRIPT = """
import sys
vol, dbfs = sys.argv[1], sys.argv[2]
df = spark.read.option("header", True).option("inferSchema", True).csv(vol + "/in/orders.csv")
print("read", df.count(), sorted(df.columns))
df.write.mode("overwrite").parquet(vol + "/out/orders_parquet")
df.write.format("delta").mode("overwrite").save(vol + "/out/orders_delta")
df.write.mode("overwrite").parquet(dbfs + "/orders_parquet")
back = spark.read.parquet(dbfs + "/orders_parquet")
print("dbfs back", back.count(), back.inputFiles()[0].startswith(dbfs + "/orders_parquet/"))
print("delta back", spark.read.format("delta").load(vol + "/out/orders_delta").count())
try:
    spark.read.text("dbfs:/../../../../etc/hostname").count()
    print("escaped")
except Exception as e:
    print("refused", "leaves its root" in str(e))
"""


@pytest.mark.parametrize("kind", ["serverless", "classic"])
def test_spark_reads_and_writes_dbfs_and_volume_paths(w, kind):
    cat = unique("jobfs")
    w.catalogs.create(name=cat)
    w.schemas.create(name="raw", catalog_name=cat)
    w.volumes.create(catalog_name=cat, schema_name="raw", name="landing", volume_type=VolumeType.MANAGED)
    vol = f"/Volumes/{cat}/raw/landing"
    w.files.upload(f"{vol}/in/orders.csv", io.BytesIO(b"id,item,qty\n1,pen,2\n2,ink,5\n3,pad,1\n"), overwrite=True)
    dbfs_dir = f"/{unique('jobfs')}"
    home = f"/Users/{w.current_user.me().user_name}/{unique('jobfs')}"
    w.workspace.mkdirs(home)
    w.workspace.upload(f"{home}/paths.py", SCRIPT.encode(), format=ImportFormat.AUTO, overwrite=True)
    task = jobs.SubmitTask(
        task_key="paths",
        spark_python_task=jobs.SparkPythonTask(python_file=f"{home}/paths.py", parameters=[vol, f"dbfs:{dbfs_dir}"]),
    )
    if kind == "classic":
        task.new_cluster = compute.ClusterSpec(
            spark_version="15.4.x-scala2.12", num_workers=0,
            spark_conf={"spark.sql.shuffle.partitions": "1", "spark.databricks.delta.snapshotPartitions": "1"},
        )
    run = w.jobs.submit_and_wait(run_name=f"paths-{kind}", tasks=[task])
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, f"{out.error}\n{out.logs}"
    assert "read 3 ['id', 'item', 'qty']" in out.logs
    assert "dbfs back 3 True" in out.logs
    assert "delta back 3" in out.logs
    assert "refused True" in out.logs

    # The Files API sees what Spark wrote into the volume, under the path the task used.
    names = [e.name for e in w.files.list_directory_contents(f"{vol}/out/orders_parquet")]
    assert any(n.endswith(".parquet") for n in names), names
    delta_names = [e.name for e in w.files.list_directory_contents(f"{vol}/out/orders_delta")]
    assert "_delta_log" in delta_names
    # The DBFS API sees the dbfs:/ output.
    listed = [f.path for f in w.dbfs.list(f"{dbfs_dir}/orders_parquet")]
    assert any(p.endswith(".parquet") for p in listed), listed
    # SQL reads both volume outputs.
    assert sql(w, f"SELECT sum(qty) FROM read_parquet('{vol}/out/orders_parquet/*.parquet')") == [["8"]]
    assert sql(w, f"SELECT count(*) FROM delta.`{vol}/out/orders_delta`") == [["3"]]

