"""The mlflow client with MLFLOW_TRACKING_URI=databricks, unchanged, against MiniLake: the flow of an ML engineer
(experiment at a workspace path, params, metric history, tags, an artifact directory, a scikit-learn model with
a signature, search), and what Databricks adds around it (the experiment is a workspace object, artifacts are
files, experiment permissions)."""
import os

import mlflow
import pandas as pd
import pytest
from mlflow import MlflowClient
from mlflow.exceptions import MlflowException
from mlflow.models import infer_signature
from sklearn.linear_model import LinearRegression

from conftest import raw_request, unique



def fit():
    X = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    return X, LinearRegression().fit(X, 2 * X["x"] + 1)


def test_a_run_with_params_metric_history_tags_artifacts_and_a_model(server, api, folder, tmp_path):
    exp_path = f"{folder}/train"
    exp = mlflow.set_experiment(exp_path)
    assert exp.name == exp_path and exp.artifact_location == f"dbfs:/databricks/mlflow-tracking/{exp.experiment_id}"
    art = tmp_path / "report"
    (art / "plots").mkdir(parents=True)
    (art / "summary.txt").write_text("loss went down\n")
    (art / "plots" / "curve.csv").write_text("step,loss\n0,0.9\n1,0.6\n2,0.3\n")
    X, model = fit()
    with mlflow.start_run(run_name="first") as run:
        mlflow.log_params({"alpha": "0.5", "solver": "lsqr"})
        for step, loss in enumerate([0.9, 0.6, 0.3]):
            mlflow.log_metric("loss", loss, step=step)
        mlflow.set_tags({"team": "ml", "stage": "dev"})
        mlflow.log_artifacts(str(art), artifact_path="report")
        info = mlflow.sklearn.log_model(
            model, name="model", signature=infer_signature(X, model.predict(X)), pip_requirements=["scikit-learn"]
        )
    rid = run.info.run_id
    client = MlflowClient()
    got = client.get_run(rid)
    assert got.data.params == {"alpha": "0.5", "solver": "lsqr"}
    assert got.data.metrics == {"loss": 0.3}
    assert got.data.tags["team"] == "ml" and got.data.tags["stage"] == "dev"
    assert got.info.status == "FINISHED"
    assert [(m.step, m.value) for m in sorted(client.get_metric_history(rid, "loss"), key=lambda m: m.step)] == [
        (0, 0.9),
        (1, 0.6),
        (2, 0.3),
    ]

    # The artifact directory: listed, downloaded, and real files in MiniLake's data dir.
    top = sorted(f.path for f in client.list_artifacts(rid))
    assert "report" in top
    assert sorted(f.path for f in client.list_artifacts(rid, "report")) == ["report/plots", "report/summary.txt"]
    dl = mlflow.artifacts.download_artifacts(run_id=rid, artifact_path="report", dst_path=str(tmp_path / "dl"))
    assert open(os.path.join(dl, "plots", "curve.csv")).read().startswith("step,loss")
    on_disk = os.path.join(
        server.data_dir, "mlflow", "artifacts", exp.experiment_id, rid, "artifacts", "report", "summary.txt"
    )
    assert open(on_disk).read() == "loss went down\n"

    # The logged model loads back from its own files and predicts.
    loaded = mlflow.pyfunc.load_model(info.model_uri)
    assert abs(float(loaded.predict(pd.DataFrame({"x": [10.0]}))[0]) - 21.0) < 1e-6
    assert loaded.metadata.signature is not None

    # Search by param, metric and tag.
    with mlflow.start_run(run_name="second"):
        mlflow.log_param("alpha", "0.1")
        mlflow.log_metric("loss", 0.7)
    found = mlflow.search_runs([exp.experiment_id], filter_string="params.alpha = '0.5'", output_format="list")
    assert [r.info.run_id for r in found] == [rid]
    found = mlflow.search_runs([exp.experiment_id], filter_string="metrics.loss < 0.5", output_format="list")
    assert [r.info.run_id for r in found] == [rid]
    found = mlflow.search_runs([exp.experiment_id], order_by=["metrics.loss DESC"], output_format="list")
    assert [r.info.run_name for r in found] == ["second", "first"]
    assert [e.name for e in mlflow.search_experiments(filter_string=f"name = '{exp_path}'")] == [exp_path]

    # The experiment is a workspace object of type MLFLOW_EXPERIMENT, listed in its folder.
    st = api.ok("GET", "/api/2.0/workspace/get-status", params={"path": exp_path})
    assert st["object_type"] == "MLFLOW_EXPERIMENT" and st["resource_id"] == exp.experiment_id
    listed = api.ok("GET", "/api/2.0/workspace/list", params={"path": folder})["objects"]
    assert [(o["path"], o["object_type"]) for o in listed] == [(exp_path, "MLFLOW_EXPERIMENT")]
    assert mlflow.get_experiment_by_name(f"/Workspace{exp_path}").experiment_id == exp.experiment_id


