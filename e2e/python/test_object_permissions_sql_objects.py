"""Issue 30, object permissions enforced on pipelines, queries, alerts (also Alerts V2), legacy and Lakeview dashboards
(MINILAKE_AUTH=tokens, MINILAKE_ENFORCE=1), and SCIM/token management kept to admins, through the real Python
SDK: the bootstrap admin creates, a service principal with an on-behalf-of token is refused, the admin grants
it a level through the SDK's permissions calls, then it is allowed exactly what that level allows. The admin and
service-principal fixtures are test_object_permissions.py's; this module's server runs the services these
objects need. No pipeline update runs Spark here: CAN_RUN is proven with a stop."""
import pytest
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import PermissionDenied
from databricks.sdk.service import dashboards, iam, pipelines, sql as dbsql

from conftest import Server, unique
from test_object_permissions import ADMIN, admin, bot  # noqa: F401 (fixtures)


@pytest.fixture(scope="module")
def enforced():
    s = Server(env={"MINILAKE_AUTH": "tokens", "MINILAKE_ENFORCE": "1", "MINILAKE_ADMIN_TOKEN": ADMIN,
                    "MINILAKE_SERVICES": "iam,sql,sql-objects,lakeview,workspace,unity-catalog,pipelines"})
    yield s
    s.stop()


def _grant(admin, kind, object_id, app, level):
    admin.permissions.update(kind, object_id, access_control_list=[
        iam.AccessControlRequest(service_principal_name=app, permission_level=iam.PermissionLevel(level))])


def test_pipelines(admin, bot):
    sp, app = bot
    pid = admin.pipelines.create(
        name=unique("acl-pl"), catalog="main", schema="default", serverless=True, development=True,
        libraries=[pipelines.PipelineLibrary(glob=pipelines.PathPattern(include="/Workspace/Shared/acl/**"))],
    ).pipeline_id

    # No grant: not listed, and every call on it is refused.
    assert pid not in [p.pipeline_id for p in sp.pipelines.list_pipelines()]
    with pytest.raises(PermissionDenied,
                       match=f'User {app} does not have View or Owner or Admin permissions on pipeline {pid}'):
        sp.pipelines.get(pid)
    with pytest.raises(PermissionDenied):
        list(sp.pipelines.list_pipeline_events(pid))
    with pytest.raises(PermissionDenied):
        list(sp.pipelines.list_updates(pid).updates or [])
    with pytest.raises(PermissionDenied):
        sp.pipelines.get_permissions(pid)

    # CAN_VIEW (through the pipelines SDK's own permissions call): seen, not run.
    admin.pipelines.update_permissions(pid, access_control_list=[pipelines.PipelineAccessControlRequest(
        service_principal_name=app, permission_level=pipelines.PipelinePermissionLevel.CAN_VIEW)])
    assert sp.pipelines.get(pid).creator_user_name == "dev@minilake.local"
    assert pid in [p.pipeline_id for p in sp.pipelines.list_pipelines()]
    list(sp.pipelines.list_pipeline_events(pid))
    with pytest.raises(PermissionDenied, match="Run or Owner or Admin"):
        sp.pipelines.start_update(pid, validate_only=True)
    with pytest.raises(PermissionDenied):
        sp.pipelines.stop(pid)

    # CAN_RUN: stops (an idle pipeline: no Spark), may not edit, delete or read the ACL.
    _grant(admin, "pipelines", pid, app, "CAN_RUN")
    sp.pipelines.stop(pid)
    with pytest.raises(PermissionDenied, match="Manage or Owner or Admin"):
        sp.pipelines.update(pid, name="renamed", catalog="main", schema="default")
    with pytest.raises(PermissionDenied):
        sp.pipelines.delete(pid)

    # CAN_MANAGE: edits, reads the ACL, deletes.
    _grant(admin, "pipelines", pid, app, "CAN_MANAGE")
    sp.pipelines.update(pid, name="renamed", catalog="main", schema="default", serverless=True, development=True,
                        libraries=[pipelines.PipelineLibrary(glob=pipelines.PathPattern(include="/Workspace/Shared/acl/**"))])
    assert sp.pipelines.get(pid).name == "renamed"
    assert any(a.service_principal_name == app for a in sp.pipelines.get_permissions(pid).access_control_list)
    sp.pipelines.delete(pid)


def test_a_pipeline_is_its_creators(admin, bot):
    sp, app = bot
    mine = sp.pipelines.create(name=unique("acl-own-pl"), catalog="main", schema="default", serverless=True,
                               development=True).pipeline_id
    got = sp.pipelines.get(mine)
    assert got.creator_user_name == app
    owners = [a for a in sp.pipelines.get_permissions(mine).access_control_list
              if any(p.permission_level == pipelines.PipelinePermissionLevel.IS_OWNER for p in a.all_permissions)]
    assert [o.service_principal_name for o in owners] == [app]
    assert admin.pipelines.get(mine).pipeline_id == mine
    sp.pipelines.delete(mine)


