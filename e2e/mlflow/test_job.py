"""The same logging from inside a MiniLake job: a notebook task on Spark whose environment installs mlflow, with
nothing in the notebook about where MLflow is (a Databricks runtime tracks to its workspace).

Skips only when the Spark install is missing (`bash packages/engine-spark/install.sh`; CI runs it)."""
import datetime

import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.service import compute, jobs
from databricks.sdk.service.workspace import ImportFormat, Language
from mlflow import MlflowClient

INSTALL = "bash packages/engine-spark/install.sh"

NOTEBOOK = """# Databricks notebook source
import mlflow
import pandas as pd
from mlflow.models import infer_signature
from sklearn.linear_model import LinearRegression

dbutils.widgets.text("experiment", "")
mlflow.set_experiment(dbutils.widgets.get("experiment"))

# COMMAND ----------

with mlflow.start_run(run_name="from-a-job") as run:
    mlflow.log_param("where", "job")
    for step, value in enumerate([0.5, 0.25, 0.125]):
        mlflow.log_metric("loss", value, step=step)
    mlflow.log_text("written by the job", "notes/hello.txt")
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0]})
    model = LinearRegression().fit(X, X["x"] * 4)
    mlflow.sklearn.log_model(model, name="model", signature=infer_signature(X, model.predict(X)))

dbutils.notebook.exit(run.info.run_id)
"""


@pytest.fixture
def w(url):
    return WorkspaceClient(host=url, token="dapi-minilake-mlflow", auth_type="pat")


def test_a_notebook_job_logs_runs_artifacts_and_a_model(w, folder):
    probe = f"{folder}/probe.py"
    w.workspace.upload(probe, b"print('probe')\n", format=ImportFormat.AUTO, overwrite=True)
    run = w.jobs.submit_and_wait(
        run_name="probe",
        tasks=[jobs.SubmitTask(task_key="p", spark_python_task=jobs.SparkPythonTask(python_file=probe))],
    )
    if run.state.result_state != jobs.RunResultState.SUCCESS:
        out = w.jobs.get_run_output(run.tasks[0].run_id)
        if "engine is not available" in (out.error or ""):
            pytest.skip(f"Spark is not installed here ({out.error}); run: {INSTALL}")
        pytest.fail(f"probe task failed: {out.error}\n{out.logs}")

    nb = f"{folder}/train"
    w.workspace.upload(nb, NOTEBOOK.encode(), language=Language.PYTHON, format=ImportFormat.SOURCE, overwrite=True)
    exp_path = f"{folder}/job-experiment"
    created = w.jobs.create(
        name="train-with-mlflow",
        tasks=[
            jobs.Task(
                task_key="train",
                notebook_task=jobs.NotebookTask(notebook_path=nb, base_parameters={"experiment": exp_path}),
                environment_key="ml",
            )
        ],
        environments=[
            jobs.JobEnvironment(
                environment_key="ml",
                spec=compute.Environment(client="2", dependencies=["mlflow==3.17.2", "scikit-learn==1.9.1"]),
            )
        ],
    )
    run = w.jobs.run_now_and_wait(created.job_id, timeout=datetime.timedelta(minutes=15))
    task = run.tasks[0]
    out = w.jobs.get_run_output(task.run_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, f"{out.error}\n{out.logs}\n{out.error_trace}"
    run_id = out.notebook_output.result

    client = MlflowClient()
    got = client.get_run(run_id)
    assert got.info.run_name == "from-a-job" and got.data.params == {"where": "job"}
    assert [(m.step, m.value) for m in sorted(client.get_metric_history(run_id, "loss"), key=lambda m: m.step)] == [
        (0, 0.5),
        (1, 0.25),
        (2, 0.125),
    ]
    assert client.get_experiment(got.info.experiment_id).name == exp_path
    assert [f.path for f in client.list_artifacts(run_id, "notes")] == ["notes/hello.txt"]
    text = client.download_artifacts(run_id, "notes/hello.txt")
    assert open(text).read() == "written by the job"
    models = client.search_logged_models(experiment_ids=[got.info.experiment_id])
    assert len(models) == 1 and models[0].source_run_id == run_id
