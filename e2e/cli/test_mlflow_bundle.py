"""A bundle with MLflow resources (`experiments`, `registered_models` with grants) through the real CLI: deploy,
deploy again with nothing to change, destroy, with both deployment engines. Skips only when the MLflow install
is missing (`bash packages/mlflow/install.sh`; CI runs it): experiments live on the MLflow server."""
import os
import shutil

import pytest
from databricks.sdk.errors import NotFound, ResourceDoesNotExist

from minilake import unique
from test_bundle import engine_env

HERE = os.path.dirname(__file__)


@pytest.fixture
def mlflow_server(api):
    # The first MLflow request starts the MLflow server (seconds, more on a busy machine).
    r = api.s.get(api.url + "/api/2.0/mlflow/experiments/get", params={"experiment_id": "0"}, timeout=300)
    if r.status_code == 503 and "install" in r.text:
        pytest.skip(f"MLflow is not installed here: {r.json()['message']}")
    assert r.status_code == 200, r.text


@pytest.mark.parametrize("engine", ["direct", "terraform"])
def test_mlflow_bundle_deploys_redeploys_and_destroys(engine, cli, w, api, mlflow_server, tmp_path):
    project = tmp_path / "bundle"
    shutil.copytree(os.path.join(HERE, "mlflow_bundle"), project)
    cat = unique("mlb")
    w.catalogs.create(name=cat)
    sfx = unique("x")
    env = engine_env(engine)
    vars_ = ["--var", f"catalog={cat}", "--var", f"suffix={sfx}"]

    def bundle(*args, **kw):
        return cli.run("bundle", *args, *vars_, cwd=project, env=env, **kw)

    bundle("validate")
    bundle("deploy")
    summary = cli.json("bundle", "summary", *vars_, cwd=project, env=env)
    exp_id = summary["resources"]["experiments"]["training"]["id"]
    me = w.current_user.me().user_name
    path = f"/Users/{me}/minilake_mlflow-{sfx}"
    exp = w.experiments.get_experiment(exp_id).experiment
    assert exp.name == path and exp.lifecycle_stage == "active"
    # The SDK's ObjectType enum has no MLFLOW_EXPERIMENT (it reads None): the raw answer.
    assert api.get("/api/2.0/workspace/get-status", {"path": path}).json()["object_type"] == "MLFLOW_EXPERIMENT"
    acl = w.experiments.get_permissions(exp_id).access_control_list
    assert any(a.group_name == "users" and a.all_permissions[0].permission_level.value == "CAN_READ" for a in acl)
    model = w.registered_models.get(f"{cat}.ml.churn")
    assert model.comment == "made by the bundle"
    grants = w.grants.get("function", f"{cat}.ml.churn").privilege_assignments
    assert [(g.principal, [p.value for p in g.privileges]) for g in grants] == [("users", ["EXECUTE"])]

    # Deploying again changes nothing.
    before = (exp.as_dict(), model.as_dict())
    bundle("deploy")
    after_exp = w.experiments.get_experiment(exp_id).experiment
    assert (after_exp.as_dict(), w.registered_models.get(f"{cat}.ml.churn").as_dict()) == before
    if engine == "direct":
        plan = cli.run("bundle", "plan", *vars_, cwd=project, env=env)
        assert "Plan: 0 to add, 0 to change, 0 to delete" in plan.stdout, plan.stdout

    bundle("destroy", "--auto-approve")
    assert w.experiments.get_experiment(exp_id).experiment.lifecycle_stage == "deleted"
    with pytest.raises((NotFound, ResourceDoesNotExist)):
        w.workspace.get_status(path)
    with pytest.raises((NotFound, ResourceDoesNotExist)):
        w.registered_models.get(f"{cat}.ml.churn")
