"""Issue 30, crash chaos on the Spark side: with persistence on, a Spark Connect client (pyspark, at the server's
MINILAKE_SPARK_CONNECT_PORT) appends to a managed Delta table in a burst while a pipeline update runs, and the
MiniLake process alone is killed with SIGKILL (as a crash or the OOM killer takes it: its children are not
signalled). Then:
- the Spark processes it had started go by themselves (minilake_supervise.py sees the server gone and kills its
  group), so nothing is left holding ports, files or CPU, and the restart succeeds on the same data dir;
- every append the client saw return is in the table, read by a new Spark session through MiniLake and by
  deltalake, and both read the same rows;
- the pipeline is listed, the interrupted update is FAILED (as Databricks reports a lost update), a new update
  runs to COMPLETED and its table reads back.
Skipped when the Spark install (with MiniLake's plugin jar) is missing: run bash packages/engine-spark/install.sh.
Bounded: CHAOS_SPARK_ROUNDS rounds (default 1), each a kill during the burst."""
import base64
import json
import os
import random
import shutil
import subprocess
import threading
import time

import deltalake
import pytest

from chaos import kill9_server_only, ok, req, wait_gone
from conftest import ROOT, Server

SEED = int(os.environ.get("CHAOS_SEED", "30"))
ROUNDS = int(os.environ.get("CHAOS_SPARK_ROUNDS", "1"))
ENV = {"MINILAKE_PERSIST": "1", "MINILAKE_MANAGED_FORMAT": "delta", "MINILAKE_SPARK_CONNECT_PORT": "0"}
ME = "dev@minilake.local"
TERMINAL = {"COMPLETED", "FAILED", "CANCELED"}

_versions = json.load(open(os.path.join(ROOT, "packages", "engine-spark", "versions.json")))
_install = os.path.join(
    os.environ.get("MINILAKE_CACHE") or os.path.expanduser("~/.cache/minilake"),
    f"spark-{_versions['pyspark']}-delta-{_versions['deltaSpark']}",
)
SPARK_PYTHON = os.path.join(_install, "venv", "bin", "python")  # has pyspark with its Spark Connect client
pytestmark = pytest.mark.skipif(
    not os.path.exists(os.path.join(_install, "uc-catalog", "minilake-uc-spark.jar")),
    reason="the Spark install or its Unity Catalog plugin is missing: run bash packages/engine-spark/install.sh",
)

# A Spark Connect client: one append (one Delta commit) after another, "ACK <value>" printed once it returned.
APPENDER = """
import sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(f"sc://127.0.0.1:{sys.argv[1]}").getOrCreate()
spark.sql("CREATE TABLE IF NOT EXISTS chaos.s.sp (v STRING) USING DELTA")
for i in range(100000):
    v = f"{sys.argv[2]}_{i}"
    spark.createDataFrame([(v,)], "v STRING").write.mode("append").saveAsTable("chaos.s.sp")
    print("ACK", v, flush=True)
"""
# A new Spark session through MiniLake reading a table: its values as one JSON line.
READER = """
import json, sys
from pyspark.sql import SparkSession
spark = SparkSession.builder.remote(f"sc://127.0.0.1:{sys.argv[1]}").getOrCreate()
print("ROWS", json.dumps(sorted(str(r[0]) for r in spark.table(sys.argv[2]).collect())), flush=True)
"""
PIPELINE = '''from pyspark import pipelines as dp

@dp.materialized_view
def numbers():
    return spark.range(50).withColumnRenamed("id", "n")
'''


def spark_read(port, table):
    out = subprocess.run([SPARK_PYTHON, "-c", READER, str(port), table], capture_output=True, text=True,
                         timeout=300)
    line = [x for x in out.stdout.splitlines() if x.startswith("ROWS ")]
    assert line, out.stdout[-2000:] + out.stderr[-3000:]
    return json.loads(line[0][5:])


def delta_values(url, table, column):
    s, b = req(url, "GET", f"/api/2.1/unity-catalog/tables/{table}")
    assert ok(s), b
    assert b["data_source_format"] == "DELTA", b
    return sorted(str(x) for x in deltalake.DeltaTable(b["storage_location"]).to_pyarrow_table().to_pydict()[column])


def update_state(url, pid, uid):
    s, b = req(url, "GET", f"/api/2.0/pipelines/{pid}/updates/{uid}")
    assert ok(s), b
    return b["update"]["state"]


