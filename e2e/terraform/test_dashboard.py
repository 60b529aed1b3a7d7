"""The real Terraform provider's databricks_dashboard against MiniLake: apply (created and published in a folder
the stack makes), an empty second plan, a change of the .lvdash.json applied as an update with a new etag, the
workspace object, destroy (to the trash)."""
import json
import os
import time

HERE = os.path.dirname(__file__)


def content(title):
    return json.dumps({
        "datasets": [{"name": "ds", "displayName": "numbers", "queryLines": ["SELECT 1 AS n UNION ALL SELECT 2"]}],
        "pages": [{"name": "p1", "displayName": "Numbers", "layout": [{
            "widget": {"name": "w1",
                       "queries": [{"name": "main_query", "query": {
                           "datasetName": "ds", "fields": [{"name": "sum(n)", "expression": "SUM(`n`)"}],
                           "disaggregated": False}}],
                       "spec": {"version": 2, "widgetType": "counter",
                                "encodings": {"value": {"fieldName": "sum(n)"}},
                                "frame": {"showTitle": True, "title": title}}},
            "position": {"x": 0, "y": 0, "width": 2, "height": 3}}]}],
    }, indent=2)


def test_dashboard_apply_plan_empty_update_and_destroy(server, w, terraform_factory):
    me = w.current_user.me().user_name
    sfx = f"{os.getpid()}{time.time_ns() % 10**6}"
    with open(os.path.join(HERE, "dashboard.tf")) as f:
        main = f.read()
    tf = terraform_factory({
        "main.tf": main,
        "sales.lvdash.json": content("Total"),
        "terraform.tfvars": f'host = "{server.url}"\nsuffix = "{sfx}"\nme = "{me}"\n',
    })
    tf.init()
    tf.apply()
    dash_id = tf.run("output", "-raw", "dashboard_id").stdout.strip()
    d = w.lakeview.get(dash_id)
    assert d.display_name == f"Sales {sfx}" and d.parent_path == f"/Users/{me}/tf-dashboards-{sfx}"
    assert w.lakeview.get_published(dash_id).embed_credentials is False
    assert w.workspace.get_status(d.path).resource_id == dash_id

    code, plan = tf.plan_exit()
    assert code == 0, plan

    # A changed file is an in-place update: the same dashboard, a new etag, the new content.
    with open(os.path.join(tf.dir, "sales.lvdash.json"), "w") as f:
        f.write(content("Total of n"))
    code, plan = tf.plan_exit()
    assert code == 2 and "update in-place" in plan, plan
    tf.apply()
    u = w.lakeview.get(dash_id)
    assert u.etag != d.etag and "Total of n" in u.serialized_dashboard
    code, plan = tf.plan_exit()
    assert code == 0, plan

    tf.destroy()
    assert w.lakeview.get(dash_id).lifecycle_state.value == "TRASHED"
