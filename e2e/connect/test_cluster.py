"""Clusters that really run Spark: command execution (/api/1.2) as the Python SDK drives it, a job task on an
existing cluster sharing the cluster's Spark application with a Databricks Connect session, a terminated
cluster started by the first Connect call, and a terminated cluster's process gone."""
import os
import time

from databricks.sdk.service import compute, jobs

from conftest import client_python, unique

import subprocess


def processes_of(cluster_id):
    """PIDs whose command line names the cluster's Spark application (its driver JVM and supervisor)."""
    out = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if f"minilake-cluster-{cluster_id}".encode() in f.read():
                    out.append(int(pid))
        except OSError:
            pass
    return out


def run_py(version, code, env):
    py = client_python(version)
    full = {k: v for k, v in os.environ.items() if not k.startswith(("DATABRICKS_", "SPARK_", "PYSPARK_"))}
    full.update(env)
    p = subprocess.run([py, "-c", code], env=full, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout


def test_command_execution(w, cluster):
    ctx = w.command_execution.create_and_wait(cluster_id=cluster, language=compute.Language.PYTHON)
    run = lambda code, lang=compute.Language.PYTHON: w.command_execution.execute_and_wait(  # noqa: E731
        cluster_id=cluster, context_id=ctx.id, language=lang, command=code)
    r = run("print(spark.range(7).count())")
    assert (r.status, r.results.result_type, r.results.data.strip()) == (
        compute.CommandStatus.FINISHED, compute.ResultType.TEXT, "7")
    # State lives on between commands of a context; the cluster's spark_conf and environment are there.
    run("x = 41")
    assert run("x + 1").results.data == "42"
    assert run("import os; print(os.environ['CONNECT_SUITE'], spark.conf.get('spark.sql.shuffle.partitions'))"
               ).results.data.split() == ["yes", "4"]
    r = run("display(spark.range(3).withColumnRenamed('id', 'n'))")
    assert r.results.result_type == compute.ResultType.TABLE
    assert r.results.data == [[0], [1], [2]] and r.results.schema[0]["name"] == "n"
    r = run("1 / 0")
    assert r.status == compute.CommandStatus.FINISHED and r.results.result_type == compute.ResultType.ERROR
    assert r.results.summary.startswith("ZeroDivisionError") and "Traceback" in r.results.cause
    r = run("SELECT 1 AS a, 'x' AS b", compute.Language.SQL)
    assert r.results.data == [[1, "x"]] and [c["name"] for c in r.results.schema] == ["a", "b"]
    assert r.results.is_json_schema is True and r.results.schema[0]["type"] == '"integer"'
    # Cancel a long command: it ends Cancelled and the context stays usable.
    cmd = w.command_execution.execute(cluster_id=cluster, context_id=ctx.id, language=compute.Language.PYTHON,
                                      command="import time\ntime.sleep(120)")
    cmd_id = cmd.response.id if hasattr(cmd, "response") else cmd.id
    w.command_execution.cancel(cluster_id=cluster, context_id=ctx.id, command_id=cmd_id)
    for _ in range(300):
        st = w.command_execution.command_status(cluster_id=cluster, context_id=ctx.id, command_id=cmd_id)
        if st.status in (compute.CommandStatus.CANCELLED, compute.CommandStatus.FINISHED):
            break
        time.sleep(0.1)
    assert st.status == compute.CommandStatus.CANCELLED
    assert run("print('still here')").results.data.strip() == "still here"
    w.command_execution.destroy(cluster_id=cluster, context_id=ctx.id)


def test_job_task_shares_the_cluster_with_connect(w, server, cluster):
    """A global temp view a Connect session made is there for an existing_cluster_id task: one application."""
    view = unique("gv")
    run_py("16.1", (
        "from databricks.connect import DatabricksSession\n"
        f"s = DatabricksSession.builder.remote('sc://localhost:{server.spark_connect_port}/;"
        f"x-databricks-cluster-id={cluster}').getOrCreate()\n"
        f"s.range(3).createOrReplaceGlobalTempView('{view}')\n"), {})
    me = w.current_user.me().user_name
    path = f"/Users/{me}/{view}.py"
    import base64
    from databricks.sdk.service import workspace
    w.workspace.import_(path, content=base64.b64encode(
        f"import os\nprint('rows', spark.table('global_temp.{view}').count(), os.environ['CONNECT_SUITE'])\n".encode()).decode(),
        format=workspace.ImportFormat.AUTO, overwrite=True)
    job = w.jobs.create(name=view, tasks=[jobs.Task(task_key="t", existing_cluster_id=cluster,
                                                    spark_python_task=jobs.SparkPythonTask(python_file=path))])
    run = w.jobs.run_now_and_wait(job.job_id)
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, out.error
    assert "rows 3 yes" in out.logs


def test_lifecycle(w, server):
    """Create -> a Connect session -> terminate (process gone) -> the next Connect call starts it again."""
    c = w.clusters.create_and_wait(cluster_name=unique("life"), spark_version="16.4.x-scala2.12",
                                   node_type_id="i3.xlarge", num_workers=0)
    assert processes_of(c.cluster_id), "a RUNNING cluster has a driver process"
    events = [e.type for e in w.clusters.events(c.cluster_id)]
    assert compute.EventType.RUNNING in events and compute.EventType.DRIVER_HEALTHY in events
    w.clusters.delete_and_wait(c.cluster_id)
    assert processes_of(c.cluster_id) == []
    # A Connect session on a TERMINATED cluster starts it, as Databricks does (the client retries meanwhile).
    out = run_py("16.1", (
        "from databricks.connect import DatabricksSession\n"
        f"s = DatabricksSession.builder.remote('sc://localhost:{server.spark_connect_port}/;"
        f"x-databricks-cluster-id={c.cluster_id}').getOrCreate()\n"
        "print('answer', s.sql('SELECT 42').collect()[0][0])\n"), {})
    assert "answer 42" in out
    assert w.clusters.get(c.cluster_id).state == compute.State.RUNNING
    w.clusters.permanent_delete(c.cluster_id)
    for _ in range(100):
        if not processes_of(c.cluster_id):
            break
        time.sleep(0.1)
    assert processes_of(c.cluster_id) == []


def test_unknown_cluster_is_not_found(server):
    out = run_py("16.1", (
        "from databricks.connect import DatabricksSession\n"
        "import grpc\n"
        f"s = DatabricksSession.builder.remote('sc://localhost:{server.spark_connect_port}/;"
        "x-databricks-cluster-id=0000-000000-nosuchcl').getOrCreate()\n"
        "try:\n    s.sql('SELECT 1').collect()\nexcept Exception as e:\n    print('ERR', type(e).__name__, e)\n"), {})
    assert "ERR" in out and "does not exist" in out


def test_running_cluster_survives_a_crash(tmp_path):
    """MINILAKE_PERSIST=1 and kill -9: the driver dies with the server (its supervisor sees to it); on restart
    the cluster, persisted RUNNING, restarts its driver and serves Connect sessions again."""
    from databricks.sdk import WorkspaceClient

    from conftest import Server

    env = {"MINILAKE_CLUSTER_RUNTIME": "spark", "MINILAKE_PERSIST": "1", "MINILAKE_CLUSTER_START_DELAY": "0.2",
           "MINILAKE_CLUSTER_TERMINATE_DELAY": "0.2"}
    data = str(tmp_path / "data")
    first = Server(env=env, data_dir=data)
    try:
        w = WorkspaceClient(host=first.url, token="dapi-crash", auth_type="pat")
        c = w.clusters.create_and_wait(cluster_name=unique("crash"), spark_version="16.4.x-scala2.12",
                                       node_type_id="i3.xlarge", num_workers=0)
        assert processes_of(c.cluster_id)
    finally:
        first.kill9()
    for _ in range(100):
        if not processes_of(c.cluster_id):
            break
        time.sleep(0.1)
    assert processes_of(c.cluster_id) == [], "the driver outlived the server"
    second = Server(env=env, data_dir=data)
    try:
        w = WorkspaceClient(host=second.url, token="dapi-crash", auth_type="pat")
        assert w.clusters.wait_get_cluster_running(c.cluster_id).state == compute.State.RUNNING
        assert compute.EventType.RESTARTING in [e.type for e in w.clusters.events(c.cluster_id)]
        out = run_py("16.1", (
            "from databricks.connect import DatabricksSession\n"
            f"s = DatabricksSession.builder.remote('sc://localhost:{second.spark_connect_port}/;"
            f"x-databricks-cluster-id={c.cluster_id}').getOrCreate()\n"
            "print('answer', s.sql('SELECT 42').collect()[0][0])\n"), {})
        assert "answer 42" in out
    finally:
        second.stop()
