"""What the Databricks CLI's own suites compare (issue 33), driven by the real CLI built from source: the wire
shapes and messages its goldens record for Git folders, permissions, grants, Alerts V2, notebook export during
`bundle generate`, a project from `bundle init default-sql` whose SQL reads its job parameters as {{name}}, and
the run URL `bundle run` prints."""
import base64
import json
import subprocess
import time

import pytest
import requests

from minilake import unique


def git(*args, cwd):
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", *args], cwd=cwd, check=True,
                   capture_output=True)


def make_repo(tmp_path):
    repo = tmp_path / "origin"
    (repo / "src").mkdir(parents=True)
    git("init", "-q", "-b", "main", str(repo), cwd=tmp_path)
    (repo / "src" / "job.py").write_text("print('from the git source')\n")
    (repo / "nb.py").write_text("# Databricks notebook source\nprint(1)\n")
    git("add", ".", cwd=repo)
    git("commit", "-qm", "one", cwd=repo)
    git("checkout", "-q", "-b", "feature", cwd=repo)
    git("commit", "-q", "--allow-empty", "-m", "feature", cwd=repo)
    git("checkout", "-q", "main", cwd=repo)
    return repo


def test_repos_commands_as_the_goldens_show(cli, w, tmp_path):
    repo = make_repo(tmp_path)
    me = w.current_user.me().user_name
    path = f"/Repos/{me}/{unique('repo')}"
    url = f"file://{repo}"
    created = cli.json("repos", "create", url, "gitHub", "--path", path)
    repo_id = created["id"]
    want = {"branch": "main", "id": repo_id, "path": path, "provider": "gitHub", "url": url}
    by_id = cli.json("repos", "get", str(repo_id))
    assert {k: by_id[k] for k in want} == want
    assert by_id["head_commit_id"]
    # by path: the CLI asks workspace get-status for the folder's object_id
    assert cli.json("repos", "get", path)["id"] == repo_id
    listing = cli.json("workspace", "list", path)
    assert sorted((o["path"].rsplit("/", 1)[1], o["object_type"]) for o in listing) == [("nb", "NOTEBOOK"), ("src", "DIRECTORY")]
    cli.run("repos", "update", str(repo_id), "--branch", "feature")
    assert cli.json("repos", "get", str(repo_id))["branch"] == "feature"
    cli.run("repos", "update", path, "--branch", "main")
    assert cli.json("repos", "get", str(repo_id))["branch"] == "main"
    cli.run("repos", "delete", path)
    gone = cli.run("repos", "get", path, "-o", "json", check=False)
    assert gone.returncode != 0
    assert f"Error: failed to look up repo by path: Path ({path}) doesn't exist." in gone.stderr
    # a URL git cannot reach is an error, quickly
    bad = cli.run("repos", "create", f"file://{tmp_path}/nope", "gitHub", "--path", f"/Repos/{me}/nope", check=False,
                  timeout=60)
    assert bad.returncode != 0 and "Failed to clone repo" in bad.stderr


def test_permissions_set_keeps_the_last_level_and_one_job_owner(cli, w):
    """The CLI's factcheck: the Permissions API takes the latest level given for a principal."""
    me = w.current_user.me().user_name
    other = f"{unique('deco')}@example.com"
    w.users.create(user_name=other)
    job_id = str(cli.json("jobs", "create", "--json", json.dumps({
        "name": "perm", "tasks": [{"task_key": "c", "condition_task": {"op": "EQUAL_TO", "left": "1", "right": "1"}}]}))["job_id"])

    def set_levels(user, levels, with_owner=True):
        acl = [{"user_name": user, "permission_level": lv} for lv in levels]
        if with_owner and user != me:
            acl.insert(0, {"user_name": me, "permission_level": "IS_OWNER"})
        p = cli.run("permissions", "set", "jobs", job_id, "--json", json.dumps({"access_control_list": acl}),
                    "-o", "json", check=False)
        if p.returncode != 0:
            return p.stderr.strip()
        got = json.loads(p.stdout)
        assert got == cli.json("permissions", "get", "jobs", job_id)
        return ", ".join(perm["permission_level"] for a in got["access_control_list"] if a.get("user_name") == user
                         for perm in a["all_permissions"] if not perm.get("inherited"))

    assert set_levels(other, ["CAN_VIEW", "CAN_MANAGE_RUN"]) == "CAN_MANAGE_RUN"
    assert set_levels(other, ["CAN_MANAGE_RUN", "CAN_VIEW"]) == "CAN_VIEW"
    assert set_levels(other, ["CAN_VIEW", "CAN_MANAGE_RUN", "CAN_MANAGE"]) == "CAN_MANAGE"
    assert set_levels(me, ["CAN_MANAGE", "IS_OWNER"]) == "IS_OWNER"
    assert set_levels(me, ["IS_OWNER", "CAN_MANAGE"]) == "Error: The job must have exactly one owner."


