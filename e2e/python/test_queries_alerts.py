"""Queries, Alerts and legacy dashboards through the real databricks-sdk: an alert evaluated against real data,
its webhook destination (a loopback HTTP server here) really called, by a job's sql_task."""
import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from databricks.sdk.errors import NotFound
from databricks.sdk.service import jobs, settings, sql

from conftest import unique


@pytest.fixture
def webhook():
    received = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            received.append({"body": json.loads(body), "auth": self.headers.get("authorization")})
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/hook", received
    httpd.shutdown()


def _sql(w, wh, statement):
    r = w.statement_execution.execute_statement(warehouse_id=wh, statement=statement, wait_timeout="30s")
    assert r.status.state == sql.StatementState.SUCCEEDED, r.status.error
    return r


def test_queries_crud_paging_update_mask_and_trash(w):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small").id
    q = w.queries.create(query=sql.CreateQueryRequestQuery(
        display_name="orders", warehouse_id=wh, query_text="SELECT :n AS n", description="d",
        parameters=[sql.QueryParameter(name="n", title="N", numeric_value=sql.NumericValue(value=3))]))
    assert q.lifecycle_state == sql.LifecycleState.ACTIVE
    assert q.parameters[0].numeric_value.value == 3
    for i in range(3):
        w.queries.create(query=sql.CreateQueryRequestQuery(display_name=f"q{i}", warehouse_id=wh, query_text="SELECT 1"))
    names = [x.display_name for x in w.queries.list(page_size=2)]
    assert names == ["orders", "q0", "q1", "q2"]

    u = w.queries.update(q.id, update_mask="display_name,description",
                         query=sql.UpdateQueryRequestQuery(display_name="orders v2", query_text="ignored"))
    assert u.display_name == "orders v2" and u.description is None and u.query_text == "SELECT :n AS n"

    w.queries.delete(q.id)
    assert w.queries.get(q.id).lifecycle_state == sql.LifecycleState.TRASHED
    assert "orders v2" not in [x.display_name for x in w.queries.list()]
    with pytest.raises(NotFound):
        w.queries.get("00000000-0000-0000-0000-000000000000")

    legacy = w.queries_legacy.get(u.id)
    assert legacy.name == "orders v2" and legacy.options.parameters[0].type == sql.ParameterType.NUMBER


