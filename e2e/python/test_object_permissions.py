"""Issue 30, object permissions enforced (MINILAKE_AUTH=tokens, MINILAKE_ENFORCE=1) through the real Python
SDK: the bootstrap admin (MINILAKE_ADMIN_TOKEN) creates objects, a service principal with an on-behalf-of
token is refused, the admin grants it a level through the SDK's permissions calls, then it is allowed exactly
what that level allows."""
import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import PermissionDenied
from databricks.sdk.service import iam, jobs, sql as dbsql

from conftest import Server, unique

ADMIN = "e2e-acl-admin"


@pytest.fixture(scope="module")
def enforced():
    s = Server(env={"MINILAKE_AUTH": "tokens", "MINILAKE_ENFORCE": "1", "MINILAKE_ADMIN_TOKEN": ADMIN,
                    "MINILAKE_SERVICES": "iam,jobs,sql,thrift,compute,secrets,workspace", "MINILAKE_CLUSTER_RUNTIME": "none"})
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
    with pytest.raises(PermissionDenied, match=f'User {app} does not have View or Admin or Manage Run or Owner permissions on job {job_id}'):
        sp.jobs.get(job_id)
    with pytest.raises(PermissionDenied):
        sp.jobs.get_run(run_id)
    with pytest.raises(PermissionDenied, match="Admin or Manage Run or Owner"):
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
    with pytest.raises(PermissionDenied, match="does not have Admin or Owner permissions on job"):
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


def _thrift(url, wh, token):
    from databricks import sql as connector
    path = f"/sql/1.0/warehouses/{wh}"
    return connector.connect(server_hostname=url.split("//", 1)[1], http_path=path, access_token=token,
                             _connection_uri=url + path, enable_telemetry=False)


def test_warehouses(enforced, admin, bot):
    sp, app = bot
    wh = admin.warehouses.create(name=unique("acl-wh"), cluster_size="Small").id
    obo = admin.token_management.create_obo_token(application_id=app, lifetime_seconds=600).token_value

    # No grant: not listed, not readable, no statement (Statement API and Thrift), no start/stop/edit/delete.
    assert wh not in [x.id for x in sp.warehouses.list()]
    with pytest.raises(PermissionDenied, match=f"does not have View or Owner or Admin permissions on warehouse {wh}"):
        sp.warehouses.get(wh)
    with pytest.raises(PermissionDenied, match=f"does not have Use or Owner or Admin permissions on warehouse {wh}"):
        sp.statement_execution.execute_statement(warehouse_id=wh, statement="SELECT 1", wait_timeout="30s")
    with pytest.raises(Exception, match="PERMISSION_DENIED|does not have Use"):
        with _thrift(enforced.url, wh, obo) as conn, conn.cursor() as c:
            c.execute("SELECT 1")
    with pytest.raises(PermissionDenied):
        sp.warehouses.stop(wh)

    # CAN_USE: sees it and runs statements on it, through both protocols; may not stop or edit it.
    admin.warehouses.update_permissions(wh, access_control_list=[dbsql.WarehouseAccessControlRequest(
        service_principal_name=app, permission_level=dbsql.WarehousePermissionLevel.CAN_USE)])
    assert sp.warehouses.get(wh).id == wh
    assert wh in [x.id for x in sp.warehouses.list()]
    r = sp.statement_execution.execute_statement(warehouse_id=wh, statement="SELECT 41 + 1", wait_timeout="30s")
    assert r.status.state == dbsql.StatementState.SUCCEEDED and r.result.data_array == [["42"]]
    with _thrift(enforced.url, wh, obo) as conn, conn.cursor() as c:
        c.execute("SELECT 6 * 7")
        assert c.fetchall()[0][0] == 42
    with pytest.raises(PermissionDenied, match="Monitor or Owner or Admin"):
        sp.warehouses.stop(wh)
    with pytest.raises(PermissionDenied, match="Manage or Owner or Admin"):
        sp.warehouses.edit(wh, name="renamed", cluster_size="Small")

    # CAN_MONITOR starts and stops it; CAN_MANAGE edits and deletes it.
    admin.permissions.update("warehouses", wh, access_control_list=[iam.AccessControlRequest(
        service_principal_name=app, permission_level=iam.PermissionLevel.CAN_MONITOR)])
    sp.warehouses.stop(wh)
    sp.warehouses.start(wh)
    admin.permissions.update("warehouses", wh, access_control_list=[iam.AccessControlRequest(
        service_principal_name=app, permission_level=iam.PermissionLevel.CAN_MANAGE)])
    sp.warehouses.edit(wh, name="renamed", cluster_size="Small")
    assert sp.warehouses.get(wh).name == "renamed"
    sp.warehouses.delete(wh)

    # What it creates is its own (IS_OWNER), and the admin's warehouses stay out of its reach.
    mine = sp.warehouses.create(name=unique("acl-own"), cluster_size="Small").id
    assert sp.warehouses.get(mine).creator_name == app
    r = sp.statement_execution.execute_statement(warehouse_id=mine, statement="SELECT 1", wait_timeout="30s")
    assert r.status.state == dbsql.StatementState.SUCCEEDED


