"""Lakeflow Declarative Pipelines with the Python SDK: pipelines defined in workspace files, updates that run
on Spark Declarative Pipelines (the warm Spark Connect server), their events, and their tables read back
through the Statement Execution API. The tests that run Spark skip when the Spark install (with MiniLake's
plugin jar) is missing: run `bash packages/engine-spark/install.sh`; CI installs it."""
import base64
import json
import os
import time

import pytest
import requests
from databricks.sdk.service import jobs, pipelines, workspace

from conftest import ROOT, Server, unique

_versions = json.load(open(os.path.join(ROOT, "packages", "engine-spark", "versions.json")))
_install = os.path.join(
    os.environ.get("MINILAKE_CACHE") or os.path.expanduser("~/.cache/minilake"),
    f"spark-{_versions['pyspark']}-delta-{_versions['deltaSpark']}",
)
needs_spark = pytest.mark.skipif(
    not os.path.exists(os.path.join(_install, "uc-catalog", "minilake-uc-spark.jar")),
    reason="the Spark install or its Unity Catalog plugin is missing: run bash packages/engine-spark/install.sh",
)
TERMINAL = {"COMPLETED", "FAILED", "CANCELED"}


def put(w, path, text, language):
    w.workspace.mkdirs(os.path.dirname(path))
    w.workspace.import_(
        path=path,
        content=base64.b64encode(text.encode()).decode(),
        format=workspace.ImportFormat.SOURCE,
        language=language,
        overwrite=True,
    )


def wait(w, pid, uid, timeout=1200):
    deadline = time.time() + timeout
    while time.time() < deadline:
        state = w.pipelines.get_update(pid, uid).update.state.value
        if state in TERMINAL:
            return state
        time.sleep(1)
    raise AssertionError(f"update {uid} did not finish in {timeout} s")


def rows(w, statement):
    r = w.statement_execution.execute_statement(warehouse_id="dev", statement=statement, wait_timeout="50s")
    assert r.status.state.value == "SUCCEEDED", r.status
    return r.result.data_array or []


def raw_events(url, pid, **params):
    """The events with their `details` (the SDK's PipelineEvent has no such field)."""
    r = requests.get(f"{url}/api/2.0/pipelines/{pid}/events", params={"max_results": 250, **params},
                     headers={"Authorization": "Bearer x"}, timeout=30)
    r.raise_for_status()
    return r.json().get("events", [])


def create(w, name, catalog, schema, include, **kw):
    return w.pipelines.create(
        name=name,
        catalog=catalog,
        schema=schema,
        serverless=True,
        development=True,
        libraries=[pipelines.PipelineLibrary(glob=pipelines.PathPattern(include=include))],
        **kw,
    ).pipeline_id


@pytest.fixture
def lake(w):
    """A fresh catalog with a schema, and the user's workspace folder."""
    cat = unique("pl")
    w.catalogs.create(name=cat)
    w.schemas.create(name="s", catalog_name=cat)
    home = f"/Workspace/Users/{w.current_user.me().user_name}/{cat}"
    return cat, home


# ---- no Spark ----


def test_settings_permissions_and_dry_run(w):
    spec = dict(name=unique("settings"), catalog="main", schema="s", channel="CURRENT", edition="ADVANCED",
                configuration={"a": "1"}, continuous=False, development=True, photon=False, serverless=True,
                libraries=[pipelines.PipelineLibrary(notebook=pipelines.NotebookLibrary(path="/Users/x/nb"))])
    dry = w.pipelines.create(dry_run=True, **spec)
    assert dry.effective_settings.name == spec["name"]
    with pytest.raises(Exception, match="was not found"):
        w.pipelines.get(dry.pipeline_id)
    pid = w.pipelines.create(**spec).pipeline_id
    got = w.pipelines.get(pid)
    assert got.spec.as_dict() == {**pipelines.PipelineSpec(**spec).as_dict(), "id": pid}
    assert got.state.value == "IDLE" and got.name == spec["name"]
    found = list(w.pipelines.list_pipelines(filter=f"name LIKE '{spec['name']}'"))
    assert [p.pipeline_id for p in found] == [pid]
    levels = w.pipelines.get_permission_levels(pid).permission_levels
    assert {l.permission_level.value for l in levels} >= {"CAN_VIEW", "CAN_RUN", "CAN_MANAGE", "IS_OWNER"}
    me = w.current_user.me().user_name
    w.pipelines.set_permissions(pid, access_control_list=[pipelines.PipelineAccessControlRequest(
        user_name=me, permission_level=pipelines.PipelinePermissionLevel.IS_OWNER), pipelines.PipelineAccessControlRequest(
        group_name="users", permission_level=pipelines.PipelinePermissionLevel.CAN_VIEW)])
    acl = w.pipelines.get_permissions(pid)
    assert acl.object_id == f"/pipelines/{pid}"
    assert any(a.group_name == "users" for a in acl.access_control_list)
    w.pipelines.delete(pid)
    with pytest.raises(Exception, match="was not found"):
        w.pipelines.get(pid)


