"""A job's Spark task reads and writes Unity Catalog tables by their three-part names with no catalog
configuration in its code: the Spark engine configures MiniLake's catalog plugin for every UC catalog.
Skipped when the Spark install (with the plugin jar) is missing: run `bash packages/engine-spark/install.sh`."""
import json
import os
import tempfile

import pytest
from databricks.sdk.service import compute, jobs
from databricks.sdk.service.workspace import ImportFormat

from conftest import ROOT, unique

_versions = json.load(open(os.path.join(ROOT, "packages", "engine-spark", "versions.json")))
_install = os.path.join(
    os.environ.get("MINILAKE_CACHE") or os.path.expanduser("~/.cache/minilake"),
    f"spark-{_versions['pyspark']}-delta-{_versions['deltaSpark']}",
)
pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(_install, "uc-catalog", "minilake-uc-spark.jar")),
    reason="the Spark install or its Unity Catalog plugin is missing: run bash packages/engine-spark/install.sh",
)


def sql(w, statement):
    r = w.statement_execution.execute_statement(statement=statement, warehouse_id="dev", wait_timeout="50s")
    assert r.status.state.value == "SUCCEEDED", r.status
    return r.result.data_array if r.result else None


def test_job_task_uses_uc_tables_by_name(w):
    cat = unique("jobuc")
    ext = tempfile.mkdtemp(prefix="jobuc-")
    w.catalogs.create(name=cat)
    w.schemas.create(name="sales", catalog_name=cat)
    sql(w, f"CREATE TABLE {cat}.sales.orders (id BIGINT, item STRING) USING DELTA LOCATION '{ext}/orders'")
    sql(w, f"INSERT INTO {cat}.sales.orders VALUES (1, 'pen'), (2, 'ink')")
    home = f"/Users/{w.current_user.me().user_name}/{unique('ucjob')}"
    w.workspace.mkdirs(home)
    script = "\n".join([
        f'before = spark.table("{cat}.sales.orders").count()',
        f"spark.sql(\"INSERT INTO {cat}.sales.orders VALUES (3, 'pad')\")",
        f'after = spark.sql("SELECT count(*) AS n FROM {cat}.sales.orders").first().n',
        'print(f"before={before} after={after}")',
    ])
    w.workspace.upload(f"{home}/uc.py", script.encode(), format=ImportFormat.AUTO, overwrite=True)
    run = w.jobs.submit_and_wait(
        run_name="uc",
        tasks=[jobs.SubmitTask(
            task_key="uc",
            spark_python_task=jobs.SparkPythonTask(python_file=f"{home}/uc.py"),
            new_cluster=compute.ClusterSpec(
                spark_version="15.4.x-scala2.12", num_workers=0,
                spark_conf={"spark.sql.shuffle.partitions": "1", "spark.databricks.delta.snapshotPartitions": "1"},
            ),
        )],
    )
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, f"{out.error}\n{out.logs}"
    assert "before=2 after=3" in out.logs
    assert sql(w, f"SELECT id, item FROM {cat}.sales.orders ORDER BY id") == [["1", "pen"], ["2", "ink"], ["3", "pad"]]


def test_job_task_reads_the_samples_catalog(w):
    """samples.* are real Delta tables: a Spark task reads them through the catalog plugin, joined and typed
    as the SQL warehouse reads them (the first reader, here Spark, has them generated)."""
    home = f"/Users/{w.current_user.me().user_name}/{unique('samples')}"
    w.workspace.mkdirs(home)
    script = "\n".join([
        "o = spark.table('samples.tpch.orders')",
        "l = spark.table('samples.tpch.lineitem')",
        "joined = l.join(o, l.l_orderkey == o.o_orderkey).count()",
        "t = spark.table('samples.nyctaxi.trips')",
        "types = ','.join(f.dataType.simpleString() for f in t.schema.fields)",
        "print(f'orders={o.count()} joined={joined} trips={t.count()} types={types}')",
    ])
    w.workspace.upload(f"{home}/samples.py", script.encode(), format=ImportFormat.AUTO, overwrite=True)
    run = w.jobs.submit_and_wait(
        run_name="samples",
        tasks=[jobs.SubmitTask(
            task_key="samples",
            spark_python_task=jobs.SparkPythonTask(python_file=f"{home}/samples.py"),
            new_cluster=compute.ClusterSpec(
                spark_version="15.4.x-scala2.12", num_workers=0,
                spark_conf={"spark.sql.shuffle.partitions": "1", "spark.databricks.delta.snapshotPartitions": "1"},
            ),
        )],
    )
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, f"{out.error}\n{out.logs}"
    joined = sql(w, "SELECT count(*) FROM samples.tpch.lineitem l JOIN samples.tpch.orders o ON l.l_orderkey = o.o_orderkey")
    assert f"orders=15000 joined={joined[0][0]} trips=21932 types=timestamp,timestamp,double,double,int,int" in out.logs