def test_clusters(admin, bot):
    from databricks.sdk.service import compute
    sp, app = bot
    cid = admin.clusters.create(cluster_name=unique("acl-cl"), spark_version="15.4.x-scala2.12",
                                node_type_id="i3.xlarge", num_workers=0).result().cluster_id

    # Visible to everyone (no cluster view ACLs), usable by no one without a grant.
    assert sp.clusters.get(cid).cluster_id == cid
    lib = [compute.Library(pypi=compute.PythonPyPiLibrary(package="six"))]
    with pytest.raises(PermissionDenied, match=f"does not have Attach To or Admin permissions on cluster {cid}"):
        sp.libraries.install(cid, libraries=lib)
    with pytest.raises(PermissionDenied, match="Restart or Admin"):
        sp.clusters.restart(cid)

    # CAN_ATTACH_TO: libraries; not restart.
    admin.clusters.update_permissions(cid, access_control_list=[compute.ClusterAccessControlRequest(
        service_principal_name=app, permission_level=compute.ClusterPermissionLevel.CAN_ATTACH_TO)])
    sp.libraries.install(cid, libraries=lib)
    with pytest.raises(PermissionDenied):
        sp.clusters.delete(cid)

    # CAN_RESTART: terminate and start; not edit.
    admin.permissions.update("clusters", cid, access_control_list=[iam.AccessControlRequest(
        service_principal_name=app, permission_level=iam.PermissionLevel.CAN_RESTART)])
    sp.clusters.delete(cid).result()
    sp.clusters.start(cid).result()
    with pytest.raises(PermissionDenied, match="Manage or Admin"):
        sp.clusters.edit(cid, spark_version="15.4.x-scala2.12", node_type_id="i3.xlarge", num_workers=1)
    with pytest.raises(PermissionDenied):
        sp.clusters.get_permissions(cid)

    # CAN_MANAGE: edit, permissions, permanent delete.
    admin.permissions.update("clusters", cid, access_control_list=[iam.AccessControlRequest(
        service_principal_name=app, permission_level=iam.PermissionLevel.CAN_MANAGE)])
    sp.clusters.get_permissions(cid)
    sp.clusters.permanent_delete(cid)

    # Its own cluster is its own.
    mine = sp.clusters.create(cluster_name=unique("acl-own"), spark_version="15.4.x-scala2.12",
                              node_type_id="i3.xlarge", num_workers=0).result().cluster_id
    assert sp.clusters.get(mine).creator_user_name == app
    sp.clusters.permanent_delete(mine)


def test_secret_scopes(admin, bot):
    from databricks.sdk.service import workspace
    sp, app = bot
    scope = unique("acl-scope")
    admin.secrets.create_scope(scope=scope)
    admin.secrets.put_secret(scope=scope, key="k", string_value="s3cr3t")

    with pytest.raises(PermissionDenied, match=f'{app} does not have READ permission on scope {scope} to perform this action'):
        sp.secrets.get_secret(scope=scope, key="k")
    with pytest.raises(PermissionDenied):
        list(sp.secrets.list_secrets(scope=scope))
    with pytest.raises(PermissionDenied, match="WRITE"):
        sp.secrets.put_secret(scope=scope, key="k2", string_value="x")

    # READ: reads, does not write.
    admin.secrets.put_acl(scope=scope, principal=app, permission=workspace.AclPermission.READ)
    assert sp.secrets.get_secret(scope=scope, key="k").value  # base64 of the value
    assert [x.key for x in sp.secrets.list_secrets(scope=scope)] == ["k"]
    with pytest.raises(PermissionDenied):
        sp.secrets.delete_secret(scope=scope, key="k")

    # WRITE: writes, may not see or change the ACLs nor delete the scope.
    admin.secrets.put_acl(scope=scope, principal=app, permission=workspace.AclPermission.WRITE)
    sp.secrets.put_secret(scope=scope, key="k2", string_value="x")
    sp.secrets.delete_secret(scope=scope, key="k2")
    with pytest.raises(PermissionDenied, match="MANAGE"):
        list(sp.secrets.list_acls(scope=scope))
    with pytest.raises(PermissionDenied):
        sp.secrets.delete_scope(scope=scope)

    # MANAGE: ACLs and the scope itself.
    admin.secrets.put_acl(scope=scope, principal=app, permission=workspace.AclPermission.MANAGE)
    assert app in [a.principal for a in sp.secrets.list_acls(scope=scope)]
    sp.secrets.delete_scope(scope=scope)

    # A scope it creates is its own (MANAGE), out of reach of nobody but the admins.
    mine = unique("acl-own")
    sp.secrets.create_scope(scope=mine)
    assert [(a.principal, a.permission) for a in sp.secrets.list_acls(scope=mine)] == [(app, workspace.AclPermission.MANAGE)]
    sp.secrets.put_secret(scope=mine, key="k", string_value="v")
    assert admin.secrets.get_secret(scope=mine, key="k").value