def test_queries_and_alerts(admin, bot):
    sp, app = bot
    wh = admin.warehouses.create(name=unique("acl-q-wh"), cluster_size="Small").id
    q = admin.queries.create(query=dbsql.CreateQueryRequestQuery(
        display_name=unique("acl-q"), warehouse_id=wh, query_text="SELECT 1 AS n"))
    a = admin.alerts.create(alert=dbsql.CreateAlertRequestAlert(
        display_name=unique("acl-a"), query_id=q.id, condition=dbsql.AlertCondition(
            op=dbsql.AlertOperator.GREATER_THAN,
            operand=dbsql.AlertConditionOperand(column=dbsql.AlertOperandColumn(name="n")),
            threshold=dbsql.AlertConditionThreshold(value=dbsql.AlertOperandValue(double_value=0)))))

    # No grant: neither is listed or readable (current and legacy APIs).
    assert q.id not in [x.id for x in sp.queries.list()]
    assert a.id not in [x.id for x in sp.alerts.list()]
    with pytest.raises(PermissionDenied,
                       match=f'User {app} does not have View or Owner or Admin permissions on query {q.id}'):
        sp.queries.get(q.id)
    with pytest.raises(PermissionDenied):
        sp.queries_legacy.get(q.id)
    with pytest.raises(PermissionDenied, match=f"permissions on alert {a.id}"):
        sp.alerts.get(a.id)
    with pytest.raises(PermissionDenied):
        sp.alerts_legacy.get(a.id)

    # CAN_VIEW: read, not edited.
    _grant(admin, "queries", q.id, app, "CAN_VIEW")
    _grant(admin, "alerts", a.id, app, "CAN_VIEW")
    assert sp.queries.get(q.id).id == q.id
    assert q.id in [x.id for x in sp.queries.list()]
    assert sp.alerts.get(a.id).id == a.id
    with pytest.raises(PermissionDenied, match="Edit or Owner or Admin"):
        sp.queries.update(q.id, update_mask="display_name",
                          query=dbsql.UpdateQueryRequestQuery(display_name="renamed"))
    with pytest.raises(PermissionDenied, match="Edit or Owner or Admin"):
        sp.alerts.update(a.id, update_mask="display_name", alert=dbsql.UpdateAlertRequestAlert(display_name="x"))

    # CAN_EDIT: updated, not deleted.
    _grant(admin, "queries", q.id, app, "CAN_EDIT")
    _grant(admin, "alerts", a.id, app, "CAN_EDIT")
    assert sp.queries.update(q.id, update_mask="display_name",
                             query=dbsql.UpdateQueryRequestQuery(display_name="renamed")).display_name == "renamed"
    sp.alerts.update(a.id, update_mask="display_name", alert=dbsql.UpdateAlertRequestAlert(display_name="x"))
    with pytest.raises(PermissionDenied, match="Manage or Owner or Admin"):
        sp.alerts.delete(a.id)
    with pytest.raises(PermissionDenied):
        sp.queries.delete(q.id)

    # CAN_MANAGE: deleted (to the trash).
    _grant(admin, "alerts", a.id, app, "CAN_MANAGE")
    _grant(admin, "queries", q.id, app, "CAN_MANAGE")
    sp.alerts.delete(a.id)
    sp.queries.delete(q.id)
    assert admin.queries.get(q.id).lifecycle_state == dbsql.LifecycleState.TRASHED

    # What the service principal creates, it manages.
    mine = sp.queries.create(query=dbsql.CreateQueryRequestQuery(display_name=unique("sp-q"), warehouse_id=wh,
                                                                 query_text="SELECT 2"))
    assert mine.owner_user_name == app
    sp.queries.delete(mine.id)


def test_lakeview_dashboards(admin, bot):
    sp, app = bot
    d = admin.lakeview.create(dashboards.Dashboard(display_name=unique("acl-dash"), parent_path="/Shared"))
    admin.lakeview.publish(d.dashboard_id)

    assert d.dashboard_id not in [x.dashboard_id for x in sp.lakeview.list()]
    with pytest.raises(PermissionDenied,
                       match=f'User {app} does not have Read or Admin permissions on dashboard {d.dashboard_id}'):
        sp.lakeview.get(d.dashboard_id)
    with pytest.raises(PermissionDenied):
        sp.lakeview.get_published(d.dashboard_id)

    _grant(admin, "dashboards", d.dashboard_id, app, "CAN_READ")
    assert sp.lakeview.get(d.dashboard_id).dashboard_id == d.dashboard_id
    assert sp.lakeview.get_published(d.dashboard_id).display_name == d.display_name
    assert d.dashboard_id in [x.dashboard_id for x in sp.lakeview.list()]
    with pytest.raises(PermissionDenied, match="Edit or Admin"):
        sp.lakeview.update(d.dashboard_id, dashboards.Dashboard(display_name=unique("renamed")))
    with pytest.raises(PermissionDenied):
        sp.lakeview.publish(d.dashboard_id)

    _grant(admin, "dashboards", d.dashboard_id, app, "CAN_EDIT")
    sp.lakeview.update(d.dashboard_id, dashboards.Dashboard(display_name=unique("renamed")))
    sp.lakeview.publish(d.dashboard_id)
    with pytest.raises(PermissionDenied, match="Manage or Admin"):
        sp.lakeview.trash(d.dashboard_id)
    with pytest.raises(PermissionDenied):
        sp.permissions.get("dashboards", d.dashboard_id)

    _grant(admin, "dashboards", d.dashboard_id, app, "CAN_MANAGE")
    assert any(a.service_principal_name == app
               for a in sp.permissions.get("dashboards", d.dashboard_id).access_control_list)
    sp.lakeview.trash(d.dashboard_id)
    assert admin.lakeview.get(d.dashboard_id).lifecycle_state == dashboards.LifecycleState.TRASHED


