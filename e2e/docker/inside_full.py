"""Runs inside the full image's container (docker exec ... python - < this file), with no network but the
container's own loopback, as a user's client would: the real databricks-sdk from the image's Spark venv
against the MiniLake in the same container. Prints one JSON line per step: {"step", "ok", "ms", "detail"}."""
import json
import os
import sys
import time
import traceback

from databricks.sdk import WorkspaceClient
from databricks.sdk.service import jobs

HOST = f"http://127.0.0.1:{os.environ.get('MINILAKE_PORT', '8000')}"
w = WorkspaceClient(host=HOST, token="dapi-air-gapped", auth_type="pat", config_file="/dev/null")
ME = w.current_user.me().user_name
HOME = f"/Workspace/Users/{ME}"
ONLY = set(sys.argv[1:])


def step(name):
    def wrap(fn):
        if ONLY and name not in ONLY:
            return fn
        t0 = time.time()
        try:
            detail = fn()
            ok = True
        except Exception as e:  # noqa: BLE001 - reported, not raised: every step runs
            detail = f"{type(e).__name__}: {e}"[:1500] + "\n" + traceback.format_exc()[-1500:]
            ok = False
        print(json.dumps({"step": name, "ok": ok, "ms": int((time.time() - t0) * 1000), "detail": detail}),
              flush=True)
        return fn
    return wrap


def sql(statement):
    r = w.statement_execution.execute_statement(warehouse_id="dev", statement=statement, wait_timeout="50s")
    assert r.status.state.value == "SUCCEEDED", (statement, r.status)
    return r.result.data_array if r.result else None


def upload(path, text):
    import base64
    from databricks.sdk.service.workspace import ImportFormat, Language
    w.workspace.import_(path, content=base64.b64encode(text.encode()).decode(), format=ImportFormat.SOURCE,
                        language=Language.PYTHON, overwrite=True)


def run_task(name, file, params, classic=False):
    """A job with one spark_python_task: serverless (the warm Spark Connect server), or classic (a new
    job cluster: spark-submit)."""
    from databricks.sdk.service import compute
    cluster = compute.ClusterSpec(spark_version="15.4.x-scala2.12", num_workers=0,
                                  spark_conf={"spark.sql.shuffle.partitions": "1"}) if classic else None
    job = w.jobs.create(name=name, tasks=[jobs.Task(task_key="t", spark_python_task=jobs.SparkPythonTask(
        python_file=file, parameters=params), new_cluster=cluster)])
    run = w.jobs.run_now_and_wait(job.job_id, timeout=__import__("datetime").timedelta(minutes=10))
    state = run.state
    assert state.result_state == jobs.RunResultState.SUCCESS, (state.life_cycle_state, state.result_state,
                                                              state.state_message)
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    return out.logs


@step("sql")
def _():
    assert sql("SELECT 1") == [["1"]]
    sql("CREATE CATALOG IF NOT EXISTS air")
    sql("CREATE SCHEMA IF NOT EXISTS air.s")
    sql("CREATE TABLE air.s.t (id INT, name STRING)")
    sql("INSERT INTO air.s.t VALUES (1, 'a'), (2, 'b')")
    assert sql("SELECT count(*) FROM air.s.t") == [["2"]]
    return "SELECT 1; catalog, schema, table, INSERT, SELECT"


@step("spark-job-writes-delta-sql-reads")
def _():
    loc = "/tmp/air/from_spark"
    upload(f"{HOME}/write_delta.py", "import sys\nfrom pyspark.sql import SparkSession\n"
           "spark = SparkSession.builder.getOrCreate()\n"
           "spark.range(5).write.format('delta').mode('overwrite').save(sys.argv[1])\nprint('wrote', sys.argv[1])\n")
    logs = run_task("air-write", f"{HOME}/write_delta.py", [loc])
    # Registered as the Tables API does it (what Terraform and the check do).
    w.api_client.do("POST", "/api/2.1/unity-catalog/tables", body={
        "name": "from_spark", "catalog_name": "air", "schema_name": "s", "table_type": "EXTERNAL",
        "data_source_format": "DELTA", "storage_location": loc})
    assert sql("SELECT count(*), sum(id) FROM air.s.from_spark") == [["5", "10"]]
    return f"task output: {logs.strip()[-200:]}"


@step("sql-writes-delta-spark-reads")
def _():
    loc = "/tmp/air/from_sql"
    sql(f"CREATE TABLE air.s.from_sql (id INT, name STRING) USING DELTA LOCATION '{loc}'")
    sql("INSERT INTO air.s.from_sql VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    upload(f"{HOME}/read_delta.py", "from pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\n"
           "rows = spark.table('air.s.from_sql').orderBy('id').collect()\n"
           "print('rows=' + ','.join(r.name for r in rows))\n")
    logs = run_task("air-read", f"{HOME}/read_delta.py", [], classic=True)
    assert "rows=x,y,z" in logs, logs[-1500:]
    return "a classic Spark task read the SQL warehouse's Delta table by its Unity Catalog name"


@step("pipeline-update")
def _():
    """A Lakeflow pipeline (Python and SQL sources from workspace files, serverless): one update, start to
    COMPLETED, on the image's Spark; the SQL warehouse reads what it made."""
    from databricks.sdk.service import pipelines, workspace
    import base64
    src = f"{HOME}/air_pipeline"
    w.workspace.mkdirs(src)
    for name, lang, text in (
            ("numbers.py", workspace.Language.PYTHON,
             "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef numbers():\n"
             "    return spark.range(10).withColumnRenamed('id', 'n')\n"),
            ("doubled.sql", workspace.Language.SQL,
             "CREATE MATERIALIZED VIEW doubled AS SELECT n * 2 AS x FROM numbers")):
        w.workspace.import_(f"{src}/{name}", content=base64.b64encode(text.encode()).decode(),
                            format=workspace.ImportFormat.SOURCE, language=lang, overwrite=True)
    pid = w.pipelines.create(name="air-pipeline", catalog="air", schema="s", serverless=True, libraries=[
        pipelines.PipelineLibrary(glob=pipelines.PathPattern(include=f"{src}/**"))]).pipeline_id
    uid = w.pipelines.start_update(pid).update_id
    deadline = time.time() + 600
    while True:
        state = w.pipelines.get_update(pid, uid).update.state.value
        if state in ("COMPLETED", "FAILED", "CANCELED") or time.time() > deadline:
            break
        time.sleep(0.5)
    if state != "COMPLETED":
        errors = [e.message for e in w.pipelines.list_pipeline_events(pid, filter="level='ERROR'")]
        raise AssertionError(f"update {state}: {errors[:3]}")
    assert sql("SELECT count(*), sum(x) FROM air.s.doubled") == [["10", "90"]]
    return f"update {uid} COMPLETED; the warehouse reads air.s.doubled"