def test_experiment_names_are_workspace_paths(api, folder):
    client = MlflowClient()
    with pytest.raises(MlflowException) as e:
        client.create_experiment("no-slash")
    assert e.value.error_code == "INVALID_PARAMETER_VALUE" and "absolute path" in e.value.message
    with pytest.raises(MlflowException) as e:
        client.create_experiment(f"{folder}/missing/exp")
    assert e.value.error_code == "RESOURCE_DOES_NOT_EXIST"
    # A notebook in the way, and the /Workspace form of a taken path.
    api.ok("POST", "/api/2.0/workspace/import", json={"path": f"{folder}/nb", "language": "PYTHON", "content": "", "format": "SOURCE"})
    with pytest.raises(MlflowException) as e:
        client.create_experiment(f"{folder}/nb")
    assert e.value.error_code == "RESOURCE_ALREADY_EXISTS"
    eid = client.create_experiment(f"/Workspace{folder}/exp")
    assert client.get_experiment(eid).name == f"{folder}/exp"
    with pytest.raises(MlflowException) as e:
        client.create_experiment(f"{folder}/exp")
    assert e.value.error_code == "RESOURCE_ALREADY_EXISTS"
    # Nothing else can be written over it.
    status, body = api.call(
        "POST",
        "/api/2.0/workspace/import",
        json={"path": f"{folder}/exp", "format": "RAW", "content": "", "overwrite": True},
    )
    assert status == 409 and body["error_code"] == "RESOURCE_ALREADY_EXISTS"
    # Renaming the experiment moves its workspace object.
    client.rename_experiment(eid, f"{folder}/renamed")
    assert api.call("GET", "/api/2.0/workspace/get-status", params={"path": f"{folder}/exp"})[0] == 404
    assert api.ok("GET", "/api/2.0/workspace/get-status", params={"path": f"{folder}/renamed"})["resource_id"] == eid
    with pytest.raises(MlflowException) as e:
        client.rename_experiment(eid, f"{folder}/nb")
    assert e.value.error_code == "RESOURCE_ALREADY_EXISTS"
    assert client.get_experiment(eid).name == f"{folder}/renamed"


def test_the_preview_form_of_the_api_goes_through(api, folder):
    """Older clients and tools send /api/2.0/preview/mlflow/...: the same API, Databricks' layer included."""
    path = f"{folder}/preview"
    eid = api.ok("POST", "/api/2.0/preview/mlflow/experiments/create", json={"name": path})["experiment_id"]
    assert api.ok("GET", "/api/2.0/preview/mlflow/experiments/get", params={"experiment_id": eid})["experiment"]["name"] == path
    assert api.ok("GET", "/api/2.0/workspace/get-status", params={"path": path})["object_type"] == "MLFLOW_EXPERIMENT"
    run = api.ok("POST", "/api/2.0/preview/mlflow/runs/create", json={"experiment_id": eid})["run"]
    api.ok("POST", "/api/2.0/preview/mlflow/runs/log-metric",
           json={"run_id": run["info"]["run_id"], "key": "m", "value": 1.5, "timestamp": 0})
    assert MlflowClient().get_run(run["info"]["run_id"]).data.metrics == {"m": 1.5}
    status, body = api.call("GET", "/api/2.0/preview/mlflow/experiments/get", params={"experiment_id": "987654321"})
    assert status == 404 and body["error_code"] == "RESOURCE_DOES_NOT_EXIST"