def test_legacy_dashboards_and_alerts_v2(admin, bot):
    """Legacy DBSQL dashboards (created as the legacy UI does, through the raw API: the SDK has no create)
    and Alerts V2 through the SDK's own calls."""
    sp, app = bot
    d = admin.api_client.do("POST", "/api/2.0/preview/sql/dashboards", body={"name": unique("acl-legacy")})
    did = d["id"]
    assert did not in [x.id for x in sp.dashboards.list()]
    with pytest.raises(PermissionDenied):
        sp.dashboards.get(did)
    _grant(admin, "dbsql-dashboards", did, app, "CAN_VIEW")
    assert sp.dashboards.get(did).id == did
    with pytest.raises(PermissionDenied):
        sp.dashboards.update(did, name=unique("renamed"))
    _grant(admin, "dbsql-dashboards", did, app, "CAN_EDIT")
    sp.dashboards.update(did, name=unique("renamed"))
    with pytest.raises(PermissionDenied):
        sp.dashboards.delete(did)
    _grant(admin, "dbsql-dashboards", did, app, "CAN_MANAGE")
    sp.dashboards.delete(did)

    def alert(name):
        return dbsql.AlertV2(
            display_name=name, query_text="SELECT 1 AS value", warehouse_id="dev",
            evaluation=dbsql.AlertV2Evaluation(
                comparison_operator=dbsql.ComparisonOperator.GREATER_THAN,
                source=dbsql.AlertV2OperandColumn(name="value"),
                threshold=dbsql.AlertV2Operand(value=dbsql.AlertV2OperandValue(double_value=0))),
            schedule=dbsql.CronSchedule(quartz_cron_schedule="0 0 9 10 1 ?", timezone_id="UTC"))

    a = admin.alerts_v2.create_alert(alert(unique("acl-v2")))
    assert a.id not in [x.id for x in sp.alerts_v2.list_alerts()]
    with pytest.raises(PermissionDenied):
        sp.alerts_v2.get_alert(a.id)
    _grant(admin, "alertsv2", a.id, app, "CAN_READ")
    assert sp.alerts_v2.get_alert(a.id).id == a.id
    with pytest.raises(PermissionDenied):
        sp.alerts_v2.update_alert(a.id, alert(unique("renamed")), update_mask="display_name")
    _grant(admin, "alertsv2", a.id, app, "CAN_EDIT")
    sp.alerts_v2.update_alert(a.id, alert(unique("renamed")), update_mask="display_name")
    with pytest.raises(PermissionDenied):
        sp.alerts_v2.trash_alert(a.id)
    _grant(admin, "alertsv2", a.id, app, "CAN_MANAGE")
    sp.alerts_v2.trash_alert(a.id)


def test_scim_and_token_management_are_admins(admin, bot):
    sp, app = bot
    # Reading the directory stays open; changing it is refused.
    assert sp.current_user.me().user_name == app
    assert any(u.user_name == "dev@minilake.local" for u in sp.users.list())
    with pytest.raises(PermissionDenied, match="User not authorized"):
        sp.users.create(user_name=f"{unique('eve')}@example.com")
    with pytest.raises(PermissionDenied):
        sp.groups.create(display_name=unique("g"))
    with pytest.raises(PermissionDenied):
        sp.service_principals.create(display_name=unique("other"))
    victim = admin.users.create(user_name=f"{unique('victim')}@example.com")
    with pytest.raises(PermissionDenied):
        sp.users.delete(victim.id)
    with pytest.raises(PermissionDenied):
        sp.users.patch(victim.id, operations=[iam.Patch(op=iam.PatchOp.REPLACE, path="active", value=False)],
                       schemas=[iam.PatchSchema.URN_IETF_PARAMS_SCIM_API_MESSAGES_2_0_PATCH_OP])
    assert admin.users.get(victim.id).active is not False

    # Token management: an admin's; the service principal keeps its own token list.
    with pytest.raises(PermissionDenied, match="Only Admins can access token management APIs"):
        list(sp.token_management.list())
    with pytest.raises(PermissionDenied):
        sp.token_management.create_obo_token(application_id=app, lifetime_seconds=60)
    mine = admin.token_management.create_obo_token(application_id=app, lifetime_seconds=600)
    with pytest.raises(PermissionDenied):
        sp.token_management.delete(mine.token_info.token_id)
    sp.tokens.list()
    assert mine.token_info.token_id in [t.token_id for t in admin.token_management.list()]
    admin.token_management.delete(mine.token_info.token_id)