def wait_update(url, pid, uid, states, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        st = update_state(url, pid, uid)
        if st in states:
            return st
        time.sleep(0.3)
    raise AssertionError(f"update {uid} not in {states} after {timeout} s (last {st})")


def test_kill_9_during_spark_appends_and_a_pipeline_update():
    rng = random.Random(SEED)
    s = Server(env=ENV)
    data_dir = s.data_dir
    figures = []
    appender = None
    try:
        for path, body in [("/api/2.1/unity-catalog/catalogs", {"name": "chaos"}),
                           ("/api/2.1/unity-catalog/schemas", {"catalog_name": "chaos", "name": "s"}),
                           ("/api/2.0/workspace/mkdirs", {"path": f"/Users/{ME}/chaos"}),
                           ("/api/2.0/workspace/import", {
                               "path": f"/Users/{ME}/chaos/numbers.py", "format": "SOURCE", "language": "PYTHON",
                               "content": base64.b64encode(PIPELINE.encode()).decode(), "overwrite": True})]:
            st, b = req(s.url, "POST", path, body)
            assert ok(st), (path, b)
        st, b = req(s.url, "POST", "/api/2.0/pipelines", {
            "name": "chaos", "catalog": "chaos", "schema": "s", "serverless": True, "development": True,
            "libraries": [{"glob": {"include": f"/Workspace/Users/{ME}/chaos/**"}}]})
        assert ok(st), b
        pid = b["pipeline_id"]
        acked = []

        for round_ in range(ROUNDS):
            log = os.path.join(data_dir, f"appender-{round_}.log")
            appender = subprocess.Popen([SPARK_PYTHON, "-c", APPENDER, str(s.spark_connect_port), f"r{round_}"],
                                        stdout=subprocess.PIPE, stderr=open(log, "w"), text=True)
            mine = []
            first = threading.Event()

            def read(proc=appender, mine=mine, first=first):
                for line in proc.stdout:
                    if line.startswith("ACK "):
                        mine.append(line.split()[1])
                        if len(mine) >= 3:  # a burst of commits going before the update starts
                            first.set()
            reader = threading.Thread(target=read, daemon=True)
            reader.start()
            deadline = time.monotonic() + 300  # the first append starts the Spark Connect server (a JVM)
            while not first.wait(1) and appender.poll() is None and time.monotonic() < deadline:
                pass
            assert first.is_set(), f"{len(mine)} appends acknowledged: {open(log).read()[-3000:]}"
            # The burst is going: an update starts and the kill comes while it is between CREATED and done.
            st, b = req(s.url, "POST", f"/api/2.0/pipelines/{pid}/updates", {})
            assert ok(st), b
            uid = b["update_id"]
            wait_update(s.url, pid, uid, {"INITIALIZING", "SETTING_UP_TABLES", "RUNNING"} | TERMINAL)
            time.sleep(rng.uniform(0.2, 1.5))
            at_kill = update_state(s.url, pid, uid)
            children = kill9_server_only(s)
            # The Spark JVMs and Python workers were MiniLake's children: their supervisors see the server
            # gone (a check a second) and kill their groups, so no leftover holds the data dir.
            t_kill = time.monotonic()
            left = wait_gone(children, 30)
            gone = time.monotonic() - t_kill
            assert left == [], f"processes of the killed server still running: {left}"
            # The client retries a lost server for minutes (pyspark's retry policy): stop it; what it printed
            # before is what was acknowledged.
            appender.kill()
            appender.wait(15)
            reader.join(10)
            acked += mine
            t0 = time.monotonic()
            s = Server(env=ENV, data_dir=data_dir)  # the restart must succeed
            restart = time.monotonic() - t0

            # Every acknowledged append is in the table; deltalake and a new Spark session read the same rows.
            via_delta = delta_values(s.url, "chaos.s.sp", "v")
            lost = sorted(set(acked) - set(via_delta))
            assert lost == [], f"appends acknowledged before kill -9 but gone after restart: {lost}"
            via_spark = spark_read(s.spark_connect_port, "chaos.s.sp")
            assert via_spark == via_delta

            # The pipeline is there; the update the kill interrupted ended FAILED, the next one completes.
            st, b = req(s.url, "GET", "/api/2.0/pipelines?max_results=100")
            assert pid in [p["pipeline_id"] for p in b.get("statuses", [])], b
            interrupted = update_state(s.url, pid, uid)
            assert interrupted in ({"FAILED", "CANCELED"} if at_kill not in TERMINAL else {at_kill}), interrupted
            st, b = req(s.url, "POST", f"/api/2.0/pipelines/{pid}/updates", {})
            assert ok(st), b
            assert wait_update(s.url, pid, b["update_id"], TERMINAL) == "COMPLETED"
            assert delta_values(s.url, "chaos.s.numbers", "n") == sorted(str(i) for i in range(50))
            assert spark_read(s.spark_connect_port, "chaos.s.numbers") == sorted(str(i) for i in range(50))
            figures.append(f"round {round_}: {len(mine)} Spark appends acknowledged, update {at_kill} at the kill "
                           f"then {interrupted}, {len(children)} child processes gone in {gone:.1f} s, "
                           f"restart {restart:.1f} s, {len(via_delta)} rows, 0 lost")
        print("\n".join(figures))
    finally:
        if appender is not None and appender.poll() is None:
            appender.kill()
        if s.proc.poll() is None:
            s.stop()
        shutil.rmtree(data_dir, ignore_errors=True)


# A job task's Spark program: appends one row (one Delta commit) after another to the table in argv[1] until
# the file argv[2] exists, then once more and ends; `spark` is the task's session, as on Databricks.
TASK = """
import os, sys
table, marker, tag = sys.argv[1], sys.argv[2], f"{sys.argv[3]}_{os.getpid()}"
spark.sql(f"CREATE TABLE IF NOT EXISTS {table} (v STRING) USING DELTA")
i = 0
while True:
    spark.createDataFrame([(f"{tag}_{i}",)], "v STRING").write.mode("append").saveAsTable(table)
    i += 1
    if os.path.exists(marker):
        break
print("appended", i, flush=True)
"""
ENVIRONMENTS = [{"environment_key": "default", "spec": {"environment_version": "2"}}]


def delta_version(url, table):
    """The table's Delta version, -1 while it does not exist yet."""
    s, b = req(url, "GET", f"/api/2.1/unity-catalog/tables/{table}")
    if not ok(s):
        return -1
    try:
        return deltalake.DeltaTable(b["storage_location"]).version()
    except Exception:  # noqa: BLE001 (created in UC, its first commit not written yet)
        return -1


def get_run(url, run_id):
    s, b = req(url, "GET", f"/api/2.2/jobs/runs/get?run_id={run_id}&include_history=true")
    assert ok(s), b
    return b


def wait_run(url, run_id, timeout=300):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        r = get_run(url, run_id)
        if r["status"]["state"] == "TERMINATED":
            return r
        time.sleep(0.5)
    raise AssertionError(f"run {run_id} not ended after {timeout} s: {r['state']}")


def test_kill_9_during_runs_submit_spark_tasks():
    """A runs/submit one-time run (a serverless spark_python_task, no retries) and a job's run (the same
    program, serverless too so that one Spark JVM serves both, max_retries 1) append to managed Delta tables through Spark when the MiniLake
    process alone is killed. After the restart: the one-time run ended INTERNAL_ERROR / FAILED (as a run whose
    driver was lost; never RUNNING), its task too, runs/get-output answers; the job's task is retried, as
    Databricks retries a task that ended INTERNAL_ERROR ("unsuccessful ... FAILED result_state or
    INTERNAL_ERROR life_cycle_state", max_retries' documentation), and the retry succeeds; both tables read the
    same through a new Spark session and deltalake; a new runs/submit of the same task succeeds."""
    s = Server(env=ENV)
    data_dir = s.data_dir
    marker = os.path.join(data_dir, "stop-appending")
    try:
        for path, body in [("/api/2.1/unity-catalog/catalogs", {"name": "chaos"}),
                           ("/api/2.1/unity-catalog/schemas", {"catalog_name": "chaos", "name": "s"}),
                           ("/api/2.0/workspace/mkdirs", {"path": f"/Users/{ME}/chaos"}),
                           ("/api/2.0/workspace/import", {
                               "path": f"/Users/{ME}/chaos/append.py", "format": "SOURCE", "language": "PYTHON",
                               "content": base64.b64encode(TASK.encode()).decode(), "overwrite": True})]:
            st, b = req(s.url, "POST", path, body)
            assert ok(st), (path, b)
        program = f"/Users/{ME}/chaos/append.py"

        def submit(table, tag):
            st, b = req(s.url, "POST", "/api/2.2/jobs/runs/submit", {
                "run_name": "chaos-submit", "environments": ENVIRONMENTS,
                "tasks": [{"task_key": "append", "environment_key": "default", "spark_python_task": {
                    "python_file": program, "parameters": [table, marker, tag]}}]})
            assert ok(st), b
            return b["run_id"]

        submitted = submit("chaos.s.submitted", "submit")
        st, b = req(s.url, "POST", "/api/2.2/jobs/create", {
            "name": "chaos-retry", "environments": ENVIRONMENTS,
            "tasks": [{"task_key": "append", "max_retries": 1, "environment_key": "default",
                                              "spark_python_task": {"python_file": program,
                                                                    "parameters": ["chaos.s.retried", marker, "job"]}}]})
        assert ok(st), b
        job_id = b["job_id"]
        st, b = req(s.url, "POST", "/api/2.2/jobs/run-now", {"job_id": job_id})
        assert ok(st), b
        retried = b["run_id"]

        # Killed while both tasks commit appends (each table past its first few commits).
        deadline = time.monotonic() + 300  # each task starts a Spark JVM
        while time.monotonic() < deadline:
            if min(delta_version(s.url, "chaos.s.submitted"), delta_version(s.url, "chaos.s.retried")) >= 3:
                break
            assert get_run(s.url, submitted)["state"]["life_cycle_state"] == "RUNNING"
            time.sleep(0.5)
        else:
            raise AssertionError(f"the tasks did not append: {get_run(s.url, submitted)['state']}")
        children = kill9_server_only(s)
        left = wait_gone(children, 30)
        assert left == [], f"processes of the killed server still running: {left}"
        open(marker, "w").close()  # from now on a task program appends once and ends
        s = Server(env=ENV, data_dir=data_dir)  # the restart must succeed

        # The one-time run ended as a run whose driver was lost, never RUNNING; its task likewise.
        st, b = req(s.url, "GET", "/api/2.2/jobs/runs/list?run_type=SUBMIT_RUN&limit=25")
        assert ok(st), b
        assert submitted in [r["run_id"] for r in b.get("runs", [])], b
        r = get_run(s.url, submitted)
        assert r["state"]["life_cycle_state"] == "INTERNAL_ERROR" and r["state"]["result_state"] == "FAILED", r
        assert "stopped while this run was active" in r["state"]["state_message"], r
        assert r["status"]["state"] == "TERMINATED", r
        assert r["status"]["termination_details"]["code"] == "INTERNAL_ERROR", r
        assert r["end_time"] >= r["start_time"] > 0, r
        [task] = r["tasks"]
        assert (task["state"]["life_cycle_state"], task["state"]["result_state"]) == ("INTERNAL_ERROR", "FAILED")
        assert task["status"]["state"] == "TERMINATED", task
        st, out = req(s.url, "GET", f"/api/2.2/jobs/runs/get-output?run_id={task['run_id']}")
        assert st == 200, out
        assert "stopped while this run was active" in out["error"], out

        # The job's lost task was retried by the restarted server, and its retry succeeded.
        r = wait_run(s.url, retried)
        assert (r["state"]["life_cycle_state"], r["state"]["result_state"]) == ("TERMINATED", "SUCCESS"), r
        attempts = sorted((t["attempt_number"], t["state"]["life_cycle_state"], t["state"].get("result_state"))
                          for t in r["tasks"])
        assert attempts == [(0, "INTERNAL_ERROR", "FAILED"), (1, "TERMINATED", "SUCCESS")], attempts

        # Every committed version is whole: deltalake and a new Spark session read the same rows.
        for table in ("chaos.s.submitted", "chaos.s.retried"):
            via_delta = delta_values(s.url, table, "v")
            assert via_delta and spark_read(s.spark_connect_port, table) == via_delta, table

        # The same task submitted again runs to SUCCESS and appends.
        before = len(delta_values(s.url, "chaos.s.submitted", "v"))
        r = wait_run(s.url, submit("chaos.s.submitted", "again"))
        assert r["state"]["result_state"] == "SUCCESS", r
        after = delta_values(s.url, "chaos.s.submitted", "v")
        assert len(after) == before + 1 and any(v.startswith("again_") for v in after), after
        print(f"runs/submit killed after {before} appends: INTERNAL_ERROR / FAILED; the job's task retried to "
              f"SUCCESS; {len(children)} child processes gone; tables read the same through Spark and deltalake")
    finally:
        if s.proc.poll() is None:
            s.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
