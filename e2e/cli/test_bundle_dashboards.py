"""`databricks bundle` with a `dashboards` resource, with the real CLI and both deployment engines: deploy
(the dashboard is created and published), a second deploy that changes nothing (same etag, plan empty),
`bundle generate dashboard` writing back the same dashboard, and destroy (the dashboard goes to the trash)."""
import json
import os
import shutil

import pytest

from minilake import unique
from test_bundle import engine_env

HERE = os.path.dirname(__file__)


def _sql(w, wh, statement):
    r = w.statement_execution.execute_statement(warehouse_id=wh, statement=statement, wait_timeout="30s")
    assert r.status.state.value == "SUCCEEDED", r.status.error
    return r.result.data_array if r.result else []


@pytest.mark.parametrize("engine", ["direct", "terraform"])
def test_bundle_dashboard_lifecycle(engine, cli, w, tmp_path):
    project = tmp_path / "bundle"
    shutil.copytree(os.path.join(HERE, "dashboard_bundle"), project)
    cat = unique("dash")
    w.catalogs.create(name=cat)
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="2X-Small").id
    _sql(w, wh, f"CREATE TABLE {cat}.default.sales (region STRING, amount BIGINT)")
    _sql(w, wh, f"INSERT INTO {cat}.default.sales VALUES ('north', 400), ('south', 317)")
    # Variables through the environment: `bundle generate` takes no --var.
    env = {**engine_env(engine), "BUNDLE_VAR_warehouse_id": wh, "BUNDLE_VAR_catalog": cat}

    def bundle(*args, **kw):
        return cli.run("bundle", *args, cwd=project, env=env, **kw)

    bundle("deploy", "-t", "dev")
    summary = cli.json("bundle", "summary", "-t", "dev", cwd=project, env=env)
    dash_id = summary["resources"]["dashboards"]["sales"]["id"]
    d = w.lakeview.get(dash_id)
    assert d.display_name.endswith("Sales overview") and d.warehouse_id == wh
    assert d.parent_path.endswith("/resources") and d.lifecycle_state.value == "ACTIVE"
    content = json.loads(d.serialized_dashboard)
    assert content["datasets"][0]["catalog"] == cat and content["datasets"][0]["schema"] == "default"
    assert w.lakeview.get_published(dash_id).warehouse_id == wh
    # The source file was not synced as a second dashboard (sync.exclude).
    assert [x.dashboard_id for x in w.lakeview.list()] == [dash_id]
    # Its widget's SQL really runs: the same statement the dashboard page sends.
    total = _sql(w, wh, f"SELECT SUM(amount) FROM {cat}.default.sales")
    assert total == [["717"]]

    # A second deploy changes nothing: the same dashboard, the same etag, nothing planned.
    bundle("deploy", "-t", "dev")
    again = w.lakeview.get(dash_id)
    assert again.etag == d.etag, "redeploy wrote the dashboard again"
    plan = bundle("plan", "-t", "dev")
    out = plan.stdout + plan.stderr
    assert "0 to add, 0 to change, 0 to delete" in out or "Plan: 0" in out, out

    # generate writes back the deployed dashboard: the same JSON (the CLI re-indents and sorts it).
    source = json.loads((project / "src" / "sales.lvdash.json").read_text())
    bundle("generate", "dashboard", "--resource", "sales", "--force")
    generated = json.loads((project / "src" / "sales.lvdash.json").read_text())
    for page in source["pages"]:
        page.setdefault("pageType", "PAGE_TYPE_CANVAS")
    for ds in source["datasets"]:
        ds.update(catalog=cat, schema="default")
    assert generated == source
    # And an existing dashboard by id, into a fresh resource file and dashboard file.
    bundle("generate", "dashboard", "--existing-id", dash_id, "--key", "copy",
           "--dashboard-dir", "generated", "--resource-dir", "generated")
    assert json.loads((project / "generated" / "copy.lvdash.json").read_text()) == generated
    assert "display_name" in (project / "generated" / "copy.dashboard.yml").read_text()

    bundle("destroy", "-t", "dev", "--auto-approve")
    assert w.lakeview.get(dash_id).lifecycle_state.value == "TRASHED"
