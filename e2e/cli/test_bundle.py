"""`databricks bundle` end to end with the real CLI: validate, deploy, run (the job really runs on Spark and
the CLI shows the script's output), a second deploy that changes nothing, summary, destroy — with both the
direct and the terraform deployment engines."""
import os
import shutil

import pytest

from minilake import unique

HERE = os.path.dirname(__file__)


def engine_env(engine):
    if engine == "direct":
        return {"DATABRICKS_BUNDLE_ENGINE": "direct"}
    return {
        "DATABRICKS_BUNDLE_ENGINE": "terraform",
        "DATABRICKS_TF_EXEC_PATH": os.environ["MINILAKE_TERRAFORM"],
        "DATABRICKS_TF_VERSION": os.environ["MINILAKE_TERRAFORM_VERSION"],
        "DATABRICKS_TF_CLI_CONFIG_FILE": os.environ["MINILAKE_TFRC"],
    }


@pytest.mark.parametrize("engine", ["direct", "terraform"])
def test_bundle_lifecycle(engine, cli, w, tmp_path):
    project = tmp_path / "bundle"
    shutil.copytree(os.path.join(HERE, "bundle"), project)
    cat = unique("bundle")
    w.catalogs.create(name=cat)
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="2X-Small")
    env = engine_env(engine)
    vars_ = ["--var", f"catalog={cat}", "--var", f"warehouse_id={wh.id}"]

    def bundle(*args, **kw):
        return cli.run("bundle", *args, *vars_, cwd=project, env=env, **kw)

    bundle("validate", "-t", "dev")
    bundle("deploy", "-t", "dev")

    summary = cli.json("bundle", "summary", "-t", "dev", *vars_, cwd=project, env=env)
    job_id = int(summary["resources"]["jobs"]["daily_load"]["id"])
    schema_name = summary["resources"]["schemas"]["staging"]["name"]
    job = w.jobs.get(job_id)
    assert job.settings.name.endswith("daily_load")
    assert [t.task_key for t in job.settings.tasks] == ["main", "report"]
    assert w.schemas.get(f"{cat}.{schema_name}").comment == "made by the bundle"
    assert w.volumes.read(f"{cat}.{schema_name}.landing").volume_type.value == "MANAGED"
    acl = w.jobs.get_permissions(str(job_id)).access_control_list
    assert any(a.group_name == "users" for a in acl)

    out = bundle("run", "daily_load", "-t", "dev", timeout=900)
    assert "loaded 3 rows, greeting=hello" in out.stdout + out.stderr, out.stdout + out.stderr

    # Deploying again changes nothing: the job is the same job with the same settings.
    before = w.jobs.get(job_id).settings.as_dict()
    bundle("deploy", "-t", "dev")
    assert w.jobs.get(job_id).settings.as_dict() == before
    if engine == "direct":
        plan = cli.run("bundle", "plan", "-t", "dev", *vars_, cwd=project, env=env, check=False)
        if plan.returncode == 0:
            assert "create" not in plan.stdout and "update" not in plan.stdout, plan.stdout

    bundle("destroy", "-t", "dev", "--auto-approve")
    assert not [j for j in w.jobs.list() if j.job_id == job_id]
    assert not [s for s in w.schemas.list(cat) if s.name == schema_name]


def test_jobs_commands(cli, w, tmp_path):
    me = w.current_user.me().user_name
    path = f"/Users/{me}/{unique('job')}.py"
    script = tmp_path / "hello.py"
    script.write_text("print('hello from a cli job')\n")
    cli.run("workspace", "import", path, "--file", str(script), "--format", "AUTO")
    spec = ('{"name": "cli-job", "tasks": [{"task_key": "t", "environment_key": "default", '
            f'"spark_python_task": {{"python_file": "{path}"}}}}], '
            '"environments": [{"environment_key": "default", "spec": {"client": "2"}}]}')
    job_id = cli.json("jobs", "create", "--json", spec)["job_id"]
    run = cli.json("jobs", "run-now", str(job_id), timeout=900)
    assert run["state"]["result_state"] == "SUCCESS", run
    got = cli.json("jobs", "get-run", str(run["run_id"]))
    assert got["state"]["life_cycle_state"] == "TERMINATED"
    out = cli.json("jobs", "get-run-output", str(got["tasks"][0]["run_id"]))
    assert "hello from a cli job" in out["logs"]