def test_workspace_notebooks_and_folders(admin, bot):
    import base64
    from databricks.sdk.errors import NotFound
    from databricks.sdk.service import workspace as ws
    sp, app = bot
    home = f"/Users/{admin.current_user.me().user_name}"
    folder = f"{home}/{unique('acl-dir')}"
    nb = f"{folder}/sub/nb"
    admin.workspace.mkdirs(f"{folder}/sub")
    admin.workspace.upload(nb, b"print(1)", format=ws.ImportFormat.SOURCE, language=ws.Language.PYTHON)
    folder_id = str(admin.workspace.get_status(folder).object_id)
    nb_id = str(admin.workspace.get_status(nb).object_id)

    def grant(kind, oid, level):
        admin.workspace.update_permissions(kind, oid, access_control_list=[ws.WorkspaceObjectAccessControlRequest(
            service_principal_name=app, permission_level=level)])

    def rewrite(text):
        sp.workspace.upload(nb, text, format=ws.ImportFormat.SOURCE, language=ws.Language.PYTHON, overwrite=True)

    # No grant: the admin's notebook and folder are refused, the folder is not listed.
    with pytest.raises(PermissionDenied, match=f'User "{app}" does not have Read permissions on notebook {nb}'):
        sp.workspace.get_status(nb)
    with pytest.raises(PermissionDenied):
        sp.workspace.export(nb)
    with pytest.raises(PermissionDenied, match="on directory"):
        list(sp.workspace.list(folder))
    with pytest.raises(PermissionDenied):
        sp.workspace.mkdirs(f"{folder}/x")
    with pytest.raises(PermissionDenied):
        sp.workspace.get_permissions("notebooks", nb_id)
    assert home not in [o.path for o in sp.workspace.list("/Users")]

    # CAN_READ on the folder, inherited: reads and lists, does not write.
    grant("directories", folder_id, ws.WorkspaceObjectPermissionLevel.CAN_READ)
    assert sp.workspace.get_status(nb).object_type == ws.ObjectType.NOTEBOOK
    assert base64.b64decode(sp.workspace.export(nb).content).decode().endswith("print(1)")
    assert [o.path for o in sp.workspace.list(f"{folder}/sub")] == [nb]
    with pytest.raises(PermissionDenied, match="Edit permissions on notebook"):
        rewrite(b"print(2)")

    # CAN_RUN: still no edit.
    grant("directories", folder_id, ws.WorkspaceObjectPermissionLevel.CAN_RUN)
    with pytest.raises(PermissionDenied):
        rewrite(b"print(2)")

    # CAN_EDIT on the notebook: overwrites it; may not delete it, create beside it, or see its permissions.
    grant("notebooks", nb_id, ws.WorkspaceObjectPermissionLevel.CAN_EDIT)
    rewrite(b"print(2)")
    assert base64.b64decode(admin.workspace.export(nb).content).decode().endswith("print(2)")
    with pytest.raises(PermissionDenied, match="Manage permissions on notebook"):
        sp.workspace.delete(nb)
    with pytest.raises(PermissionDenied, match="Manage permissions on directory"):
        sp.workspace.upload(f"{folder}/sub/new", b"x", format=ws.ImportFormat.SOURCE, language=ws.Language.PYTHON)
    with pytest.raises(PermissionDenied):
        sp.workspace.get_permissions("notebooks", nb_id)

    # CAN_MANAGE on the folder (set_permissions): creates, deletes, reads the ACLs below it.
    admin.workspace.set_permissions("directories", folder_id, access_control_list=[
        ws.WorkspaceObjectAccessControlRequest(service_principal_name=app,
                                               permission_level=ws.WorkspaceObjectPermissionLevel.CAN_MANAGE)])
    sp.workspace.mkdirs(f"{folder}/sub/made")
    sp.workspace.upload(f"{folder}/sub/new", b"x", format=ws.ImportFormat.SOURCE, language=ws.Language.PYTHON)
    assert sp.workspace.get_permissions("notebooks", nb_id).object_id == f"/notebooks/{nb_id}"
    sp.workspace.delete(nb)
    with pytest.raises(NotFound):
        admin.workspace.get_status(nb)
    # Nothing above the grant.
    with pytest.raises(PermissionDenied):
        list(sp.workspace.list(home))

    # /Shared is everyone's.
    shared = f"/Shared/{unique('acl-shared')}"
    admin.workspace.upload(shared, b"print(1)", format=ws.ImportFormat.SOURCE, language=ws.Language.PYTHON)
    sp.workspace.upload(shared, b"print(3)", format=ws.ImportFormat.SOURCE, language=ws.Language.PYTHON,
                        overwrite=True)
    sp.workspace.delete(shared)