def test_grants_remove_all_privileges_then_add(cli, w):
    cat = unique("fidg")
    w.catalogs.create(name=cat)
    w.schemas.create(name="s", catalog_name=cat)
    full = f"{cat}.s"
    cli.run("grants", "update", "schema", full, "--json", json.dumps(
        {"changes": [{"principal": "analysts", "add": ["ALL_PRIVILEGES"]}]}))
    cli.run("grants", "update", "schema", full, "--json", json.dumps(
        {"changes": [{"principal": "analysts", "add": ["USE_SCHEMA"]}]}))
    got = cli.json("grants", "get", "schema", full)
    assert got["privilege_assignments"] == [{"principal": "analysts", "privileges": ["ALL_PRIVILEGES", "USE_SCHEMA"]}]
    # what `bundle deploy` (direct engine) sends to make the principal hold exactly these
    cli.run("grants", "update", "schema", full, "--json", json.dumps(
        {"changes": [{"principal": "analysts", "add": ["SELECT"], "remove": ["ALL_PRIVILEGES"]}]}))
    assert cli.json("grants", "get", "schema", full)["privilege_assignments"] == [
        {"principal": "analysts", "privileges": ["SELECT"]}]
    dup = cli.run("grants", "update", "schema", full, "--json", json.dumps(
        {"changes": [{"principal": "analysts", "add": ["ALL_PRIVILEGES"], "remove": ["ALL_PRIVILEGES"]}]}), check=False)
    assert dup.returncode != 0 and "Duplicate privileges to add and delete" in dup.stderr


def test_alert_v2_from_a_bundle_has_permissions_and_no_state_before_evaluation(cli, w, tmp_path):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="2X-Small").id
    other = f"{unique('deco')}@example.com"
    w.users.create(user_name=other)
    project = tmp_path / "alerts"
    project.mkdir()
    (project / "databricks.yml").write_text(f"""
bundle:
  name: alerts-basic-{unique('b')}
resources:
  alerts:
    myalert:
      permissions:
        - level: CAN_MANAGE
          user_name: {other}
      custom_summary: "My alert"
      display_name: "My alert"
      evaluation:
        comparison_operator: "EQUAL"
        notification:
          notify_on_ok: false
          retrigger_seconds: 1
        source:
          aggregation: "MAX"
          display: "1"
          name: "1"
        threshold:
          value:
            double_value: 1.3
      query_text: "select 2"
      schedule:
        pause_status: "UNPAUSED"
        quartz_cron_schedule: "44 19 */1 * * ?"
        timezone_id: "Europe/Amsterdam"
      warehouse_id: {wh}
""")
    env = {"DATABRICKS_BUNDLE_ENGINE": "direct"}
    cli.run("bundle", "deploy", cwd=project, env=env)
    alert_id = cli.json("bundle", "summary", cwd=project, env=env)["resources"]["alerts"]["myalert"]["id"]
    got = cli.json("alerts-v2", "get-alert", alert_id)
    picked = {k: got.get(k) for k in ("display_name", "lifecycle_state", "custom_summary", "evaluation", "query_text",
                                      "schedule", "warehouse_id")}
    assert picked == {
        "display_name": "My alert", "lifecycle_state": "ACTIVE", "custom_summary": "My alert",
        "evaluation": {"comparison_operator": "EQUAL", "notification": {"notify_on_ok": False, "retrigger_seconds": 1},
                       "source": {"aggregation": "MAX", "display": "1", "name": "1"},
                       "threshold": {"value": {"double_value": 1.3}}},
        "query_text": "select 2",
        "schedule": {"pause_status": "UNPAUSED", "quartz_cron_schedule": "44 19 */1 * * ?", "timezone_id": "Europe/Amsterdam"},
        "warehouse_id": wh,
    }
    perms = cli.json("permissions", "get", "alertsv2", alert_id)["access_control_list"]
    mine = [{"user_name": a["user_name"], "all_permissions": a["all_permissions"]} for a in perms if a.get("user_name") == other]
    assert mine == [{"user_name": other, "all_permissions": [{"inherited": False, "permission_level": "CAN_MANAGE"}]}]
    plan = cli.run("bundle", "plan", cwd=project, env=env)
    assert "0 to add, 0 to change, 0 to delete" in plan.stdout
    cli.run("bundle", "destroy", "--auto-approve", cwd=project, env=env)
    gone = cli.run("alerts-v2", "get-alert", alert_id, check=False)
    assert gone.returncode != 0 and f"Error: Alert with ID '{alert_id}' does not exist." in gone.stderr