def test_an_admin_creates_in_another_users_home_folder(api):
    """The default single-user mode: every caller is the workspace admin, who manages every folder (as on
    Databricks), so another user's home folder takes an experiment."""
    status, user = api.call("POST", "/api/2.0/preview/scim/v2/Users", json={"userName": f"{unique('other')}@example.com"})
    assert status == 201, user
    other = user["userName"]
    path = f"/Users/{other}/{unique('exp')}"
    eid = MlflowClient().create_experiment(path)
    assert api.ok("GET", "/api/2.0/workspace/get-status", params={"path": path})["resource_id"] == eid


def test_delete_and_restore(api, folder):
    client = MlflowClient()
    path = f"{folder}/exp"
    eid = client.create_experiment(path)
    run = client.create_run(eid)
    client.log_metric(run.info.run_id, "m", 1.0)
    client.delete_run(run.info.run_id)
    assert client.get_run(run.info.run_id).info.lifecycle_stage == "deleted"
    assert client.search_runs([eid]) == []
    client.restore_run(run.info.run_id)
    assert [r.info.run_id for r in client.search_runs([eid])] == [run.info.run_id]

    client.delete_experiment(eid)
    assert client.get_experiment(eid).lifecycle_stage == "deleted"
    assert api.call("GET", "/api/2.0/workspace/get-status", params={"path": path})[0] == 404
    client.restore_experiment(eid)
    assert client.get_experiment(eid).lifecycle_stage == "active"
    assert api.ok("GET", "/api/2.0/workspace/get-status", params={"path": path})["object_type"] == "MLFLOW_EXPERIMENT"

    # Deleting the folder in the workspace deletes the experiments in it.
    api.ok("POST", "/api/2.0/workspace/delete", json={"path": folder, "recursive": True})
    assert client.get_experiment(eid).lifecycle_stage == "deleted"


def test_unknown_ids_give_databricks_error_codes(api):
    client = MlflowClient()
    for call in (
        lambda: client.get_run("0123456789abcdef0123456789abcdef"),
        lambda: client.get_experiment("987654321"),
        lambda: client.log_metric("0123456789abcdef0123456789abcdef", "m", 1.0),
        lambda: client.get_metric_history("0123456789abcdef0123456789abcdef", "m"),
    ):
        with pytest.raises(MlflowException) as e:
            call()
        assert e.value.error_code == "RESOURCE_DOES_NOT_EXIST", e.value.message
    status, body = api.call("GET", "/api/2.0/mlflow/runs/get", params={"run_id": "nope"})
    assert status == 404 and body["error_code"] == "RESOURCE_DOES_NOT_EXIST"
    status, body = api.call("GET", "/api/2.0/mlflow/artifacts/list", params={"run_id": "0123456789abcdef0123456789abcdef"})
    assert status == 404 and body["error_code"] == "RESOURCE_DOES_NOT_EXIST"
    assert api.call("GET", "/api/2.0/permissions/experiments/987654321")[0] == 404


def test_artifact_paths_never_leave_their_root(server, api, folder, url):
    client = MlflowClient()
    eid = client.create_experiment(f"{folder}/exp")
    rid = client.create_run(eid).info.run_id
    root = f"/api/2.0/fs/files/WorkspaceInternal/Mlflow/Artifacts/{eid}/Runs/{rid}/artifacts"
    assert api.call("PUT", f"{root}/ok.txt", data=b"fine")[0] == 204
    # Sent as written (requests would fold the dot segments before sending).
    for bad in ("../../../../../../etc/passwd", "..%2F..%2Fescape.txt", "%2e%2e/x"):
        status, body = raw_request(url, "PUT", f"{root}/{bad}", body=b"x")
        assert status == 400, (bad, status, body)
    for bad in ("../x", "a/../../b", "..\\x"):
        status, body = api.call("GET", "/api/2.0/mlflow/artifacts/list", params={"run_id": rid, "path": bad})
        assert status == 400 and body["error_code"] == "INVALID_PARAMETER_VALUE", (bad, body)
        status, body = api.call("POST", "/api/2.0/mlflow/artifacts/credentials-for-write", json={"run_id": rid, "path": [bad]})
        assert status == 400, (bad, body)
    # A run of another experiment is not reachable under this one.
    other = client.create_experiment(f"{folder}/other")
    assert api.call("GET", f"/api/2.0/fs/files/WorkspaceInternal/Mlflow/Artifacts/{other}/Runs/{rid}/artifacts/ok.txt")[0] == 404
    # A signed link names one file and one method, and its signature is checked.
    infos = api.ok("POST", "/api/2.0/mlflow/artifacts/credentials-for-write", json={"run_id": rid, "path": ["signed.txt"]})
    link = infos["credential_infos"][0]["signed_uri"]
    import requests

    assert requests.put(link, data=b"signed", timeout=30).status_code == 200
    assert requests.get(link, timeout=30).status_code == 403  # a write link does not read
    assert requests.put(link.replace("signed.txt", "other.txt"), data=b"x", timeout=30).status_code == 403
    assert requests.put(link[:-3] + "AAA", data=b"x", timeout=30).status_code == 403
    assert sorted(f.path for f in client.list_artifacts(rid)) == ["ok.txt", "signed.txt"]
    assert not os.path.exists(os.path.join(server.data_dir, "escape.txt"))


