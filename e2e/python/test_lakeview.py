"""AI/BI (Lakeview) dashboards through the real databricks-sdk: create, get, list (paging, trash), update with
the etag, publish, the workspace object, schedules whose refresh runs the dashboard's SQL and calls a webhook
subscriber, migrate from a legacy dashboard, trash."""
import base64
import json
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from databricks.sdk.errors import NotFound, ResourceAlreadyExists
from databricks.sdk.service import dashboards, settings, sql, workspace

from conftest import unique


@pytest.fixture
def webhook():
    received = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("content-length", 0)))
            received.append(json.loads(body))
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, *args):
            pass

    httpd = HTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/hook", received
    httpd.shutdown()


def _sql(w, wh, statement):
    r = w.statement_execution.execute_statement(warehouse_id=wh, statement=statement, wait_timeout="30s")
    assert r.status.state == sql.StatementState.SUCCEEDED, r.status.error
    return r.result.data_array if r.result else []


def _counter(query, expression="SUM(`amount`)"):
    return json.dumps({
        "datasets": [{"name": "ds", "displayName": "Sales", "queryLines": [query]}],
        "pages": [{"name": "p", "displayName": "Overview", "layout": [{
            "widget": {"name": "total",
                       "queries": [{"name": "main_query", "query": {
                           "datasetName": "ds", "fields": [{"name": "v", "expression": expression}],
                           "disaggregated": False}}],
                       "spec": {"version": 2, "widgetType": "counter",
                                "encodings": {"value": {"fieldName": "v"}}}},
            "position": {"x": 0, "y": 0, "width": 2, "height": 3}}]}],
    })


@pytest.fixture
def sales(w):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="Small").id
    cat = unique("lv")
    w.catalogs.create(cat)
    _sql(w, wh, f"CREATE TABLE {cat}.default.sales (region STRING, amount BIGINT)")
    _sql(w, wh, f"INSERT INTO {cat}.default.sales VALUES ('north', 400), ('south', 317), ('east', 200), ('west', 96)")
    return wh, f"{cat}.default.sales"


def test_dashboard_lifecycle_and_workspace_object(w, sales):
    wh, table = sales
    me = w.current_user.me().user_name
    d = w.lakeview.create(dashboards.Dashboard(
        display_name="Sales", parent_path=f"/Workspace/Users/{me}", warehouse_id=wh,
        serialized_dashboard=_counter(f"SELECT * FROM {table}")))
    assert len(d.dashboard_id) == 32 and d.lifecycle_state == dashboards.LifecycleState.ACTIVE
    assert d.parent_path == f"/Users/{me}" and d.path == f"/Users/{me}/Sales.lvdash.json"
    assert json.loads(d.serialized_dashboard)["pages"][0]["pageType"] == "PAGE_TYPE_CANVAS"

    st = w.workspace.get_status(d.path)
    assert st.object_type == workspace.ObjectType.DASHBOARD and st.resource_id == d.dashboard_id
    exported = w.workspace.export(d.path, format=workspace.ExportFormat.SOURCE)
    assert base64.b64decode(exported.content).decode() == d.serialized_dashboard

    with pytest.raises(ResourceAlreadyExists):
        w.lakeview.create(dashboards.Dashboard(display_name="Sales", parent_path=f"/Users/{me}"))
    with pytest.raises(NotFound):
        w.lakeview.create(dashboards.Dashboard(display_name="x", parent_path=f"/Users/{me}/missing"))

    got = w.lakeview.get(d.dashboard_id)
    u = w.lakeview.update(d.dashboard_id, dashboards.Dashboard(
        display_name="Sales 2", etag=got.etag, warehouse_id=wh,
        serialized_dashboard=_counter(f"SELECT * FROM {table} WHERE region <> 'west'")))
    assert u.etag != got.etag and u.path.endswith("/Sales 2.lvdash.json")
    with pytest.raises(Exception) as stale:
        w.lakeview.update(d.dashboard_id, dashboards.Dashboard(display_name="Sales 3", etag=got.etag))
    assert "etag" in str(stale.value)

    p = w.lakeview.publish(d.dashboard_id, embed_credentials=False, warehouse_id=wh)
    assert p.display_name == "Sales 2" and p.warehouse_id == wh and p.embed_credentials is False
    assert w.lakeview.get_published(d.dashboard_id).revision_create_time == p.revision_create_time

    for i in range(3):
        w.lakeview.create(dashboards.Dashboard(display_name=f"more {i}", parent_path=f"/Users/{me}"))
    assert len(list(w.lakeview.list(page_size=2))) == 4

    w.lakeview.trash(d.dashboard_id)
    assert w.lakeview.get(d.dashboard_id).lifecycle_state == dashboards.LifecycleState.TRASHED
    assert d.dashboard_id not in [x.dashboard_id for x in w.lakeview.list()]
    assert d.dashboard_id in [x.dashboard_id for x in w.lakeview.list(show_trashed=True)]
    with pytest.raises(NotFound):
        w.lakeview.get_published(d.dashboard_id)
    with pytest.raises(NotFound):
        w.workspace.get_status(u.path)