@needs_spark
def test_an_update_running_when_the_server_dies_ends_failed():
    """kill -9 during an update (persistence on): after the restart the update is FAILED, saying why, and
    the supervisor took the Spark processes down with the server."""
    from databricks.sdk import WorkspaceClient

    s = Server(env={"MINILAKE_PERSIST": "1"})
    try:
        w = WorkspaceClient(host=s.url, token="dapi-x", auth_type="pat", config_file="/dev/null")
        w.catalogs.create(name="crash")
        pid = w.pipelines.create(name=unique("crash"), catalog="crash", schema="s",
                                 libraries=[pipelines.PipelineLibrary(glob=pipelines.PathPattern(
                                     include="/Workspace/Shared/nothing/**"))]).pipeline_id
        uid = w.pipelines.start_update(pid).update_id
        deadline = time.time() + 120
        while w.pipelines.get_update(pid, uid).update.state.value in ("CREATED",) and time.time() < deadline:
            time.sleep(0.1)
        s.kill9()
        s2 = Server(env={"MINILAKE_PERSIST": "1"}, data_dir=s.data_dir)
        try:
            w2 = WorkspaceClient(host=s2.url, token="dapi-x", auth_type="pat", config_file="/dev/null")
            u = w2.pipelines.get_update(pid, uid).update
            assert u.state.value == "FAILED", u
            errors = [e for e in w2.pipelines.list_pipeline_events(pid, filter="level='ERROR'") if e.error]
            assert any("MiniLake stopped while it was running" in e.error.exceptions[0].message for e in errors), errors
            assert w2.pipelines.get(pid).state.value == "IDLE"
        finally:
            s2.stop()
    finally:
        if s.proc.poll() is None:
            s.stop()


# ---- on Spark ----


@needs_spark
def test_update_events_tables_full_refresh_and_pipeline_task(w, lake, url):
    cat, home = lake
    put(w, f"{home}/src/numbers.py", '''from pyspark import pipelines as dp

@dp.materialized_view(comment="numbers")
def numbers():
    n = int(spark.conf.get("rows"))
    return spark.range(n).withColumnRenamed("id", "n")
''', workspace.Language.PYTHON)
    put(w, f"{home}/src/doubled.sql", "CREATE MATERIALIZED VIEW doubled AS SELECT n * 2 AS x FROM numbers",
        workspace.Language.SQL)
    pid = create(w, unique("nums"), cat, "s", f"{home}/src/**", configuration={"rows": "10"})
    uid = w.pipelines.start_update(pid).update_id
    assert wait(w, pid, uid) == "COMPLETED"
    assert rows(w, f"SELECT count(*) FROM {cat}.s.numbers") == [["10"]]
    assert rows(w, f"SELECT sum(x) FROM {cat}.s.doubled") == [["90"]]
    t = w.tables.get(f"{cat}.s.doubled")
    assert t.table_type.value == "MATERIALIZED_VIEW" and t.data_source_format.value == "DELTA"

    events = list(w.pipelines.list_pipeline_events(pid, filter=f"update_id = '{uid}'", order_by=["timestamp asc"]))
    states = [e.message.split(" is ")[-1].rstrip(".") for e in events if e.event_type == "update_progress"]
    assert states == ["CREATED", "WAITING_FOR_RESOURCES", "INITIALIZING", "SETTING_UP_TABLES", "RUNNING", "COMPLETED"]
    detailed = raw_events(url, pid, filter="event_type = 'flow_progress'")
    done = [e for e in detailed if e["details"]["flow_progress"]["status"] == "COMPLETED"]
    assert {e["origin"]["flow_name"] for e in done} == {f"{cat}.s.numbers", f"{cat}.s.doubled"}
    assert all(e["details"]["flow_progress"]["metrics"]["num_output_rows"] == 10 for e in done)
    kinds = {e["origin"]["dataset_name"]: e["details"]["dataset_definition"]["dataset_type"]
             for e in raw_events(url, pid, filter="event_type = 'dataset_definition'")}
    assert kinds == {f"{cat}.s.numbers": "MATERIALIZED_VIEW", f"{cat}.s.doubled": "MATERIALIZED_VIEW"}
    # What each flow reads, as Databricks' flow_definition names it (the UI draws the graph's edges from it).
    reads = {e["origin"]["flow_name"]: e["details"]["flow_definition"].get("input_datasets", [])
             for e in raw_events(url, pid, filter=f"update_id = '{uid}' AND event_type = 'flow_definition'")}
    assert reads == {f"{cat}.s.numbers": [], f"{cat}.s.doubled": [f"{cat}.s.numbers"]}

    # Edit (a full replace) and a full refresh: the code reads the new configuration.
    spec = w.pipelines.get(pid).spec
    w.pipelines.update(pid, name=spec.name, catalog=cat, schema="s", serverless=True, development=True,
                       libraries=spec.libraries, configuration={"rows": "20"})
    uid2 = w.pipelines.start_update(pid, full_refresh=True).update_id
    assert wait(w, pid, uid2) == "COMPLETED"
    assert rows(w, f"SELECT count(*) FROM {cat}.s.numbers") == [["20"]]
    assert w.pipelines.get_update(pid, uid2).update.full_refresh
    assert [u.update_id for u in w.pipelines.list_updates(pid).updates][:2] == [uid2, uid]

    # A job's pipeline_task runs an update and succeeds with it.
    job = w.jobs.create(name=unique("refresh"), tasks=[jobs.Task(
        task_key="refresh", pipeline_task=jobs.PipelineTask(pipeline_id=pid, full_refresh=False))])
    run = w.jobs.run_now_and_wait(job.job_id, timeout=__import__("datetime").timedelta(minutes=20))
    assert run.state.result_state.value == "SUCCESS", run.state
    assert w.pipelines.list_updates(pid).updates[0].cause.value == "JOB_TASK"

    # Deleting the pipeline drops its datasets (cascade is Databricks' default).
    w.pipelines.delete(pid)
    assert not [x for x in w.tables.list(cat, "s") if x.name in ("numbers", "doubled")]


