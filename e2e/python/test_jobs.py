"""Jobs through the real databricks-sdk: jobs really run on MiniLake's Spark engine.

Tests that execute Python skip only when the Spark install is missing (`bash packages/engine-spark/install.sh`
sets it up; CI runs it). The API and persistence tests run everywhere."""
import base64
import json
import time

import pytest
import requests
from databricks.sdk.errors import InvalidParameterValue, NotFound
from databricks.sdk.service import jobs
from databricks.sdk.service.workspace import ImportFormat, Language

from conftest import Server, unique

INSTALL = "bash packages/engine-spark/install.sh"


@pytest.fixture
def home(w):
    d = f"/Users/{w.current_user.me().user_name}/{unique('jobs')}"
    w.workspace.mkdirs(d)
    return d


def put(w, path, text):
    w.workspace.upload(path, text.encode(), format=ImportFormat.AUTO, overwrite=True)
    return path


def put_notebook(w, path, text):
    w.workspace.upload(path, text.encode(), language=Language.PYTHON, format=ImportFormat.SOURCE, overwrite=True)
    return path


def py_task(key, path, params=None, **kw):
    return jobs.Task(task_key=key, spark_python_task=jobs.SparkPythonTask(python_file=path, parameters=params or []), **kw)


def dep(*keys):
    return [jobs.TaskDependency(task_key=k) for k in keys]


def task_of(run, key):
    return next(t for t in run.tasks if t.task_key == key)


@pytest.fixture
def spark(w, home):
    """Skips when the Spark engine cannot run a task here (the install is missing)."""
    path = put(w, f"{home}/probe.py", "print('probe')\n")
    run = w.jobs.submit_and_wait(run_name="probe", tasks=[jobs.SubmitTask(task_key="p", spark_python_task=jobs.SparkPythonTask(python_file=path))])
    if run.state.result_state != jobs.RunResultState.SUCCESS:
        out = w.jobs.get_run_output(run.tasks[0].run_id)
        if "engine is not available" in (out.error or "") or "not part of this build" in (out.error or ""):
            pytest.skip(f"Spark is not installed here ({out.error}); run: {INSTALL}")
        pytest.fail(f"probe task failed: {out.error}\n{out.logs}")


def test_unknown_job_is_not_found_for_the_sdk(w):
    with pytest.raises(NotFound):
        w.jobs.get(987654321)
    with pytest.raises((NotFound, InvalidParameterValue)):
        w.jobs.get_run(123456789)


def test_create_get_list_update_delete(w):
    name = unique("job")
    created = w.jobs.create(
        name=name,
        tasks=[jobs.Task(task_key="c", condition_task=jobs.ConditionTask(op=jobs.ConditionTaskOp.EQUAL_TO, left="1", right="1"))],
        max_concurrent_runs=3,
    )
    job = w.jobs.get(created.job_id)
    assert job.settings.name == name and job.settings.max_concurrent_runs == 3
    assert job.settings.tasks[0].run_if == jobs.RunIf.ALL_SUCCESS
    assert [j.job_id for j in w.jobs.list(name=name)] == [created.job_id]
    w.jobs.update(created.job_id, new_settings=jobs.JobSettings(name=name + "-2"))
    assert w.jobs.get(created.job_id).settings.name == name + "-2"
    w.jobs.delete(created.job_id)
    with pytest.raises(NotFound):
        w.jobs.get(created.job_id)


def test_get_merges_task_pages(w):
    tasks = [jobs.Task(task_key=f"t{i:03}", condition_task=jobs.ConditionTask(op=jobs.ConditionTaskOp.EQUAL_TO, left="1", right="1")) for i in range(150)]
    created = w.jobs.create(name=unique("big"), tasks=tasks)
    assert len(w.jobs.get(created.job_id).settings.tasks) == 150


def test_spark_python_task_with_parameters(w, home, spark):
    path = put(w, f"{home}/ok.py", "import sys\nfrom pyspark.sql import SparkSession\nspark = SparkSession.builder.getOrCreate()\nprint('count=%d args=%s' % (spark.range(7).count(), sys.argv[1:]))\n")
    created = w.jobs.create(name=unique("py"), tasks=[py_task("main", f"/Workspace{path}", ["a", "{{job.id}}"])])
    run = w.jobs.run_now_and_wait(created.job_id)
    assert run.state.life_cycle_state == jobs.RunLifeCycleState.TERMINATED
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    assert run.status.state == jobs.RunLifecycleStateV2State.TERMINATED
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert f"count=7 args=['a', '{created.job_id}']" in out.logs