def test_workspace_import_makes_a_dashboard(w):
    me = w.current_user.me().user_name
    path = f"/Users/{me}/{unique('imported')}.lvdash.json"
    w.workspace.import_(path, content=base64.b64encode(_counter("SELECT 1 AS amount").encode()).decode(),
                        format=workspace.ImportFormat.AUTO)
    st = w.workspace.get_status(path)
    assert st.object_type == workspace.ObjectType.DASHBOARD
    d = w.lakeview.get(st.resource_id)
    assert path.endswith(f"/{d.display_name}.lvdash.json")
    w.workspace.delete(path)
    assert w.lakeview.get(d.dashboard_id).lifecycle_state == dashboards.LifecycleState.TRASHED


def test_schedule_refreshes_and_notifies_a_webhook(w, sales, webhook):
    wh, table = sales
    hook_url, received = webhook
    dest = w.notification_destinations.create(display_name="hook", config=settings.Config(
        generic_webhook=settings.GenericWebhookConfig(url=hook_url)))
    d = w.lakeview.create(dashboards.Dashboard(
        display_name=unique("scheduled"), warehouse_id=wh,
        serialized_dashboard=_counter(f"SELECT * FROM {table} WHERE region = 'south'")))
    # Every second (Quartz): the schedule, not the test, refreshes the dashboard.
    s = w.lakeview.create_schedule(d.dashboard_id, dashboards.Schedule(
        display_name="every second",
        cron_schedule=dashboards.CronSchedule(quartz_cron_expression="* * * * * ?", timezone_id="UTC")))
    assert s.pause_status == dashboards.SchedulePauseStatus.UNPAUSED and s.etag
    sub = w.lakeview.create_subscription(d.dashboard_id, s.schedule_id, dashboards.Subscription(
        subscriber=dashboards.Subscriber(
            destination_subscriber=dashboards.SubscriptionSubscriberDestination(destination_id=dest.id))))
    assert [x.subscription_id for x in w.lakeview.list_subscriptions(d.dashboard_id, s.schedule_id)] == [
        sub.subscription_id]
    deadline = time.time() + 30
    while not received and time.time() < deadline:
        time.sleep(0.1)
    assert received, "the schedule never notified its subscriber"
    assert received[0]["dashboard_id"] == d.dashboard_id and received[0]["status"] == "SUCCESS"
    # The refresh ran the widget's SQL through the statement service: query history has it.
    texts = [q.query_text for q in w.query_history.list(max_results=200).res]
    assert any("region = 'south'" in t and "SUM(`amount`)" in t for t in texts)

    paused = w.lakeview.update_schedule(d.dashboard_id, s.schedule_id, dashboards.Schedule(
        cron_schedule=s.cron_schedule, pause_status=dashboards.SchedulePauseStatus.PAUSED, etag=s.etag))
    assert paused.pause_status == dashboards.SchedulePauseStatus.PAUSED
    w.lakeview.delete_subscription(d.dashboard_id, s.schedule_id, sub.subscription_id)
    w.lakeview.delete_schedule(d.dashboard_id, s.schedule_id)
    assert list(w.lakeview.list_schedules(d.dashboard_id)) == []