def test_alert_triggers_on_real_data_and_calls_its_webhook(w, webhook):
    hook_url, received = webhook
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small").id
    cat = unique("alerts_cat")
    w.catalogs.create(cat)
    _sql(w, wh, f"CREATE TABLE {cat}.default.orders (id INT, amount DOUBLE)")
    _sql(w, wh, f"INSERT INTO {cat}.default.orders VALUES (1, 10), (2, 20)")

    dest = w.notification_destinations.create(display_name="hook", config=settings.Config(
        generic_webhook=settings.GenericWebhookConfig(url=hook_url)))
    q = w.queries.create(query=sql.CreateQueryRequestQuery(
        display_name="total", warehouse_id=wh, query_text=f"SELECT sum(amount) AS total FROM {cat}.default.orders"))
    alert = w.alerts.create(alert=sql.CreateAlertRequestAlert(
        display_name="big total", query_id=q.id,
        condition=sql.AlertCondition(
            op=sql.AlertOperator.GREATER_THAN,
            operand=sql.AlertConditionOperand(column=sql.AlertOperandColumn(name="total")),
            threshold=sql.AlertConditionThreshold(value=sql.AlertOperandValue(double_value=100)))))
    assert alert.state == sql.AlertState.UNKNOWN

    job = w.jobs.create(name=unique("alert"), tasks=[jobs.Task(task_key="check", sql_task=jobs.SqlTask(
        warehouse_id=wh, alert=jobs.SqlTaskAlert(alert_id=alert.id, subscriptions=[
            jobs.SqlTaskSubscription(destination_id=dest.id)])))])

    run = w.jobs.run_now_and_wait(job.job_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, w.jobs.get_run_output(run.tasks[0].run_id).error
    assert w.alerts.get(alert.id).state == sql.AlertState.OK
    assert received == []

    _sql(w, wh, f"INSERT INTO {cat}.default.orders VALUES (3, 500)")
    run = w.jobs.run_now_and_wait(job.job_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS
    got = w.alerts.get(alert.id)
    assert got.state == sql.AlertState.TRIGGERED
    assert got.trigger_time
    assert len(received) == 1
    assert received[0]["body"]["alert_id"] == alert.id and received[0]["body"]["state"] == "TRIGGERED"

    legacy = w.alerts_legacy.get(alert.id)
    assert legacy.state == sql.LegacyAlertState.TRIGGERED and legacy.last_triggered_at

    # A query task runs the saved query for real.
    qjob = w.jobs.create(name=unique("query"), tasks=[jobs.Task(task_key="q", sql_task=jobs.SqlTask(
        warehouse_id=wh, query=jobs.SqlTaskQuery(query_id=q.id)))])
    run = w.jobs.run_now_and_wait(qjob.job_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, w.jobs.get_run_output(run.tasks[0].run_id).error

    w.alerts.update(alert.id, update_mask="display_name", alert=sql.UpdateAlertRequestAlert(display_name="renamed"))
    assert [a.display_name for a in w.alerts.list()] == ["renamed"]
    w.alerts.delete(alert.id)
    assert w.alerts.get(alert.id).lifecycle_state == sql.LifecycleState.TRASHED


def test_legacy_queries_alerts_and_dashboards(w):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small").id
    ds = next(d for d in w.data_sources.list() if d.warehouse_id == wh)
    q = w.queries_legacy.create(data_source_id=ds.id, name="legacy", query="SELECT 1 AS x",
                                options={"parameters": [{"name": "p", "title": "P", "type": "text", "value": "v"}]})
    assert q.data_source_id == ds.id
    assert w.queries.get(q.id).warehouse_id == ds.warehouse_id
    a = w.alerts_legacy.create(name="a", query_id=q.id, options=sql.AlertOptions(column="x", op=">", value="0"))
    assert a.state == sql.LegacyAlertState.UNKNOWN
    assert [x.id for x in w.alerts_legacy.list()] == [a.id]
    w.alerts_legacy.delete(a.id)
    with pytest.raises(NotFound):
        w.alerts_legacy.get(a.id)

    # This SDK has no dashboards.create any more (the Terraform provider still creates them): a raw POST.
    d = sql.Dashboard.from_dict(w.api_client.do("POST", "/api/2.0/preview/sql/dashboards", body={"name": "dash"}))
    viz = w.query_visualizations_legacy.create(query_id=q.id, type="TABLE", options={}, name="table")
    w.dashboard_widgets.create(dashboard_id=d.id, options=sql.WidgetOptions(), width=1, visualization_id=viz.id)
    got = w.dashboards.get(d.id)
    assert len(got.widgets) == 1 and got.widgets[0].visualization.id == viz.id
    assert [x.name for x in w.dashboards.list()] == ["dash"]
    w.dashboards.delete(d.id)
    w.dashboards.restore(d.id)
    assert [x.name for x in w.dashboards.list()] == ["dash"]
    w.queries_legacy.delete(q.id)
    w.queries_legacy.restore(q.id)
    assert w.queries.get(q.id).lifecycle_state == sql.LifecycleState.ACTIVE


def test_alert_v2_on_its_own_schedule_calls_its_webhook(w, webhook):
    import time

    hook_url, received = webhook
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small").id
    cat = unique("v2_cat")
    w.catalogs.create(cat)
    _sql(w, wh, f"CREATE TABLE {cat}.default.events (n INT)")
    dest = w.notification_destinations.create(display_name="hook", config=settings.Config(
        generic_webhook=settings.GenericWebhookConfig(url=hook_url)))
    alert = w.alerts_v2.create_alert(sql.AlertV2(
        display_name="events", warehouse_id=wh, query_text=f"SELECT n FROM {cat}.default.events",
        evaluation=sql.AlertV2Evaluation(
            comparison_operator=sql.ComparisonOperator.GREATER_THAN_OR_EQUAL,
            source=sql.AlertV2OperandColumn(name="n", aggregation=sql.Aggregation.COUNT),
            threshold=sql.AlertV2Operand(value=sql.AlertV2OperandValue(double_value=2)),
            notification=sql.AlertV2Notification(subscriptions=[sql.AlertV2Subscription(destination_id=dest.id)])),
        # Every second (Quartz): the schedule, not the test, evaluates the alert.
        schedule=sql.CronSchedule(quartz_cron_schedule="* * * * * ?", timezone_id="UTC")))
    assert alert.lifecycle_state == sql.AlertLifecycleState.ACTIVE

    def wait_state(want):
        deadline = time.time() + 30
        while time.time() < deadline:
            got = w.alerts_v2.get_alert(alert.id)
            if got.evaluation.state == want:
                return got
            time.sleep(0.2)
        raise AssertionError(f"alert never reached {want}: {got.evaluation}")

    wait_state(sql.AlertEvaluationState.OK)
    _sql(w, wh, f"INSERT INTO {cat}.default.events VALUES (1), (2), (3)")
    got = wait_state(sql.AlertEvaluationState.TRIGGERED)
    assert got.evaluation.last_evaluated_at
    deadline = time.time() + 10
    while not received and time.time() < deadline:
        time.sleep(0.1)
    assert received and received[0]["body"]["alert_id"] == alert.id
    assert [a.id for a in w.alerts_v2.list_alerts()] == [alert.id]
    w.alerts_v2.trash_alert(alert.id)
    assert w.alerts_v2.get_alert(alert.id).lifecycle_state == sql.AlertLifecycleState.DELETED