def test_bundle_generate_exports_the_notebook_it_finds(cli, w, tmp_path):
    me = w.current_user.me().user_name
    nb = f"/Workspace/Users/{me}/{unique('gen')}/outnotebook"
    w.workspace.mkdirs(nb.rsplit("/", 1)[0])
    cli.run("workspace", "import", nb, "--format", "SOURCE", "--language", "PYTHON", "--content",
            base64.b64encode(b'# Databricks notebook source\nprint("Hello, World!")\n').decode())
    job_id = cli.json("jobs", "create", "--json", json.dumps({
        "name": "gitjob", "tasks": [{"task_key": "test_task", "notebook_task": {"notebook_path": nb}}]}))["job_id"]
    project = tmp_path / "gen"
    project.mkdir()
    (project / "databricks.yml").write_text("bundle:\n  name: gen\n")
    cli.run("bundle", "generate", "job", "--existing-job-id", str(job_id), "--config-dir", ".", "--key", "out",
            "--force", "--source-dir", ".", cwd=project)
    assert 'print("Hello, World!")' in (project / "outnotebook.py").read_text()
    assert "outnotebook.py" in (project / "out.job.yml").read_text()


def test_default_sql_template_reads_job_parameters_in_its_sql(cli, w, tmp_path):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="2X-Small").id
    cat = unique("dsql")
    w.catalogs.create(name=cat)
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({
        "project_name": "fid_sql", "http_path": f"/sql/1.0/warehouses/{wh}", "default_catalog": cat,
        "personal_schemas": "no, I will customize the schema configuration later in databricks.yml",
        "shared_schema": "default"}))
    cli.run("bundle", "init", "default-sql", "--config-file", str(cfg), "--output-dir", str(tmp_path))
    project = tmp_path / "fid_sql"
    raw = project / "src" / "orders_raw.sql"
    daily = project / "src" / "orders_daily.sql"
    # The template's own parameter lines stay (USE CATALOG {{catalog}}; USE IDENTIFIER({{schema}}); the
    # {{bundle_target}} comparison); its streaming source (/databricks-datasets) is replaced by rows of our own.
    head = "".join(line for line in raw.read_text().splitlines(keepends=True) if line.startswith("USE "))
    assert "USE CATALOG {{catalog}};" in head and "USE IDENTIFIER({{schema}});" in head
    raw.write_text(head + "CREATE OR REPLACE TABLE orders_raw AS SELECT * FROM VALUES "
                   "('a', DATE'2019-08-05', 1), ('b', DATE'2019-09-05', 2) AS t(customer_name, order_date, order_number)\n")
    daily.write_text(daily.read_text().replace("CREATE OR REPLACE MATERIALIZED VIEW", "CREATE OR REPLACE TABLE"))
    env = {"DATABRICKS_BUNDLE_ENGINE": "direct"}
    cli.run("bundle", "deploy", "-t", "dev", cwd=project, env=env)
    out = cli.run("bundle", "run", "-t", "dev", "fid_sql_sql_job", cwd=project, env=env, check=False, timeout=600)
    assert out.returncode == 0, out.stdout + out.stderr
    r = w.statement_execution.execute_statement(warehouse_id=wh, wait_timeout="30s",
                                                statement=f"SELECT order_date, number_of_orders FROM {cat}.default.orders_daily")
    # bundle_target is 'dev': only August 2019 is kept
    assert r.result.data_array == [["2019-08-05", "1"]]


def test_bundle_job_from_a_git_source_at_a_local_url(cli, w, tmp_path):
    repo = make_repo(tmp_path)
    project = tmp_path / "gitbundle"
    project.mkdir()
    (project / "databricks.yml").write_text(f"""
bundle:
  name: gitb-{unique('b')}
resources:
  jobs:
    from_git:
      name: from_git
      git_source:
        git_url: file://{repo}
        git_provider: gitHub
        git_branch: main
      # The CLI refuses a task without compute before it deploys: serverless, through an environment.
      environments:
        - environment_key: default
          spec:
            client: "2"
      tasks:
        - task_key: main
          environment_key: default
          spark_python_task:
            python_file: src/job.py
            source: GIT
""")
    env = {"DATABRICKS_BUNDLE_ENGINE": "direct"}
    cli.run("bundle", "deploy", cwd=project, env=env)
    out = cli.run("bundle", "run", "from_git", cwd=project, env=env, check=False, timeout=900)
    text = out.stdout + out.stderr
    if "engine is not available" in text:
        pytest.skip("Spark is not installed here (bash packages/engine-spark/install.sh)")
    assert out.returncode == 0, text
    assert "from the git source" in text


