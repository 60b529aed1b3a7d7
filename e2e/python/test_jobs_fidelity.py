"""What the clients' own suites compare for jobs (issue 33), through the real databricks-sdk: validation at save
time with Databricks' messages, a failed serverless workload reported as Databricks reports it, a wheel an
all-purpose cluster already installed not installed again, JAR, spark-submit and dbt tasks running for real,
and a job reading its code from a git_source at a local URL.

Tests that run code skip only when the Spark install is missing (CI installs it)."""
import glob
import io
import os
import shutil
import subprocess
import time

import pytest
from databricks.sdk.errors import InvalidParameterValue, OperationFailed
from databricks.sdk.service import compute, jobs
from databricks.sdk.service.catalog import VolumeType
from databricks.sdk.service.workspace import ImportFormat

from conftest import ROOT, unique
from test_jobs import _wheel, put, spark  # noqa: F401  (the spark fixture: skip when Spark is missing)

SPEC = dict(spark_version="15.4.x-scala2.12", node_type_id="i3.xlarge")


def ended(w, run_id, minutes=10):
    """The run once it ended, whatever its end (the SDK's waiter raises on INTERNAL_ERROR)."""
    deadline = time.time() + minutes * 60
    while True:
        run = w.jobs.get_run(run_id)
        if run.state.life_cycle_state in (jobs.RunLifeCycleState.TERMINATED, jobs.RunLifeCycleState.SKIPPED,
                                          jobs.RunLifeCycleState.INTERNAL_ERROR):
            return run
        assert time.time() < deadline, f"run {run_id} still {run.state.life_cycle_state}"
        time.sleep(1)


@pytest.fixture
def home(w):
    d = f"/Users/{w.current_user.me().user_name}/{unique('jobsfid')}"
    w.workspace.mkdirs(d)
    return d


def test_save_time_validation_uses_databricks_messages(w):
    task = dict(task_key="t", spark_python_task=jobs.SparkPythonTask(python_file="/Workspace/x.py"))
    with pytest.raises(InvalidParameterValue) as e:
        w.jobs.create(name=unique("v"), tasks=[jobs.Task(**task, new_cluster=compute.ClusterSpec(node_type_id="i3.xlarge", num_workers=1))])
    assert str(e.value) == "Cluster validation error: Missing required field: settings.cluster_spec.new_cluster.spark_version"
    with pytest.raises(InvalidParameterValue) as e:
        w.jobs.create(name=unique("v"), job_clusters=[jobs.JobCluster(job_cluster_key="k", new_cluster=compute.ClusterSpec(**SPEC))],
                      tasks=[jobs.Task(**task, job_cluster_key="k")])
    assert str(e.value) == "Cluster validation error: Missing required field: settings.cluster_spec.new_cluster.size"
    with pytest.raises(InvalidParameterValue) as e:
        w.jobs.submit(run_name="v", tasks=[jobs.SubmitTask(**task, new_cluster=compute.ClusterSpec(**SPEC))])
    assert "new_cluster.size" in str(e.value)
    # reset is checked as create is; the job keeps its settings
    ok = w.jobs.create(name=unique("v"), tasks=[jobs.Task(**task, new_cluster=compute.ClusterSpec(**SPEC, num_workers=0))])
    with pytest.raises(InvalidParameterValue):
        w.jobs.reset(ok.job_id, jobs.JobSettings(name="r", tasks=[jobs.Task(**task, new_cluster=compute.ClusterSpec(**SPEC))]))
    assert w.jobs.get(ok.job_id).settings.tasks[0].new_cluster.num_workers == 0
    with pytest.raises(InvalidParameterValue) as e:
        # The SDK's GitSource insists on a provider; the CLI's bundles can leave it out, so send the body as is.
        w.api_client.do("POST", "/api/2.2/jobs/create", body={
            "name": "nogit", "git_source": {"git_url": "https://example.invalid/r.git", "git_branch": "main"},
            "tasks": [{"task_key": "t", "spark_python_task": {"python_file": "x.py"}}]})
    assert str(e.value).startswith("git_source.git_provider must be one of: github,gitlab,")
    with pytest.raises(InvalidParameterValue) as e:
        w.clusters.create(cluster_name=unique("nosize"), **SPEC)
    assert str(e.value) == "Missing required field: size"
    assert w.clusters.create(cluster_name=unique("single"), **SPEC, num_workers=0).cluster_id


