"""Pipelines with the real CLI, unchanged but for the host: the projects `databricks bundle init default-python`
and `databricks bundle init lakeflow-pipelines` make are deployed, their pipeline and their job (the
template's notebook, wheel and pipeline-refresh tasks) run to success with `bundle run`, then destroyed; and
the `pipelines` commands (`start-update`, `get-update`, `get`, `list-pipeline-events`) on a pipeline of our
own. Both templates read `samples.nyctaxi.trips`; the default-python one builds its wheel with `uv`
(e2e/tools/uv.sh). The tests skip, saying why, when the Spark install or the `samples` catalog is missing."""
import json
import os
import subprocess
import time

import pytest

from minilake import ROOT, unique

_versions = json.load(open(os.path.join(ROOT, "packages", "engine-spark", "versions.json")))
_install = os.path.join(
    os.environ.get("MINILAKE_CACHE") or os.path.expanduser("~/.cache/minilake"),
    f"spark-{_versions['pyspark']}-delta-{_versions['deltaSpark']}",
)
needs_spark = pytest.mark.skipif(
    not os.path.exists(os.path.join(_install, "uc-catalog", "minilake-uc-spark.jar")),
    reason="the Spark install or its Unity Catalog plugin is missing: run bash packages/engine-spark/install.sh",
)
ENGINE = {"DATABRICKS_BUNDLE_ENGINE": "direct"}


def uv_path():
    out = subprocess.run(["bash", os.path.join(ROOT, "e2e", "tools", "uv.sh")], capture_output=True, text=True,
                         check=True)
    return out.stdout.strip().splitlines()[-1]


def need_samples(w):
    try:
        w.tables.get("samples.nyctaxi.trips")
    except Exception:  # noqa: BLE001
        pytest.skip("the samples catalog (samples.nyctaxi.trips) is not served: the templates' pipelines read it")


def init(cli, tmp_path, template, answers):
    cfg = tmp_path / f"{template}.json"
    cfg.write_text(json.dumps(answers))
    out = tmp_path / f"{template}-out"
    cli.run("bundle", "init", template, "--config-file", str(cfg), "--output-dir", str(out))
    (project,) = [p for p in out.iterdir() if p.is_dir()]
    return project


def ensure_main(w):
    if not [c for c in w.catalogs.list() if c.name == "main"]:
        w.catalogs.create(name="main")


@needs_spark
def test_default_python_template_deploys_runs_and_destroys(cli, w, tmp_path):
    need_samples(w)
    ensure_main(w)
    project = init(cli, tmp_path, "default-python", {
        "project_name": "my_project", "include_job": "yes", "include_pipeline": "yes", "include_python": "yes",
        "serverless": "yes", "default_catalog": "main", "personal_schemas": "yes", "language": "python"})
    env = {**ENGINE, "PATH": uv_path() + os.pathsep + os.environ["PATH"],
           "UV_CACHE_DIR": os.path.join(os.path.dirname(_install), "uv-cache")}

    def bundle(*args, **kw):
        return cli.run("bundle", *args, cwd=project, env=env, **kw)

    bundle("validate")
    bundle("deploy")
    summary = json.loads(bundle("summary", "-o", "json").stdout)
    pid = summary["resources"]["pipelines"]["my_project_etl"]["id"]
    spec = w.pipelines.get(pid).spec
    assert spec.catalog == "main" and spec.serverless and spec.development

    out = bundle("run", "my_project_etl", timeout=1800)
    assert "Update has completed successfully" in out.stdout + out.stderr or "COMPLETED" in out.stdout + out.stderr, out
    schema = spec.schema
    trips = w.statement_execution.execute_statement(
        warehouse_id="dev", wait_timeout="50s",
        statement=f"SELECT count(*) FROM main.{schema}.sample_trips_my_project").result.data_array
    assert int(trips[0][0]) > 5
    assert w.tables.get(f"main.{schema}.sample_zones_my_project").table_type.value == "MATERIALIZED_VIEW"

    out = bundle("run", "sample_job", timeout=1800)
    job_id = int(summary["resources"]["jobs"]["sample_job"]["id"])
    run = next(iter(w.jobs.list_runs(job_id=job_id)))
    run = w.jobs.get_run(run.run_id)
    assert run.state.result_state.value == "SUCCESS", (run.state, out.stdout[-3000:], out.stderr[-3000:])
    assert {t.task_key: t.state.result_state.value for t in run.tasks} == {
        "notebook_task": "SUCCESS", "python_wheel_task": "SUCCESS", "refresh_pipeline": "SUCCESS"}
    assert w.pipelines.list_updates(pid).updates[0].cause.value == "JOB_TASK"

    # A second deploy changes nothing: the pipeline's settings are the ones the CLI sent.
    before = w.pipelines.get(pid).spec.as_dict()
    bundle("deploy")
    assert w.pipelines.get(pid).spec.as_dict() == before
    plan = bundle("plan", check=False)
    if plan.returncode == 0:
        assert "create" not in plan.stdout and "update" not in plan.stdout, plan.stdout

    bundle("destroy", "--auto-approve")
    with pytest.raises(Exception, match="was not found"):
        w.pipelines.get(pid)


