"""A path outside the caller's rights, with the real mlflow client: with MINILAKE_AUTH=tokens MINILAKE_ENFORCE=1 a
non-admin caller (a service principal with an on-behalf-of token) may not create an experiment in another user's
home folder, nor rename one into it (403 PERMISSION_DENIED, as Databricks refuses it); /Shared is everyone's, an
admin writes everywhere, and a Can Manage grant on the folder lets the caller in. The default single-user mode
(every caller the admin) is unchanged: see test_an_admin_creates_in_another_users_home_folder."""
import pytest
import requests
from databricks.sdk import WorkspaceClient
from databricks.sdk.service import workspace as ws
from mlflow import MlflowClient
from mlflow.exceptions import MlflowException

from conftest import Server, client_env, unique

ADMIN = "mlflow-acl-admin"


@pytest.fixture(scope="module")
def enforced():
    s = Server(env={"MINILAKE_AUTH": "tokens", "MINILAKE_ENFORCE": "1", "MINILAKE_ADMIN_TOKEN": ADMIN})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def admin(enforced):
    return WorkspaceClient(host=enforced.url, token=ADMIN, auth_type="pat")


@pytest.fixture(scope="module")
def alice(admin):
    """Another user: SCIM gives her a home folder /Users/<userName>."""
    return admin.users.create(user_name=f"{unique('alice')}@example.com").user_name


@pytest.fixture(scope="module")
def bot(enforced, admin):
    """The non-admin caller: a service principal and its on-behalf-of token; (token, applicationId)."""
    sp = admin.service_principals.create(display_name=unique("mlflow-bot"))
    obo = admin.token_management.create_obo_token(application_id=sp.application_id, lifetime_seconds=3600)
    return obo.token_value, sp.application_id


@pytest.fixture
def as_(enforced, monkeypatch):
    """An MlflowClient for MLFLOW_TRACKING_URI=databricks acting with `token`."""

    def go(token):
        for k, val in {**client_env(enforced.url), "DATABRICKS_TOKEN": token}.items():
            monkeypatch.setenv(k, val)
        return MlflowClient()

    return go


def test_another_users_home_folder_is_refused(enforced, as_, admin, alice, bot):
    token, app = bot
    home = f"/Users/{alice}"
    with pytest.raises(MlflowException) as e:
        as_(token).create_experiment(f"{home}/{unique('exp')}")
    assert e.value.error_code == "PERMISSION_DENIED"
    assert f'User "{app}" does not have Manage permissions on directory {home}' in e.value.message
    # The wire: 403 and Databricks' error shape; the /Workspace form of the path is the same folder.
    r = requests.post(f"{enforced.url}/api/2.0/mlflow/experiments/create",
                      headers={"Authorization": f"Bearer {token}"},
                      json={"name": f"/Workspace{home}/{unique('exp')}"}, timeout=180)
    assert r.status_code == 403 and r.json()["error_code"] == "PERMISSION_DENIED", r.text
    # Nothing was created there.
    assert [o.path for o in admin.workspace.list(home)] == []

    # /Shared is everyone's: the caller's own experiment, which it may not move into her folder either.
    client = as_(token)
    shared = f"/Shared/{unique('exp')}"
    eid = client.create_experiment(shared)
    with pytest.raises(MlflowException) as e:
        client.rename_experiment(eid, f"{home}/moved")
    assert e.value.error_code == "PERMISSION_DENIED"
    assert client.get_experiment(eid).name == shared
    assert admin.workspace.get_status(shared).resource_id == eid
    # The creator owns its experiment (Can Manage until an ACL is set).
    acl = admin.experiments.get_permissions(eid).access_control_list
    assert [(a.service_principal_name, a.all_permissions[0].permission_level.value) for a in acl
            if a.service_principal_name] == [(app, "CAN_MANAGE")]