def test_failed_serverless_workload_is_reported_as_databricks_does(w, home, spark):
    bad = put(w, f"{home}/fail.py", "raise RuntimeError('intentional failure')\n")
    created = w.jobs.create(
        name=unique("serverless"),
        environments=[jobs.JobEnvironment(environment_key="default", spec=compute.Environment(environment_version="2"))],
        tasks=[jobs.Task(task_key="main", environment_key="default", spark_python_task=jobs.SparkPythonTask(python_file=bad))],
    )
    # The SDK's waiter gives up on INTERNAL_ERROR, as it does against Databricks.
    with pytest.raises(OperationFailed) as e:
        w.jobs.run_now_and_wait(created.job_id)
    assert "Task main failed with message: Workload failed, see run output for details." in str(e.value)
    run = w.jobs.get_run(next(iter(w.jobs.list_runs(job_id=created.job_id))).run_id)
    assert run.state.life_cycle_state == jobs.RunLifeCycleState.INTERNAL_ERROR
    assert run.state.result_state == jobs.RunResultState.FAILED
    assert run.state.state_message == "Task main failed with message: Workload failed, see run output for details."
    assert run.status.state == jobs.RunLifecycleStateV2State.TERMINATED
    assert run.tasks[0].state.life_cycle_state == jobs.RunLifeCycleState.TERMINATED
    assert run.tasks[0].state.state_message == "Workload failed, see run output for details"
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert out.error == "RuntimeError: intentional failure"
    assert "Traceback" in out.error_trace


def test_failed_run_message_has_one_full_stop(w):
    # An unsupported task type fails with a message that ends in a full stop: the run's adds none.
    created = w.jobs.create(name=unique("stop"), tasks=[jobs.Task(task_key="p", power_bi_task=jobs.PowerBiTask(warehouse_id="dev"))])
    run = w.jobs.run_now_and_wait(created.job_id)
    assert run.state.state_message == "Task p failed with message: power_bi_task is not supported by MiniLake."


def test_a_wheel_an_all_purpose_cluster_installed_is_not_installed_again(w, home, spark):
    cluster = w.clusters.create_and_wait(cluster_name=unique("apc"), **SPEC, num_workers=0)
    path = f"{home}/mywheel-0.0.1-py3-none-any.whl"

    def deploy(message):
        src = f"def main():\n    print({message!r})\n"
        w.workspace.upload(path, _wheel("mywheel", "0.0.1", src, "run"), format=ImportFormat.AUTO, overwrite=True)

    created = w.jobs.create(name=unique("whl"), tasks=[jobs.Task(
        task_key="w", existing_cluster_id=cluster.cluster_id, libraries=[compute.Library(whl=path)],
        python_wheel_task=jobs.PythonWheelTask(package_name="mywheel", entry_point="run"))])

    def run_logs():
        run = w.jobs.run_now_and_wait(created.job_id)
        out = w.jobs.get_run_output(run.tasks[0].run_id)
        assert run.state.result_state == jobs.RunResultState.SUCCESS, (out.error, out.logs)
        return out.logs

    deploy("Hello from my func")
    assert "Hello from my func" in run_logs()
    # The same name and version rebuilt: the running cluster keeps the copy it installed (as on Databricks)...
    deploy("UPDATED MY FUNC")
    assert "Hello from my func" in run_logs()
    # ...until its Spark restarts.
    w.clusters.restart_and_wait(cluster.cluster_id)
    assert "UPDATED MY FUNC" in run_logs()