@needs_spark
def test_lakeflow_pipelines_template_deploys_runs_and_destroys(cli, w, tmp_path):
    need_samples(w)
    ensure_main(w)
    project = init(cli, tmp_path, "lakeflow-pipelines", {
        "project_name": "lakeflow_project", "default_catalog": "main", "personal_schemas": "yes",
        "language": "python"})

    def bundle(*args, **kw):
        return cli.run("bundle", *args, cwd=project, env=ENGINE, **kw)

    bundle("deploy")
    summary = json.loads(bundle("summary", "-o", "json").stdout)
    pid = summary["resources"]["pipelines"]["lakeflow_project_etl"]["id"]
    bundle("run", "lakeflow_project_etl", timeout=1800)
    out = bundle("run", "sample_job", timeout=1800)
    job_id = int(summary["resources"]["jobs"]["sample_job"]["id"])
    run = w.jobs.get_run(next(iter(w.jobs.list_runs(job_id=job_id))).run_id)
    assert run.state.result_state.value == "SUCCESS", (run.state, out.stdout[-3000:])
    schema = w.pipelines.get(pid).spec.schema
    zones = w.statement_execution.execute_statement(
        warehouse_id="dev", wait_timeout="50s",
        statement=f"SELECT count(*) FROM main.{schema}.sample_zones_lakeflow_project").result.data_array
    assert int(zones[0][0]) > 0
    bundle("destroy", "--auto-approve")
    assert not [p for p in w.pipelines.list_pipelines() if p.pipeline_id == pid]


@needs_spark
def test_pipelines_commands(cli, w, tmp_path):
    cat = unique("clipl")
    w.catalogs.create(name=cat)
    me = w.current_user.me().user_name
    path = f"/Workspace/Users/{me}/{cat}/numbers.py"
    w.workspace.mkdirs(os.path.dirname(path))
    src = "from pyspark import pipelines as dp\n\n@dp.materialized_view\ndef numbers():\n    return spark.range(7)\n"
    w.workspace.upload(path, src.encode(), format=__import__(
        "databricks.sdk.service.workspace", fromlist=["ImportFormat"]).ImportFormat.AUTO, overwrite=True)
    created = cli.json("pipelines", "create", "--json", json.dumps({
        "name": cat, "catalog": cat, "schema": "s", "serverless": True,
        "libraries": [{"file": {"path": path}}]}))
    pid = created["pipeline_id"]
    assert cli.json("pipelines", "get", pid)["spec"]["catalog"] == cat
    uid = cli.json("pipelines", "start-update", pid, "--full-refresh")["update_id"]
    deadline = time.time() + 1800
    while (state := cli.json("pipelines", "get-update", pid, uid)["update"]["state"]) not in (
            "COMPLETED", "FAILED", "CANCELED"):
        assert time.time() < deadline
        time.sleep(2)
    assert state == "COMPLETED"
    events = cli.json("pipelines", "list-pipeline-events", pid, "--filter", f"update_id = '{uid}'")
    assert any(e["event_type"] == "flow_progress" and "COMPLETED" in e["message"] for e in events)
    listed = cli.json("pipelines", "list-pipelines", "--filter", f"name LIKE '{cat}'")
    assert [p["pipeline_id"] for p in listed] == [pid]
    cli.run("pipelines", "delete", pid)
    assert not [p for p in w.pipelines.list_pipelines() if p.pipeline_id == pid]
