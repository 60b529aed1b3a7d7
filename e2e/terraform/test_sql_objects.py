"""The real Terraform provider's Databricks SQL resources (databricks_query, databricks_alert, and the legacy
databricks_sql_query / sql_alert / sql_visualization / sql_dashboard / sql_widget) against MiniLake: apply,
an empty second plan, the objects really there through the SDK, destroy."""
import os
import time

HERE = os.path.dirname(__file__)
VERSIONS = 'terraform {\n  required_providers {\n    databricks = { source = "databricks/databricks" }\n  }\n}\n'


def test_sql_objects_apply_plan_empty_and_destroy(server, w, terraform_factory):
    sfx = f"{os.getpid()}{time.time_ns() % 10**6}"
    with open(os.path.join(HERE, "sql_objects.tf")) as f:
        main = f.read()
    tf = terraform_factory({"main.tf": main, "terraform.tfvars": f'host = "{server.url}"\nsuffix = "{sfx}"\n'})
    tf.init()
    tf.apply()
    code, plan = tf.plan_exit()
    assert code == 0, plan

    names = {q.display_name: q for q in w.queries.list()}
    assert names[f"tf-orders-{sfx}"].parameters[0].text_value.value == "10"
    assert f"tf-legacy-{sfx}" in names
    alerts = {a.display_name: a for a in w.alerts.list()}
    assert alerts[f"tf-big-{sfx}"].condition.op.value == "GREATER_THAN"
    assert f"tf-legacy-alert-{sfx}" in alerts
    assert [a.display_name for a in w.alerts_v2.list_alerts()] == [f"tf-v2-{sfx}"]
    dash = next(d for d in w.dashboards.list() if d.name == f"tf-dash-{sfx}")
    assert len(w.dashboards.get(dash.id).widgets) == 2

    tf.destroy()
    assert not [q for q in w.queries.list() if q.display_name.endswith(sfx)]
    assert not [a for a in w.alerts.list() if a.display_name.endswith(sfx)]
    assert not [d for d in w.dashboards.list() if d.name.endswith(sfx)]
    assert not list(w.alerts_v2.list_alerts())