def _spark_jars():
    cache = os.environ.get("MINILAKE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "minilake")
    found = glob.glob(os.path.join(cache, "spark-*", "venv", "lib", "python*", "site-packages", "pyspark", "jars"))
    if not found or not shutil.which("javac"):
        pytest.skip("no Spark jars or javac here (bash packages/engine-spark/install.sh sets them up)")
    return found[0]


@pytest.fixture(scope="module")
def app_jar(tmp_path_factory):
    """A real Spark application: counts a range, prints its arguments, fails when asked to."""
    jars = _spark_jars()
    d = tmp_path_factory.mktemp("jar")
    src = d / "dev" / "example"
    src.mkdir(parents=True)
    (src / "Main.java").write_text("""
package dev.example;
import org.apache.spark.sql.SparkSession;
public class Main {
  public static void main(String[] args) {
    SparkSession spark = SparkSession.builder().getOrCreate();
    long n = spark.range(5).count();
    System.out.println("jar says " + n + " " + String.join(",", args));
    if (args.length > 0 && args[0].equals("fail")) throw new IllegalStateException("boom from the jar");
    spark.stop();
  }
}
""")
    subprocess.run(["javac", "-cp", os.path.join(jars, "*"), "-d", str(d / "classes"), str(src / "Main.java")], check=True)
    subprocess.run(["jar", "cf", str(d / "app.jar"), "-C", str(d / "classes"), "."], check=True)
    return (d / "app.jar").read_bytes()


def test_spark_jar_and_spark_submit_tasks_run_on_spark(w, home, spark, app_jar):
    cat = unique("jar")
    w.catalogs.create(cat)
    w.volumes.create(cat, "default", "libs", VolumeType.MANAGED)
    vol = f"/Volumes/{cat}/default/libs/app.jar"
    w.files.upload(vol, io.BytesIO(app_jar), overwrite=True)
    ws_jar = f"{home}/app.jar"
    w.workspace.upload(ws_jar, app_jar, format=ImportFormat.AUTO, overwrite=True)
    created = w.jobs.create(name=unique("jar"), tasks=[
        jobs.Task(task_key="from_volume", libraries=[compute.Library(jar=vol)],
                  spark_jar_task=jobs.SparkJarTask(main_class_name="dev.example.Main", parameters=["a", "b"])),
        jobs.Task(task_key="from_workspace", libraries=[compute.Library(jar=ws_jar)],
                  new_cluster=compute.ClusterSpec(**SPEC, num_workers=0),
                  spark_jar_task=jobs.SparkJarTask(main_class_name="dev.example.Main", parameters=["{{job.id}}"])),
        jobs.Task(task_key="submit", new_cluster=compute.ClusterSpec(**SPEC, num_workers=0),
                  spark_submit_task=jobs.SparkSubmitTask(parameters=["--class", "dev.example.Main", vol, "submitted"])),
    ])
    run = w.jobs.run_now_and_wait(created.job_id)
    outs = {t.task_key: w.jobs.get_run_output(t.run_id) for t in run.tasks}
    assert run.state.result_state == jobs.RunResultState.SUCCESS, {k: (o.error, o.logs[-2000:]) for k, o in outs.items()}
    assert "jar says 5 a,b" in outs["from_volume"].logs
    assert f"jar says 5 {created.job_id}" in outs["from_workspace"].logs
    assert "jar says 5 submitted" in outs["submit"].logs
    # jar_params of run-now replace the parameters; the JVM's exception is the task's error
    failed = w.jobs.run_now_and_wait(created.job_id, jar_params=["fail"], only=["from_volume"])
    out = w.jobs.get_run_output(failed.tasks[0].run_id)
    assert failed.state.result_state == jobs.RunResultState.FAILED
    assert out.error == "java.lang.IllegalStateException: boom from the jar"
    assert "at dev.example.Main.main" in out.error_trace


def test_dbt_task_runs_the_project_against_minilakes_warehouse(w, home, spark, url):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small").id
    cat = unique("dbtjob")
    w.catalogs.create(cat)
    project = f"{home}/dbt_project"
    src = os.path.join(ROOT, "e2e", "dbt")
    for dirpath, _, files in os.walk(src):
        rel = os.path.relpath(dirpath, src)
        if rel.split(os.sep)[0] in ("target", "logs"):
            continue
        target = project if rel == "." else f"{project}/{rel}"
        w.workspace.mkdirs(target)
        for f in files:
            if f == "requirements.txt":
                continue
            with open(os.path.join(dirpath, f), "rb") as fh:
                w.workspace.upload(f"{target}/{f}", fh.read(), format=ImportFormat.AUTO, overwrite=True)
    # The project's own profile, for the task that names a profiles_directory (no warehouse_id: Databricks
    # allows one or the other); it writes to another schema, so what it made is told apart.
    http_path = f"/sql/1.0/warehouses/{wh}"
    w.workspace.mkdirs(f"{project}/ci_profiles")
    w.workspace.upload(f"{project}/ci_profiles/profiles.yml", f"""
minilake:
  target: ci
  outputs:
    ci:
      type: databricks
      host: {url}
      http_path: {http_path}
      token: dev
      catalog: {cat}
      schema: shop_profiles
      threads: 1
      connection_parameters:
        _connection_uri: {url}{http_path}
        enable_telemetry: false
""".encode(), format=ImportFormat.AUTO, overwrite=True)
    with open(os.path.join(src, "requirements.txt")) as f:
        pins = [line.strip() for line in f if line.strip()]
    created = w.jobs.create(
        name=unique("dbt"),
        environments=[jobs.JobEnvironment(environment_key="dbt", spec=compute.Environment(environment_version="2", dependencies=pins))],
        tasks=[
            jobs.Task(task_key="dbt", environment_key="dbt", dbt_task=jobs.DbtTask(
                project_directory=project, commands=["dbt seed", "dbt run", "dbt test"], warehouse_id=wh,
                catalog=cat, schema="shop")),
            jobs.Task(task_key="dbt_profiles", environment_key="dbt", depends_on=[jobs.TaskDependency("dbt")],
                      dbt_task=jobs.DbtTask(project_directory=project, profiles_directory="ci_profiles",
                                            commands=["dbt seed", "dbt run --select orders"])),
        ],
    )
    run = ended(w, w.jobs.run_now(created.job_id).run_id, minutes=20)
    by_key = {t.task_key: t for t in run.tasks}
    for key in ("dbt", "dbt_profiles"):
        out = w.jobs.get_run_output(by_key[key].run_id)
        assert by_key[key].state.result_state == jobs.RunResultState.SUCCESS, (key, out.error, out.logs[-4000:])
        assert "Completed successfully" in out.logs
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    # The second task used the project's profile (its schema), the first the one written for the warehouse.
    for schema in ("shop", "shop_profiles"):
        r = w.statement_execution.execute_statement(warehouse_id=wh, wait_timeout="30s",
                                                    statement=f"SELECT count(*) FROM {cat}.{schema}.orders")
        assert int(r.result.data_array[0][0]) > 0, schema


def _git(*args, cwd):
    subprocess.run(["git", "-c", "user.email=a@b", "-c", "user.name=a", *args], cwd=cwd, check=True,
                   capture_output=True)


def test_git_source_at_a_local_url(w, home, spark, tmp_path):
    repo = tmp_path / "repo"
    repo.mkdir()
    _git("init", "-q", "-b", "main", cwd=repo)
    (repo / "src").mkdir()
    (repo / "src" / "job.py").write_text("print('from git v1')\n")
    (repo / "queries").mkdir()
    (repo / "queries" / "q.sql").write_text("SELECT 1\n")
    _git("add", ".", cwd=repo)
    _git("commit", "-qm", "one", cwd=repo)
    _git("tag", "v1", cwd=repo)
    (repo / "src" / "job.py").write_text("print('from git v2')\n")
    _git("commit", "-qam", "two", cwd=repo)
    source = dict(git_url=f"file://{repo}", git_provider=jobs.GitProvider.GIT_HUB)
    py = jobs.Task(task_key="py", spark_python_task=jobs.SparkPythonTask(python_file="src/job.py"))
    on_main = w.jobs.create(name=unique("git"), git_source=jobs.GitSource(**source, git_branch="main"), tasks=[py])
    run = w.jobs.run_now_and_wait(on_main.job_id)
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, (out.error, out.logs)
    assert "from git v2" in out.logs
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True).stdout.strip()
    assert run.git_source.git_snapshot.used_commit == head
    on_tag = w.jobs.create(name=unique("git"), git_source=jobs.GitSource(**source, git_tag="v1"), tasks=[py])
    run = w.jobs.run_now_and_wait(on_tag.job_id)
    assert "from git v1" in w.jobs.get_run_output(run.tasks[0].run_id).logs
    # A URL git cannot reach fails the task, promptly, saying so.
    gone = w.jobs.create(name=unique("git"), git_source=jobs.GitSource(git_url=f"file://{tmp_path}/nope",
                                                                      git_provider=jobs.GitProvider.GIT_HUB, git_branch="main"), tasks=[py])
    run = w.jobs.run_now_and_wait(gone.job_id)
    assert run.state.result_state == jobs.RunResultState.FAILED
    assert run.tasks[0].state.state_message.startswith("Failed to checkout Git repository")