def test_each_run_calls_back_with_its_own_token(w, home, spark):
    """A task's DATABRICKS_TOKEN is its run's own: listed by token management while the run is active (owned by
    the run's identity), gone once it ended; two runs never share one."""
    path = put(w, f"{home}/token.py", """
import hashlib, json, os, urllib.request
token = os.environ["DATABRICKS_TOKEN"]
req = urllib.request.Request(os.environ["DATABRICKS_HOST"] + "/api/2.0/token-management/tokens",
                             headers={"Authorization": "Bearer " + token})
infos = json.load(urllib.request.urlopen(req))["token_infos"]
mine = [t for t in infos if t["token_id"] == hashlib.sha256(token.encode()).hexdigest()]
print(json.dumps({"id": mine[0]["token_id"] if mine else None, "comment": mine[0].get("comment") if mine else None,
                  "owner": mine[0]["owner_id"] if mine else None}))
""")
    seen = []
    for _ in range(2):
        run = w.jobs.submit_and_wait(run_name="token", tasks=[jobs.SubmitTask(task_key="t", spark_python_task=jobs.SparkPythonTask(python_file=path))])
        out = w.jobs.get_run_output(run.tasks[0].run_id)
        assert run.state.result_state == jobs.RunResultState.SUCCESS, out.error
        info = json.loads(out.logs.strip().splitlines()[-1])
        assert info["comment"] == f"Job run {run.run_id}"
        assert str(info["owner"]) == w.current_user.me().id
        assert info["id"] not in [t.token_id for t in w.token_management.list()]
        seen.append(info["id"])
    assert seen[0] != seen[1]


def test_notebook_task_widgets_and_exit(w, home, spark):
    nb = put_notebook(
        w,
        f"{home}/nb",
        "# Databricks notebook source\nname = dbutils.widgets.get('who')\nprint('hello', name)\n\n# COMMAND ----------\n\ndbutils.notebook.exit('done:' + name)\n",
    )
    created = w.jobs.create(
        name=unique("nb"),
        tasks=[jobs.Task(task_key="nb", notebook_task=jobs.NotebookTask(notebook_path=nb, base_parameters={"who": "base"}))],
    )
    run = w.jobs.run_now_and_wait(created.job_id, notebook_params={"who": "override"})
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert out.notebook_output.result == "done:override"
    exported = w.jobs.export_run(run.tasks[0].run_id)
    assert exported.views and "dbutils.notebook.exit" in exported.views[0].content


