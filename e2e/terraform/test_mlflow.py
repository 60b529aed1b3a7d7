"""The real Terraform provider's databricks_mlflow_experiment (with databricks_permissions) and
databricks_registered_model (with databricks_grants) against MiniLake: apply, an empty second plan, the objects
really there, destroy. Skips only when the MLflow install is missing (`bash packages/mlflow/install.sh`)."""
import json
import os
import time

import pytest
from databricks.sdk.errors import NotFound, ResourceDoesNotExist

HERE = os.path.dirname(__file__)


def test_mlflow_experiment_and_registered_model(server, w, api, terraform_factory):
    # The first MLflow request starts the MLflow server (seconds, more on a busy machine).
    r = api.s.get(api.url + "/api/2.0/mlflow/experiments/get", params={"experiment_id": "0"}, timeout=300)
    if r.status_code == 503 and "install" in r.text:
        pytest.skip(f"MLflow is not installed here: {r.json()['message']}")
    sfx = f"{os.getpid()}{time.time_ns() % 10**6}"
    with open(os.path.join(HERE, "mlflow.tf")) as f:
        main = f.read()
    tf = terraform_factory({"main.tf": main, "terraform.tfvars": f'host = "{server.url}"\nsuffix = "{sfx}"\n'})
    tf.init()
    tf.apply()
    code, plan = tf.plan_exit()
    assert code == 0, plan

    exp_id = json.loads(tf.run("output", "-json").stdout)["experiment_id"]["value"]
    me = w.current_user.me().user_name
    path = f"/Users/{me}/tf-ml-{sfx}/experiment"
    assert w.experiments.get_experiment(exp_id).experiment.name == path
    # The SDK's ObjectType enum has no MLFLOW_EXPERIMENT (it reads None): the raw answer.
    assert api.get("/api/2.0/workspace/get-status", {"path": path}).json()["object_type"] == "MLFLOW_EXPERIMENT"
    acl = w.experiments.get_permissions(exp_id).access_control_list
    assert any(a.group_name == "users" for a in acl)
    model = w.registered_models.get(f"tfml_{sfx}.models.churn")
    assert model.comment == "made by terraform"
    grants = w.grants.get("function", f"tfml_{sfx}.models.churn").privilege_assignments
    assert [(g.principal, [p.value for p in g.privileges]) for g in grants] == [("users", ["EXECUTE"])]

    tf.destroy()
    assert w.experiments.get_experiment(exp_id).experiment.lifecycle_stage == "deleted"
    with pytest.raises((NotFound, ResourceDoesNotExist)):
        w.workspace.get_status(path)
    with pytest.raises((NotFound, ResourceDoesNotExist)):
        w.registered_models.get(f"tfml_{sfx}.models.churn")