@needs_spark
def test_a_failing_flow_fails_the_update_naming_file_and_line(w, lake):
    cat, home = lake
    # A workspace file (not a notebook, whose exported source gains a header line): lines are the file's.
    w.workspace.mkdirs(f"{home}/bad")
    w.workspace.upload(f"{home}/bad/bad.py", b'''from pyspark import pipelines as dp


@dp.materialized_view
def bad():
    raise ValueError("boom from the user code")
''', format=workspace.ImportFormat.AUTO)
    assert w.workspace.get_status(f"{home}/bad/bad.py").object_type.value == "FILE"
    pid = create(w, unique("bad"), cat, "s", f"{home}/bad/**")
    uid = w.pipelines.start_update(pid).update_id
    assert wait(w, pid, uid) == "FAILED"
    errors = [e for e in w.pipelines.list_pipeline_events(pid, filter="level='ERROR'") if e.error]
    frames = [f for e in errors for x in e.error.exceptions if "boom from the user code" in x.message
              for f in (x.stack or []) if f.file_name.endswith("/bad/bad.py")]
    assert frames, errors
    assert frames[0].line_number == 6 and frames[0].file_name.startswith("/Workspace/"), frames
    assert "boom" in (w.pipelines.get(pid).cause or "")


@needs_spark
def test_expectations_auto_cdc_and_auto_loader(w, lake, url):
    cat, home = lake
    w.volumes.create(catalog_name=cat, schema_name="s", name="raw", volume_type=__import__(
        "databricks.sdk.service.catalog", fromlist=["VolumeType"]).VolumeType.MANAGED)
    w.files.upload(f"/Volumes/{cat}/s/raw/landing/a.csv", __import__("io").BytesIO(b"id,name\n1,a\n2,b\n"))
    put(w, f"{home}/src/quality.py", f'''import dlt
from pyspark import pipelines as dp
from pyspark.sql.types import IntegerType, StringType, StructField, StructType

@dlt.table
@dlt.expect("positive", "n > 0")
@dlt.expect_or_drop("even", "n % 2 = 0")
def checked():
    return spark.range(10).withColumnRenamed("id", "n")

@dp.table
def landing():
    return (spark.readStream.format("cloudFiles").option("cloudFiles.format", "csv")
            .option("header", "true").load("/Volumes/{cat}/s/raw/landing"))

CDC = StructType([StructField("id", IntegerType()), StructField("name", StringType()),
                  StructField("seq", IntegerType()), StructField("op", StringType())])

@dp.materialized_view
def changes():
    return spark.createDataFrame([(1, "a", 1, "UPSERT"), (1, "b", 2, "UPSERT"), (2, "x", 1, "UPSERT"),
                                  (2, None, 3, "DELETE")], CDC)

dp.create_streaming_table("people_scd1")
dp.create_auto_cdc_flow(target="people_scd1", source="changes", keys=["id"], sequence_by="seq",
                        apply_as_deletes="op = 'DELETE'", except_column_list=["op", "seq"])
''', workspace.Language.PYTHON)
    put(w, f"{home}/src/cdc.sql", '''CREATE OR REFRESH STREAMING TABLE people_scd2;
APPLY CHANGES INTO LIVE.people_scd2 FROM STREAM(LIVE.changes) KEYS (id)
  APPLY AS DELETE WHEN op = "DELETE" SEQUENCE BY seq COLUMNS * EXCEPT (op, seq) STORED AS SCD TYPE 2;
CREATE OR REFRESH STREAMING TABLE landing_copy (CONSTRAINT has_name EXPECT (name IS NOT NULL))
  AS SELECT * FROM STREAM(landing);
''', workspace.Language.SQL)
    pid = create(w, unique("quality"), cat, "s", f"{home}/src/**")
    uid = w.pipelines.start_update(pid).update_id
    assert wait(w, pid, uid) == "COMPLETED"

    assert rows(w, f"SELECT n FROM {cat}.s.checked ORDER BY n") == [["0"], ["2"], ["4"], ["6"], ["8"]]
    done = [e for e in raw_events(url, pid, filter="event_type = 'flow_progress'")
            if e["details"]["flow_progress"]["status"] == "COMPLETED"
            and e["origin"]["flow_name"] == f"{cat}.s.checked"]
    dq = done[0]["details"]["flow_progress"]["data_quality"]
    assert dq["dropped_records"] == 5
    assert {x["name"]: (x["passed_records"], x["failed_records"]) for x in dq["expectations"]} == {
        "positive": (9, 1), "even": (5, 5)}

    assert rows(w, f"SELECT id, name FROM {cat}.s.people_scd1 ORDER BY id") == [["1", "b"]]
    assert rows(w, f"SELECT id, name, __START_AT, __END_AT FROM {cat}.s.people_scd2 ORDER BY id, __START_AT") == [
        ["1", "a", "1", "2"], ["1", "b", "2", None], ["2", "x", "1", "3"]]
    assert w.tables.get(f"{cat}.s.people_scd2").table_type.value == "STREAMING_TABLE"
    assert rows(w, f"SELECT count(*) FROM {cat}.s.landing_copy") == [["2"]]

    # Auto Loader picks up only the new file in the next update.
    w.files.upload(f"/Volumes/{cat}/s/raw/landing/b.csv", __import__("io").BytesIO(b"id,name\n3,c\n4,d\n"))
    uid2 = w.pipelines.start_update(pid).update_id
    assert wait(w, pid, uid2) == "COMPLETED"
    assert rows(w, f"SELECT id FROM {cat}.s.landing ORDER BY id") == [["1"], ["2"], ["3"], ["4"]]
    assert rows(w, f"SELECT count(*) FROM {cat}.s.landing_copy") == [["4"]]
    landing_done = [e for e in raw_events(url, pid, filter=f"update_id = '{uid2}' AND event_type = 'flow_progress'")
                    if e["origin"]["flow_name"] == f"{cat}.s.landing"
                    and e["details"]["flow_progress"]["status"] == "COMPLETED"]
    assert landing_done[0]["details"]["flow_progress"]["metrics"]["num_output_rows"] == 2