def test_bundle_run_prints_the_run_page_url_databricks_prints(cli, w, tmp_path):
    """`bundle run` prints the run's page as the goldens show it (`<host>/jobs/<job>/runs/<run>?o=<workspace
    id>`), and that address opens MiniLake's page for the run."""
    project = tmp_path / "runurl"
    project.mkdir()
    (project / "databricks.yml").write_text(f"""
bundle:
  name: runurl-{unique('b')}
resources:
  jobs:
    check:
      name: check
      tasks:
        - task_key: same
          condition_task:
            op: EQUAL_TO
            left: "1"
            right: "1"
""")
    env = {"DATABRICKS_BUNDLE_ENGINE": "direct"}
    cli.run("bundle", "deploy", cwd=project, env=env)
    out = cli.run("bundle", "run", "check", cwd=project, env=env, timeout=300)
    text = out.stdout + out.stderr
    line = next((x for x in text.splitlines() if x.startswith("Run URL: ")), None)
    assert line, text
    url = line[len("Run URL: "):].strip()
    job_id = next(j.job_id for j in w.jobs.list(name="check"))
    run = next(iter(w.jobs.list_runs(job_id=job_id)))
    ws_id = w.get_workspace_id()
    host = w.config.host.rstrip("/")
    assert url == f"{host}/jobs/{job_id}/runs/{run.run_id}?o={ws_id}"
    assert w.jobs.get_run(run.run_id).run_page_url == url
    page = requests.get(url, timeout=30)
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html"), page.text[:200]
    assert f"/ui/jobs/{job_id}/runs/{run.run_id}" in page.url


def test_jobs_save_time_validation_and_failure_messages_as_the_goldens_show(cli, w):
    """The jobs items the goldens record, through the CLI: a new_cluster without spark_version or a size is
    refused when the job is saved (create, reset, submit), as is a cluster without a size; a run of a task type
    MiniLake does not run fails with one full stop in its state message."""
    spec = {"spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge"}
    task = {"task_key": "t", "spark_python_task": {"python_file": "/Workspace/x.py"}}

    def refused(*args):
        p = cli.run(*args, check=False)
        assert p.returncode != 0, p.stdout
        return p.stderr.strip()

    no_version = {"name": unique("v"), "tasks": [{**task, "new_cluster": {"node_type_id": "i3.xlarge", "num_workers": 1}}]}
    assert refused("jobs", "create", "--json", json.dumps(no_version)) == (
        "Error: Cluster validation error: Missing required field: settings.cluster_spec.new_cluster.spark_version")
    no_size = {"name": unique("v"), "tasks": [{**task, "new_cluster": spec}]}
    assert refused("jobs", "create", "--json", json.dumps(no_size)) == (
        "Error: Cluster validation error: Missing required field: settings.cluster_spec.new_cluster.size")
    assert "new_cluster.size" in refused("jobs", "submit", "--no-wait", "--json", json.dumps(
        {"run_name": "v", "tasks": [{**task, "new_cluster": spec}]}))
    ok = cli.json("jobs", "create", "--json", json.dumps(
        {"name": unique("v"), "tasks": [{**task, "new_cluster": {**spec, "num_workers": 0}}]}))["job_id"]
    assert "new_cluster.size" in refused("jobs", "reset", "--json", json.dumps(
        {"job_id": ok, "new_settings": {"name": "r", "tasks": [{**task, "new_cluster": spec}]}}))
    assert cli.json("jobs", "get", str(ok))["settings"]["tasks"][0]["new_cluster"]["num_workers"] == 0
    assert refused("clusters", "create", "--no-wait", "--json", json.dumps({"cluster_name": unique("nosize"), **spec})) == (
        "Error: Missing required field: size")

    job = cli.json("jobs", "create", "--json", json.dumps(
        {"name": unique("stop"), "tasks": [{"task_key": "p", "power_bi_task": {"warehouse_id": "dev"}}]}))["job_id"]
    run_id = cli.json("jobs", "run-now", "--no-wait", str(job))["run_id"]
    deadline = time.time() + 60
    while (run := cli.json("jobs", "get-run", str(run_id)))["state"]["life_cycle_state"] != "TERMINATED":
        assert time.time() < deadline, run["state"]
        time.sleep(0.5)
    assert run["state"]["state_message"] == "Task p failed with message: power_bi_task is not supported by MiniLake."
