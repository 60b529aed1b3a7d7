"""The MLflow server as MiniLake's child: its data kept with MINILAKE_PERSIST=1 across a SIGKILL of MiniLake (and
no MLflow process left behind), snapshots that bring experiments and models back, and the error a MiniLake
without the install answers."""
import os
import tempfile
import time

import mlflow
import pytest
import requests
from mlflow import MlflowClient

from conftest import Server, client_env, unique


def mlflow_processes(data_dir):
    """PIDs whose command line names this data dir's MLflow database (the launcher, the CLI, uvicorn)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            cmd = open(f"/proc/{pid}/cmdline", "rb").read().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if os.path.join(data_dir, "mlflow", "mlflow.db") in cmd:
            found.append(int(pid))
    return found


@pytest.fixture
def point_at(monkeypatch):
    def go(url):
        for k, val in client_env(url).items():
            monkeypatch.setenv(k, val)

    return go


def call(url, method, path, **kw):
    r = requests.request(method, url + path, headers={"Authorization": "Bearer x"}, timeout=180, **kw)
    return r.status_code, r.json()


def test_persisted_across_a_crash_and_snapshots(point_at, tmp_path):
    data = tempfile.mkdtemp(prefix="minilake-mlflow-persist-")
    s = Server(env={"MINILAKE_PERSIST": "1"}, data_dir=data)
    try:
        point_at(s.url)
        me = call(s.url, "GET", "/api/2.0/preview/scim/v2/Me")[1]["userName"]
        folder = f"/Users/{me}/{unique('p')}"
        assert call(s.url, "POST", "/api/2.0/workspace/mkdirs", json={"path": folder})[0] == 200
        client = MlflowClient()
        eid = client.create_experiment(f"{folder}/exp")
        run = client.create_run(eid)
        rid = run.info.run_id
        for i, v in enumerate([3.0, 2.0, 1.0]):
            client.log_metric(rid, "loss", v, step=i)
        (tmp_path / "a.txt").write_text("kept\n")
        client.log_artifact(rid, str(tmp_path / "a.txt"))
        client.set_terminated(rid)
        cat = unique("pc")
        assert call(s.url, "POST", "/api/2.1/unity-catalog/catalogs", json={"name": cat})[0] == 200
        assert call(s.url, "POST", "/api/2.1/unity-catalog/models", json={"catalog_name": cat, "schema_name": "default", "name": "m"})[0] == 200
        assert mlflow_processes(data), "the MLflow server runs"

        s.kill9()
        # MiniLake's death closes the launcher's stdin: the MLflow server goes with it.
        deadline = time.time() + 20
        while mlflow_processes(data) and time.time() < deadline:
            time.sleep(0.2)
        assert mlflow_processes(data) == []

        s = Server(env={"MINILAKE_PERSIST": "1"}, data_dir=data)
        point_at(s.url)
        client = MlflowClient()
        got = client.get_run(rid)
        assert got.data.metrics == {"loss": 1.0} and got.info.status == "FINISHED"
        assert [m.value for m in sorted(client.get_metric_history(rid, "loss"), key=lambda m: m.step)] == [3.0, 2.0, 1.0]
        assert [f.path for f in client.list_artifacts(rid)] == ["a.txt"]
        assert call(s.url, "GET", "/api/2.0/workspace/get-status", params={"path": f"{folder}/exp"})[1]["object_type"] == "MLFLOW_EXPERIMENT"
        assert call(s.url, "GET", f"/api/2.1/unity-catalog/models/{cat}.default.m")[0] == 200
        assert call(s.url, "GET", f"/api/2.0/permissions/experiments/{eid}")[0] == 200

        # A snapshot, then changes, then the snapshot back: the experiment, its run and the model return.
        assert call(s.url, "POST", "/_minilake/snapshots", json={"name": "before"})[0] == 200
        client.delete_experiment(eid)
        assert call(s.url, "DELETE", f"/api/2.1/unity-catalog/models/{cat}.default.m")[0] == 200
        other = client.create_experiment(f"{folder}/later")
        assert call(s.url, "POST", "/_minilake/snapshots/before/restore")[0] == 200
        client = MlflowClient()
        assert client.get_experiment(eid).lifecycle_stage == "active"
        assert [f.path for f in client.list_artifacts(rid)] == ["a.txt"]
        assert call(s.url, "GET", f"/api/2.1/unity-catalog/models/{cat}.default.m")[0] == 200
        assert call(s.url, "GET", "/api/2.0/workspace/get-status", params={"path": f"{folder}/later"})[0] == 404
        status, body = call(s.url, "GET", "/api/2.0/mlflow/experiments/get", params={"experiment_id": other})
        assert status == 404 and body["error_code"] == "RESOURCE_DOES_NOT_EXIST"
    finally:
        s.stop()
    assert mlflow_processes(data) == []


def test_reset_empties_the_tracking_data(point_at):
    """POST /_minilake/reset: the experiments, runs and artifacts are gone, and the next request starts afresh."""
    s = Server()
    try:
        point_at(s.url)
        me = call(s.url, "GET", "/api/2.0/preview/scim/v2/Me")[1]["userName"]
        client = MlflowClient()
        path = f"/Users/{me}/{unique('reset')}"
        eid = client.create_experiment(path)
        run = client.create_run(eid)
        client.log_text(run.info.run_id, "hello", "notes.txt")
        assert call(s.url, "POST", "/_minilake/reset")[0] == 200
        status, body = call(s.url, "GET", "/api/2.0/mlflow/experiments/get", params={"experiment_id": eid})
        assert status == 404 and body["error_code"] == "RESOURCE_DOES_NOT_EXIST", body
        status, body = call(s.url, "GET", "/api/2.0/mlflow/runs/get", params={"run_id": run.info.run_id})
        assert status == 404 and body["error_code"] == "RESOURCE_DOES_NOT_EXIST", body
        assert client.get_experiment_by_name(path) is None
        assert call(s.url, "GET", "/api/2.0/workspace/get-status", params={"path": path})[0] == 404
        artifacts = os.path.join(s.data_dir, "mlflow", "artifacts")
        assert not os.path.isdir(artifacts) or os.listdir(artifacts) == []
        # The path is free again.
        assert client.get_experiment(client.create_experiment(path)).name == path
    finally:
        s.stop()


def test_without_the_install_mlflow_requests_say_what_to_run(tmp_path):
    s = Server(env={"MINILAKE_CACHE": str(tmp_path / "empty-cache")})
    try:
        status, body = call(s.url, "POST", "/api/2.0/mlflow/experiments/create", json={"name": "/Users/x/e"})
        assert status == 503 and body["error_code"] == "TEMPORARILY_UNAVAILABLE"
        assert "packages/mlflow/install.sh" in body["message"], body
        # Unity Catalog's models need no MLflow server.
        assert call(s.url, "POST", "/api/2.1/unity-catalog/catalogs", json={"name": "c"})[0] == 200
        assert call(s.url, "POST", "/api/2.1/unity-catalog/models", json={"catalog_name": "c", "schema_name": "default", "name": "m"})[0] == 200
    finally:
        s.stop()
    s = Server(env={"MINILAKE_MLFLOW_PYTHON": str(tmp_path / "no-python")})
    try:
        status, body = call(s.url, "GET", "/api/2.0/mlflow/experiments/get", params={"experiment_id": "1"})
        assert status == 503 and "MINILAKE_MLFLOW_PYTHON" in body["message"], body
    finally:
        s.stop()