def test_migrate_a_legacy_dashboard(w, sales):
    wh, table = sales
    src = w.data_sources.list()
    ds = next(x.id for x in src if x.warehouse_id == wh)
    q = w.queries_legacy.create(name="by region", data_source_id=ds,
                                query=f"SELECT region, amount FROM {table}")
    viz = w.query_visualizations_legacy.create(query_id=q.id, type="CHART", name="amounts",
                                               options={"globalSeriesType": "column",
                                                        "columnMapping": {"region": "x", "amount": "y"}})
    # This SDK no longer creates legacy dashboards; their API still answers (sql-objects serves it).
    legacy = w.api_client.do("POST", "/api/2.0/preview/sql/dashboards", body={"name": "Old sales"})
    w.api_client.do("POST", "/api/2.0/preview/sql/widgets", body={
        "dashboard_id": legacy["id"], "visualization_id": viz.id, "width": 1,
        "options": {"position": {"col": 0, "row": 0, "sizeX": 3, "sizeY": 8}}})
    m = w.lakeview.migrate(source_dashboard_id=legacy["id"])
    assert m.display_name == "Old sales" and m.warehouse_id == wh
    content = json.loads(m.serialized_dashboard)
    assert content["datasets"][0]["queryLines"] == [f"SELECT region, amount FROM {table}"]
    bar = content["pages"][0]["layout"][0]
    assert bar["widget"]["spec"]["widgetType"] == "bar" and bar["position"]["width"] == 3


def test_job_with_a_dashboard_task_refreshes_it_and_notifies(w, sales, webhook):
    from databricks.sdk.service import jobs

    wh, table = sales
    hook_url, received = webhook
    dest = w.notification_destinations.create(display_name="hook", config=settings.Config(
        generic_webhook=settings.GenericWebhookConfig(url=hook_url)))
    content = json.loads(_counter(f"SELECT * FROM {table}"))
    # A filter widget named "region_filter": the task's filters set it.
    content["pages"][0]["layout"].append({
        "widget": {"name": "region_filter",
                   "queries": [{"name": "f", "query": {"datasetName": "ds", "fields": [
                       {"name": "region", "expression": "`region`"}], "disaggregated": False}}],
                   "spec": {"version": 2, "widgetType": "filter-multi-select",
                            "encodings": {"fields": [{"fieldName": "region", "queryName": "f"}]}}},
        "position": {"x": 2, "y": 0, "width": 2, "height": 1}})
    d = w.lakeview.create(dashboards.Dashboard(display_name=unique("for a job"), warehouse_id=wh,
                                               serialized_dashboard=json.dumps(content)))
    job = w.jobs.create(name=unique("refresh"), tasks=[jobs.Task(
        task_key="refresh",
        dashboard_task=jobs.DashboardTask(
            dashboard_id=d.dashboard_id, warehouse_id=wh, filters={"region_filter": '["north", "east"]'},
            subscription=jobs.Subscription(custom_subject="Sales refreshed", subscribers=[
                jobs.SubscriptionSubscriber(destination_id=dest.id)])))])
    run = w.jobs.run_now_and_wait(job.job_id)
    assert run.state.result_state == jobs.RunResultState.SUCCESS, run.state
    out = w.jobs.get_run_output(run.tasks[0].run_id)
    assert "Dashboard" in out.logs and "1 of 1 subscribers notified" in out.logs, out.logs
    assert received and received[-1]["dashboard_id"] == d.dashboard_id
    assert received[-1]["subject"] == "Sales refreshed" and received[-1]["status"] == "SUCCESS"
    # The counter's statement ran with the task's filter bound as parameters.
    texts = [q.query_text for q in w.query_history.list(max_results=200).res]
    assert any(f"FROM {table}" in t and "IN (:lakeview_filter_0, :lakeview_filter_1)" in t for t in texts)

    # A dashboard whose widget fails fails the task, with the page's error.
    broken = w.lakeview.create(dashboards.Dashboard(display_name=unique("broken"), warehouse_id=wh,
                                                    serialized_dashboard=_counter("SELECT * FROM nowhere.x.y")))
    job2 = w.jobs.create(name=unique("refresh broken"), tasks=[jobs.Task(
        task_key="refresh", dashboard_task=jobs.DashboardTask(dashboard_id=broken.dashboard_id))])
    try:
        w.jobs.run_now_and_wait(job2.job_id)
    except Exception:
        pass
    runs = list(w.jobs.list_runs(job_id=job2.job_id))
    assert runs[0].state.result_state == jobs.RunResultState.FAILED
    failed = w.jobs.get_run_output(w.jobs.get_run(runs[0].run_id).tasks[0].run_id)
    assert failed.error and "nowhere" in failed.error
    assert failed.as_dict()["dashboard_output"]["page_snapshots"][0]["widget_error_details"]