def test_an_admin_writes_anywhere_and_a_grant_on_the_folder_lets_the_caller_in(as_, admin, alice, bot):
    token, app = bot
    home = f"/Users/{alice}"
    # Workspace admins manage every folder, users' home folders included.
    eid = as_(ADMIN).create_experiment(f"{home}/{unique('exp')}")
    assert as_(ADMIN).get_experiment(eid).name.startswith(home)

    # Can Manage on her home folder (granted through the permissions API) lets the service principal create there.
    folder_id = admin.workspace.get_status(home).object_id
    admin.workspace.update_permissions("directories", str(folder_id), access_control_list=[
        ws.WorkspaceObjectAccessControlRequest(service_principal_name=app,
                                               permission_level=ws.WorkspaceObjectPermissionLevel.CAN_MANAGE)])
    path = f"{home}/{unique('granted')}"
    eid = as_(token).create_experiment(path)
    assert admin.workspace.get_status(path).resource_id == eid


def test_experiment_permissions_are_enforced(as_, admin, bot):
    """The admin's experiment: the service principal may not see it, CAN_READ (experiments.set_permissions)
    reads it and its runs but logs nothing, CAN_EDIT logs, CAN_MANAGE deletes it."""
    from databricks.sdk.service import ml
    token, app = bot
    path = f"/Users/{admin.current_user.me().user_name}/{unique('exp')}"
    owner = as_(ADMIN)
    eid = owner.create_experiment(path)
    rid = owner.create_run(eid).info.run_id
    owner.log_metric(rid, "m", 1.0)

    def grant(level):
        admin.experiments.set_permissions(eid, access_control_list=[
            ml.ExperimentAccessControlRequest(service_principal_name=app, permission_level=level)])

    def refused(call, words):
        with pytest.raises(MlflowException) as e:
            call()
        assert e.value.error_code == "PERMISSION_DENIED", e.value.message
        assert f'User {app} does not have {words} or Admin permissions on experiment {eid}' in e.value.message

    sp = as_(token)
    refused(lambda: sp.get_experiment(eid), "Read")
    refused(lambda: sp.get_experiment_by_name(path), "Read")
    refused(lambda: sp.get_run(rid), "Read")
    refused(lambda: sp.search_runs([eid]), "Read")
    refused(lambda: sp.get_metric_history(rid, "m"), "Read")
    assert eid not in [x.experiment_id for x in sp.search_experiments()]

    grant(ml.ExperimentPermissionLevel.CAN_READ)
    assert sp.get_experiment(eid).name == path
    assert sp.get_run(rid).data.metrics == {"m": 1.0}
    assert [r.info.run_id for r in sp.search_runs([eid])] == [rid]
    assert eid in [x.experiment_id for x in sp.search_experiments()]
    assert [m.value for m in sp.get_metric_history(rid, "m")] == [1.0]
    refused(lambda: sp.log_metric(rid, "m", 2.0), "Edit")
    refused(lambda: sp.create_run(eid), "Edit")
    with pytest.raises(Exception, match="PERMISSION_DENIED|Edit or Admin"):
        sp.log_text(rid, "x", "a.txt")

    grant(ml.ExperimentPermissionLevel.CAN_EDIT)
    sp.log_metric(rid, "m", 2.0)
    mine = sp.create_run(eid).info.run_id
    sp.log_param(mine, "p", "v")
    sp.set_terminated(mine)
    assert sp.get_run(mine).data.params == {"p": "v"}
    sp.log_text(mine, "hello", "a.txt")
    assert [f.path for f in sp.list_artifacts(mine)] == ["a.txt"]
    refused(lambda: sp.delete_experiment(eid), "Manage")
    refused(lambda: sp.rename_experiment(eid, f"{path}-renamed"), "Manage")

    grant(ml.ExperimentPermissionLevel.CAN_MANAGE)
    assert any(a.service_principal_name == app for a in admin.experiments.get_permissions(eid).access_control_list)
    sp.delete_experiment(eid)