def test_diamond_dag_branches_overlap_and_task_values(w, home, spark):
    src = put(w, f"{home}/src.py", "dbutils.jobs.taskValues.set(key='n', value=21)\nprint('source done')\n")
    slow = put(w, f"{home}/slow.py", "import time, sys\ntime.sleep(4)\nprint('branch', sys.argv[1:])\n")
    sink = put(w, f"{home}/sink.py", "import sys\nn = dbutils.jobs.taskValues.get(taskKey='src', key='n')\nprint('sink got', n * 2, sys.argv[1:])\n")
    created = w.jobs.create(
        name=unique("diamond"),
        tasks=[
            py_task("src", src),
            py_task("left", slow, ["{{tasks.src.values.n}}"], depends_on=dep("src")),
            py_task("right", slow, ["r"], depends_on=dep("src")),
            py_task("sink", sink, ["{{tasks.src.values.n}}"], depends_on=dep("left", "right")),
        ],
    )
    run = w.jobs.run_now_and_wait(created.job_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    left, right = task_of(run, "left"), task_of(run, "right")
    assert left.start_time < right.end_time and right.start_time < left.end_time, "branches did not overlap"
    assert task_of(run, "sink").start_time >= max(left.end_time, right.end_time)
    assert "branch ['21']" in w.jobs.get_run_output(left.run_id).logs
    assert "sink got 42 ['21']" in w.jobs.get_run_output(task_of(run, "sink").run_id).logs


def test_failure_error_trace_run_if_and_repair(w, home, spark):
    bad = put(w, f"{home}/bad.py", "print('about to fail')\nraise ValueError('boom from the task')\n")
    ok = put(w, f"{home}/ok.py", "print('ok')\n")
    created = w.jobs.create(
        name=unique("fail"),
        tasks=[
            py_task("bad", bad),
            py_task("after", ok, depends_on=dep("bad")),
            py_task("always", ok, depends_on=dep("bad"), run_if=jobs.RunIf.ALL_DONE),
        ],
    )
    run = w.jobs.run_now_and_wait(created.job_id)
    assert run.state.life_cycle_state == jobs.RunLifeCycleState.TERMINATED
    assert run.state.result_state == jobs.RunResultState.FAILED
    states = {t.task_key: t.state.result_state for t in run.tasks}
    assert states == {"bad": jobs.RunResultState.FAILED, "after": jobs.RunResultState.UPSTREAM_FAILED, "always": jobs.RunResultState.SUCCESS}
    out = w.jobs.get_run_output(task_of(run, "bad").run_id)
    assert "about to fail" in out.logs
    assert "boom from the task" in out.error
    assert "Traceback" in out.error_trace and "ValueError" in out.error_trace
    # fix the script, then repair: the failed task and its dependent run again
    put(w, bad, "print('fixed')\n")
    w.jobs.repair_run_and_wait(run.run_id, rerun_all_failed_tasks=True, rerun_dependent_tasks=True)
    repaired = w.jobs.get_run(run.run_id)
    assert repaired.state.result_state == jobs.RunResultState.SUCCESS
    assert {t.task_key: t.state.result_state for t in repaired.tasks}["after"] == jobs.RunResultState.SUCCESS


def test_cancel_kills_the_running_task(w, home, spark):
    slow = put(w, f"{home}/slow.py", "import time\nprint('sleeping', flush=True)\ntime.sleep(120)\n")
    created = w.jobs.create(name=unique("slow"), tasks=[py_task("s", slow)])
    run_id = w.jobs.run_now(created.job_id).run_id
    deadline = time.time() + 120
    while time.time() < deadline:
        r = w.jobs.get_run(run_id)
        if r.tasks[0].state.life_cycle_state == jobs.RunLifeCycleState.RUNNING:
            break
        time.sleep(0.2)
    t0 = time.time()
    w.jobs.cancel_run(run_id)
    while w.jobs.get_run(run_id).state.life_cycle_state != jobs.RunLifeCycleState.TERMINATED:
        assert time.time() - t0 < 5, "cancel took longer than 5 s"
        time.sleep(0.1)
    r = w.jobs.get_run(run_id)
    assert r.state.result_state == jobs.RunResultState.CANCELED


def test_runs_submit_and_timeout(w, home, spark):
    ok = put(w, f"{home}/ok.py", "print('one-time')\n")
    run = w.jobs.submit_and_wait(run_name="once", tasks=[jobs.SubmitTask(task_key="t", spark_python_task=jobs.SparkPythonTask(python_file=ok))])
    assert run.run_type == jobs.RunType.SUBMIT_RUN and run.state.result_state == jobs.RunResultState.SUCCESS
    assert "one-time" in w.jobs.get_run_output(run.tasks[0].run_id).logs
    slow = put(w, f"{home}/slow.py", "import time\ntime.sleep(60)\n")
    created = w.jobs.create(name=unique("timeout"), tasks=[py_task("s", slow, timeout_seconds=3)])
    run = w.jobs.run_now_and_wait(created.job_id)
    assert task_of(run, "s").state.result_state == jobs.RunResultState.TIMEDOUT


def test_active_run_after_kill9_ends_internal_error(tmp_path):
    data = str(tmp_path / "data")
    env = {"MINILAKE_PERSIST": "1", "MINILAKE_DATA_DIR": data}
    s = Server(env=env)
    try:
        api = lambda m, p, **kw: requests.request(m, s.url + p, timeout=30, **kw)  # noqa: E731
        child = api("POST", "/api/2.2/jobs/create", json={"name": "child", "max_concurrent_runs": 0, "queue": {"enabled": True},
                                                          "tasks": [{"task_key": "c", "condition_task": {"op": "EQUAL_TO", "left": "1", "right": "1"}}]}).json()
        parent = api("POST", "/api/2.2/jobs/create", json={"name": "parent", "tasks": [{"task_key": "call", "run_job_task": {"job_id": child["job_id"]}}]}).json()
        run = api("POST", "/api/2.2/jobs/run-now", json={"job_id": parent["job_id"]}).json()
        assert api("GET", f"/api/2.2/jobs/runs/get?run_id={run['run_id']}").json()["state"]["life_cycle_state"] == "RUNNING"
        s.proc.kill()
        s.proc.wait(10)
        s2 = Server(env=env)
        try:
            r = requests.get(f"{s2.url}/api/2.2/jobs/runs/get?run_id={run['run_id']}", timeout=30).json()
            assert r["state"]["life_cycle_state"] == "INTERNAL_ERROR"
            assert "stopped" in r["state"]["state_message"]
            assert r["status"]["state"] == "TERMINATED"
            assert requests.get(f"{s2.url}/api/2.2/jobs/get?job_id={parent['job_id']}", timeout=30).status_code == 200
        finally:
            s2.proc.kill()
            s2.proc.wait(10)
    finally:
        if s.proc.poll() is None:
            s.proc.kill()


def test_queued_run_survives_kill9_and_starts_after_restart(tmp_path):
    data = str(tmp_path / "data")
    env = {"MINILAKE_PERSIST": "1", "MINILAKE_DATA_DIR": data}
    s = Server(env=env)
    try:
        api = lambda m, p, **kw: requests.request(m, s.url + p, timeout=30, **kw)  # noqa: E731
        # The child never gets room (max 0), so a run of the parent stays RUNNING and the next one QUEUED.
        child = api("POST", "/api/2.2/jobs/create", json={"name": "child", "max_concurrent_runs": 0, "queue": {"enabled": True},
                                                          "tasks": [{"task_key": "c", "condition_task": {"op": "EQUAL_TO", "left": "1", "right": "1"}}]}).json()
        parent = api("POST", "/api/2.2/jobs/create", json={"name": "parent", "max_concurrent_runs": 1, "queue": {"enabled": True},
                                                           "tasks": [{"task_key": "call", "run_job_task": {"job_id": child["job_id"]}}]}).json()
        first = api("POST", "/api/2.2/jobs/run-now", json={"job_id": parent["job_id"]}).json()
        second = api("POST", "/api/2.2/jobs/run-now", json={"job_id": parent["job_id"]}).json()
        assert api("GET", f"/api/2.2/jobs/runs/get?run_id={second['run_id']}").json()["state"]["life_cycle_state"] == "QUEUED"
        s.proc.kill()
        s.proc.wait(10)
        s2 = Server(env=env)
        try:
            get = lambda rid: requests.get(f"{s2.url}/api/2.2/jobs/runs/get?run_id={rid}", timeout=30).json()  # noqa: E731
            assert get(first["run_id"])["state"]["life_cycle_state"] == "INTERNAL_ERROR"
            deadline = time.time() + 20
            while get(second["run_id"])["state"]["life_cycle_state"] == "QUEUED" and time.time() < deadline:
                time.sleep(0.1)
            r = get(second["run_id"])
            assert r["state"]["life_cycle_state"] == "RUNNING", r["state"]
            assert r["status"]["state"] == "RUNNING"
        finally:
            s2.proc.kill()
            s2.proc.wait(10)
    finally:
        if s.proc.poll() is None:
            s.proc.kill()


def test_job_permissions_have_one_owner(w):
    created = w.jobs.create(name=unique("perm"), tasks=[jobs.Task(task_key="c", condition_task=jobs.ConditionTask(op=jobs.ConditionTaskOp.EQUAL_TO, left="1", right="1"))])
    me = w.current_user.me().user_name
    perms = w.jobs.get_permissions(str(created.job_id))
    owners = [a for a in perms.access_control_list if any(p.permission_level == jobs.JobPermissionLevel.IS_OWNER for p in a.all_permissions)]
    assert [a.user_name for a in owners] == [me]
    w.jobs.set_permissions(str(created.job_id), access_control_list=[
        jobs.JobAccessControlRequest(user_name=me, permission_level=jobs.JobPermissionLevel.IS_OWNER),
        jobs.JobAccessControlRequest(group_name="users", permission_level=jobs.JobPermissionLevel.CAN_VIEW),
    ])
    levels = {(a.user_name or a.group_name): a.all_permissions[0].permission_level for a in w.jobs.get_permissions(str(created.job_id)).access_control_list}
    assert levels["users"] == jobs.JobPermissionLevel.CAN_VIEW
    with pytest.raises(Exception):
        w.jobs.get_permissions("987654321")
    # an access_control_list on create becomes the job's permissions
    acl = w.jobs.create(name=unique("perm2"), access_control_list=[jobs.JobAccessControlRequest(group_name="users", permission_level=jobs.JobPermissionLevel.CAN_MANAGE_RUN)],
                        tasks=[jobs.Task(task_key="c", condition_task=jobs.ConditionTask(op=jobs.ConditionTaskOp.EQUAL_TO, left="1", right="1"))])
    levels = {(a.user_name or a.group_name): a.all_permissions[0].permission_level for a in w.jobs.get_permissions(str(acl.job_id)).access_control_list}
    assert levels["users"] == jobs.JobPermissionLevel.CAN_MANAGE_RUN and levels[me] == jobs.JobPermissionLevel.IS_OWNER


def test_existing_cluster_applies_its_env_and_is_started(w, home, spark):
    from databricks.sdk.service import compute

    cluster = w.clusters.create_and_wait(
        cluster_name=unique("jobs"), spark_version="15.4.x-scala2.12", node_type_id="i3.xlarge", num_workers=0,
        spark_env_vars={"GREETING": "from-the-cluster"},
    )
    w.clusters.delete_and_wait(cluster.cluster_id)  # terminated: the task must start it, as Databricks does
    show = put(w, f"{home}/env.py", "import os\nprint('greeting=' + os.environ['GREETING'])\n")
    created = w.jobs.create(name=unique("cl"), tasks=[py_task("t", show, existing_cluster_id=cluster.cluster_id)])
    run = w.jobs.run_now_and_wait(created.job_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    assert run.tasks[0].cluster_instance.cluster_id == cluster.cluster_id
    assert "greeting=from-the-cluster" in w.jobs.get_run_output(run.tasks[0].run_id).logs
    assert w.clusters.get(cluster.cluster_id).state == compute.State.RUNNING


def test_sql_task_file_runs_on_the_sql_engine(w, home):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small").id
    cat = unique("jobs_cat")
    w.catalogs.create(cat)
    sql = put(w, f"{home}/load.sql", f"CREATE TABLE {cat}.default.loaded AS SELECT 42 AS answer")
    created = w.jobs.create(name=unique("sql"), tasks=[jobs.Task(task_key="q", sql_task=jobs.SqlTask(warehouse_id=wh, file=jobs.SqlTaskFile(path=sql)))])
    run = w.jobs.run_now_and_wait(created.job_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, w.jobs.get_run_output(run.tasks[0].run_id).error
    r = w.statement_execution.execute_statement(warehouse_id=wh, statement=f"SELECT answer FROM {cat}.default.loaded")
    assert r.result.data_array == [["42"]]


def _wheel(name, version, module_src, entry):
    """A minimal pure-Python wheel, built by hand (no build backend needed)."""
    import hashlib
    import io
    import zipfile

    dist = f"{name}-{version}.dist-info"
    files = {
        f"{name}/__init__.py": "",
        f"{name}/main.py": module_src,
        f"{dist}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{dist}/WHEEL": "Wheel-Version: 1.0\nGenerator: minilake-test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
        f"{dist}/entry_points.txt": f"[console_scripts]\n{entry} = {name}.main:main\n",
    }
    record = []
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for path, text in files.items():
            data = text.encode()
            z.writestr(path, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{path},sha256={digest},{len(data)}")
        record.append(f"{dist}/RECORD,,")
        z.writestr(f"{dist}/RECORD", "\n".join(record) + "\n")
    return buf.getvalue()


def test_python_wheel_task_runs_its_entry_point(w, home, spark):
    whl = _wheel("mlwheel", "0.1.0", "import sys\n\ndef main():\n    print('wheel says', sys.argv[1:])\n", "run")
    path = f"{home}/mlwheel-0.1.0-py3-none-any.whl"
    w.workspace.upload(path, whl, format=ImportFormat.AUTO, overwrite=True)
    from databricks.sdk.service.compute import Library

    created = w.jobs.create(
        name=unique("whl"),
        tasks=[jobs.Task(task_key="w", python_wheel_task=jobs.PythonWheelTask(package_name="mlwheel", entry_point="run", parameters=["x", "y"]), libraries=[Library(whl=path)])],
    )
    run = w.jobs.run_now_and_wait(created.job_id)
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, (out.error, out.logs)
    assert "wheel says ['x', 'y']" in out.logs


def test_sql_notebook_runs_its_cells_on_spark(w, home, spark):
    nb = f"{home}/sqlnb"
    w.workspace.upload(nb, b"-- Databricks notebook source\nCREATE OR REPLACE TEMP VIEW v AS SELECT 41 + 1 AS answer;\n\n-- COMMAND ----------\n\nSELECT * FROM v\n",
                       language=Language.SQL, format=ImportFormat.SOURCE, overwrite=True)
    created = w.jobs.create(name=unique("sqlnb"), tasks=[jobs.Task(task_key="n", notebook_task=jobs.NotebookTask(notebook_path=nb))])
    run = w.jobs.run_now_and_wait(created.job_id)
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, (out.error, out.logs)