@needs_spark
def test_stop_cancels_the_running_update(w, lake):
    cat, home = lake
    put(w, f"{home}/slow/slow.py", '''import time
from pyspark import pipelines as dp
from pyspark.sql.functions import udf

@udf("long")
def slowly(x):
    time.sleep(1)
    return x

@dp.materialized_view
def slow():
    return spark.range(600).repartition(2).select(slowly("id").alias("id"))
''', workspace.Language.PYTHON)
    pid = create(w, unique("slow"), cat, "s", f"{home}/slow/**")
    uid = w.pipelines.start_update(pid).update_id
    deadline = time.time() + 900
    while w.pipelines.get_update(pid, uid).update.state.value != "RUNNING":
        assert time.time() < deadline and w.pipelines.get_update(pid, uid).update.state.value not in TERMINAL
        time.sleep(0.5)
    t0 = time.time()
    w.pipelines.stop_and_wait(pid)
    took = time.time() - t0
    assert w.pipelines.get_update(pid, uid).update.state.value == "CANCELED"
    assert took < 5, f"stop took {took:.1f} s"
    # The run was interrupted on the Spark Connect server: nothing was written afterwards.
    time.sleep(2)
    assert not [x for x in w.tables.list(cat, "s") if x.name == "slow" and rows(w, f"SELECT count(*) FROM {cat}.s.slow") != [["0"]]]
    # Its Spark job was cancelled too, also when it started after the stop (Spark never cancels a batch flow's
    # write): the slow job would hold both task slots for 300 s, and the next update would wait behind it.
    put(w, f"{home}/after/after.py", '''from pyspark import pipelines as dp

@dp.materialized_view
def after_stop():
    return spark.range(3)
''', workspace.Language.PYTHON)
    nxt = create(w, unique("after-stop"), cat, "s", f"{home}/after/**")
    t0 = time.time()
    assert wait(w, nxt, w.pipelines.start_update(nxt).update_id, timeout=200) == "COMPLETED"
    assert time.time() - t0 < 150, f"the next update took {time.time() - t0:.0f} s: the stopped one still ran"