def test_credential_calls_carry_artifacts_when_the_files_api_is_not_used(folder, tmp_path, monkeypatch):
    """The client's other path for run artifacts: credentials-for-write / -read and signed links."""
    monkeypatch.setenv("MLFLOW_DISABLE_DATABRICKS_SDK_FOR_RUN_ARTIFACTS", "true")
    mlflow.set_experiment(f"{folder}/exp")
    (tmp_path / "d").mkdir()
    (tmp_path / "d" / "a.txt").write_text("via signed links\n")
    with mlflow.start_run() as run:
        mlflow.log_artifacts(str(tmp_path / "d"), artifact_path="out")
    client = MlflowClient()
    assert [f.path for f in client.list_artifacts(run.info.run_id, "out")] == ["out/a.txt"]
    got = mlflow.artifacts.download_artifacts(run_id=run.info.run_id, artifact_path="out/a.txt", dst_path=str(tmp_path / "dl"))
    assert open(got).read() == "via signed links\n"


def test_experiment_permissions(api, folder, me):
    eid = MlflowClient().create_experiment(f"{folder}/exp")
    acl = api.ok("GET", f"/api/2.0/permissions/experiments/{eid}")
    assert acl["object_type"] == "mlflowExperiment"
    api.ok(
        "PATCH",
        f"/api/2.0/permissions/experiments/{eid}",
        json={"access_control_list": [{"group_name": "users", "permission_level": "CAN_READ"}]},
    )
    acl = api.ok("GET", f"/api/2.0/permissions/experiments/{eid}")
    assert {"group_name": "users", "all_permissions": [{"permission_level": "CAN_READ", "inherited": False}]} in [
        {k: a[k] for k in ("group_name", "all_permissions") if k in a} for a in acl["access_control_list"]
    ]


def test_the_mlflow_ui_is_served(api, url):
    import requests

    r = requests.get(f"{url}/mlflow/", timeout=120)
    assert r.status_code == 200 and "<html" in r.text.lower()
    r = requests.get(f"{url}/ml/experiments/1/runs/abc", allow_redirects=False, timeout=30)
    assert r.status_code == 302 and r.headers["location"] == "/mlflow/#/experiments/1/runs/abc"
    # The UI's own calls go through the same experiment rules.
    status, body = api.call("POST", "/mlflow/ajax-api/2.0/mlflow/experiments/create", json={"name": "ui-made"})
    assert status == 400 and body["error_code"] == "INVALID_PARAMETER_VALUE"


def test_workspace_registry_and_its_databricks_route(api):
    """The workspace model registry is the MLflow server's; Databricks' own get adds the caller's permission."""
    name = f"ws-model-{os.getpid()}"
    api.ok("POST", "/api/2.0/mlflow/registered-models/create", json={"name": name})
    got = api.ok("GET", "/api/2.0/mlflow/databricks/registered-models/get", params={"name": name})
    assert got["registered_model_databricks"]["name"] == name
    assert got["registered_model_databricks"]["permission_level"] == "CAN_MANAGE"
    status, body = api.call("GET", "/api/2.0/mlflow/databricks/registered-models/get", params={"name": "missing-model"})
    assert status == 404 and body["error_code"] == "RESOURCE_DOES_NOT_EXIST"
