"""Issue 30, object permissions enforced (MINILAKE_AUTH=tokens, MINILAKE_ENFORCE=1) through the real Python
SDK: the bootstrap admin (MINILAKE_ADMIN_TOKEN) creates objects, a service principal with an on-behalf-of
token is refused, the admin grants it a level through the SDK's permissions calls, then it is allowed exactly
what that level allows."""
import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import PermissionDenied
from databricks.sdk.service import iam, jobs

from conftest import Server, unique

ADMIN = "e2e-acl-admin"


@pytest.fixture(scope="module")
def enforced():
    s = Server(env={"MINILAKE_AUTH": "tokens", "MINILAKE_ENFORCE": "1", "MINILAKE_ADMIN_TOKEN": ADMIN,
                    "MINILAKE_SERVICES": "iam,jobs,sql,compute", "MINILAKE_CLUSTER_RUNTIME": "none"})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def admin(enforced):
    return WorkspaceClient(host=enforced.url, token=ADMIN, auth_type="pat")


@pytest.fixture(scope="module")
def bot(enforced, admin):
    """A second identity: a service principal with an on-behalf-of token; returns (client, applicationId)."""
    sp = admin.service_principals.create(display_name=unique("acl-bot"))
    obo = admin.token_management.create_obo_token(application_id=sp.application_id, lifetime_seconds=3600)
    return WorkspaceClient(host=enforced.url, token=obo.token_value, auth_type="pat"), sp.application_id


def _condition_job(client, name):
    return client.jobs.create(name=name, tasks=[jobs.Task(
        task_key="c", condition_task=jobs.ConditionTask(op=jobs.ConditionTaskOp.EQUAL_TO, left="1", right="1"))])


def test_jobs(admin, bot):
    sp, app = bot
    job_id = _condition_job(admin, unique("acl-job")).job_id
    run_id = admin.jobs.run_now(job_id).result().run_id

    # No grant: the job is invisible in lists, and every call on it or its runs is refused.
    assert job_id not in [j.job_id for j in sp.jobs.list()]
    assert run_id not in [r.run_id for r in sp.jobs.list_runs()]
    with pytest.raises(PermissionDenied, match=f'User "{app}" does not have View or Owner or Admin permissions on job {job_id}'):
        sp.jobs.get(job_id)
    with pytest.raises(PermissionDenied):
        sp.jobs.get_run(run_id)
    with pytest.raises(PermissionDenied, match="Manage Run or Owner or Admin"):
        sp.jobs.run_now(job_id)
    with pytest.raises(PermissionDenied):
        sp.jobs.get_permissions(str(job_id))

    # CAN_VIEW: seen, not run.
    admin.jobs.update_permissions(str(job_id), access_control_list=[
        jobs.JobAccessControlRequest(service_principal_name=app, permission_level=jobs.JobPermissionLevel.CAN_VIEW)])
    assert sp.jobs.get(job_id).job_id == job_id
    assert job_id in [j.job_id for j in sp.jobs.list()]
    assert sp.jobs.get_run(run_id).state.result_state == jobs.RunResultState.SUCCESS
    assert run_id in [r.run_id for r in sp.jobs.list_runs(job_id=job_id)]
    with pytest.raises(PermissionDenied):
        sp.jobs.run_now(job_id)

    # CAN_MANAGE_RUN: runs it, may not change it or its permissions.
    admin.jobs.update_permissions(str(job_id), access_control_list=[
        jobs.JobAccessControlRequest(service_principal_name=app, permission_level=jobs.JobPermissionLevel.CAN_MANAGE_RUN)])
    run2 = sp.jobs.run_now(job_id).result()
    assert run2.state.result_state == jobs.RunResultState.SUCCESS
    with pytest.raises(PermissionDenied, match="Manage or Owner or Admin"):
        sp.jobs.update(job_id, new_settings=jobs.JobSettings(name="renamed"))
    with pytest.raises(PermissionDenied):
        sp.jobs.delete(job_id)
    with pytest.raises(PermissionDenied):
        sp.jobs.set_permissions(str(job_id), access_control_list=[])

    # CAN_MANAGE: edits, reads and changes the ACL, deletes.
    admin.permissions.update("jobs", str(job_id), access_control_list=[
        iam.AccessControlRequest(service_principal_name=app, permission_level=iam.PermissionLevel.CAN_MANAGE)])
    sp.jobs.update(job_id, new_settings=jobs.JobSettings(name="renamed"))
    assert sp.jobs.get(job_id).settings.name == "renamed"
    assert any(a.service_principal_name == app for a in sp.jobs.get_permissions(str(job_id)).access_control_list)
    sp.jobs.delete(job_id)


def test_a_job_is_its_creators_and_a_one_time_run_its_submitters(admin, bot):
    sp, app = bot
    mine = _condition_job(sp, unique("acl-own")).job_id
    # The creator owns what it creates, as Databricks sets it at create.
    assert sp.jobs.get(mine).creator_user_name == app
    owners = [a for a in sp.jobs.get_permissions(str(mine)).access_control_list
              if any(p.permission_level == jobs.JobPermissionLevel.IS_OWNER for p in a.all_permissions)]
    assert [o.service_principal_name for o in owners] == [app]
    sp.jobs.run_now(mine).result()
    # The admin sees everything.
    assert admin.jobs.get(mine).job_id == mine
    submitted = admin.jobs.submit(run_name=unique("acl-once"), tasks=[jobs.SubmitTask(
        task_key="c", condition_task=jobs.ConditionTask(op=jobs.ConditionTaskOp.EQUAL_TO, left="1", right="1"))]).result()
    with pytest.raises(PermissionDenied):
        sp.jobs.get_run(submitted.run_id)
    assert submitted.run_id not in [r.run_id for r in sp.jobs.list_runs()]
    sp.jobs.delete(mine)