@needs_spark
def test_validate_only_checks_the_graph_without_writing(w, lake):
    cat, home = lake
    put(w, f"{home}/v/v.py", '''from pyspark import pipelines as dp

@dp.materialized_view
def checked_only():
    return spark.range(3)
''', workspace.Language.PYTHON)
    pid = create(w, unique("validate"), cat, "s", f"{home}/v/**")
    uid = w.pipelines.start_update(pid, validate_only=True).update_id
    assert wait(w, pid, uid) == "COMPLETED"
    assert w.pipelines.get_update(pid, uid).update.validate_only
    assert not [x for x in w.tables.list(cat, "s") if x.name == "checked_only"]


@needs_spark
def test_sql_warehouse_materialized_view_runs_as_a_pipeline(w, lake):
    """CREATE MATERIALIZED VIEW in the SQL warehouse runs a pipeline (as Databricks SQL does); REFRESH runs it
    again; DROP MATERIALIZED VIEW takes the table and its pipeline away."""
    cat, _ = lake

    def run(statement):
        r = w.statement_execution.execute_statement(warehouse_id="dev", statement=statement, wait_timeout="5s",
                                                    on_wait_timeout=__import__(
                                                        "databricks.sdk.service.sql", fromlist=["x"]
                                                    ).ExecuteStatementRequestOnWaitTimeout.CONTINUE)
        deadline = time.time() + 1200
        while r.status.state.value in ("PENDING", "RUNNING"):
            assert time.time() < deadline
            time.sleep(1)
            r = w.statement_execution.get_statement(r.statement_id)
        assert r.status.state.value == "SUCCEEDED", r.status
        return r

    run(f"CREATE MATERIALIZED VIEW {cat}.s.trip_count AS SELECT count(*) AS n FROM samples.nyctaxi.trips")
    assert rows(w, f"SELECT n FROM {cat}.s.trip_count") == [["21932"]]
    t = w.tables.get(f"{cat}.s.trip_count")
    assert t.table_type.value == "MATERIALIZED_VIEW"
    pid = t.as_dict()["pipeline_id"]
    assert w.pipelines.get(pid).spec.catalog == cat
    run(f"REFRESH MATERIALIZED VIEW {cat}.s.trip_count")
    assert len(w.pipelines.list_updates(pid).updates) == 2
    run(f"DROP MATERIALIZED VIEW {cat}.s.trip_count")
    assert not [x for x in w.tables.list(cat, "s") if x.name == "trip_count"]
    with pytest.raises(Exception, match="was not found"):
        w.pipelines.get(pid)


@needs_spark
def test_a_pipeline_cannot_publish_into_samples(w):
    """A pipeline whose target is the read-only samples catalog (the first hour, issue 32): its update fails with
    Unity Catalog's refusal, and samples is as it was."""
    home = f"/Users/{w.current_user.me().user_name}/{unique('plsamples')}"
    w.workspace.mkdirs(home)
    put(w, f"{home}/mine.sql", "CREATE MATERIALIZED VIEW mine AS SELECT 1 AS a", workspace.Language.SQL)
    pid = w.pipelines.create(name=unique("into-samples"), catalog="samples", schema="tpch", serverless=True,
                             development=True, libraries=[pipelines.PipelineLibrary(
                                 file=pipelines.FileLibrary(path=f"{home}/mine.sql"))]).pipeline_id
    uid = w.pipelines.start_update(pid).update_id
    assert wait(w, pid, uid) == "FAILED"
    errors = [e.message for e in w.pipelines.list_pipeline_events(pid, filter="level='ERROR'")]
    assert any("User does not have MODIFY on Catalog 'samples': the samples catalog is read-only." in m for m in errors), errors
    assert "mine" not in {t.name for t in w.tables.list("samples", "tpch")}
