"""Alerts V2 as workspace files (issue 33), driven by the real CLI built from source as its own acceptance tests
drive Databricks: `bundle generate alert` exports `<parent_path>/<display_name>.dbalert.json` (the golden
acceptance/bundle/generate/alert/out), and a bundle alert from a `.dbalert.json` round-trips through
`workspace export` (acceptance/bundle/resources/alerts/with_file)."""
import json

from minilake import unique

# acceptance/bundle/generate/alert/out/alert/test_alert.dbalert.json, as the CLI team recorded it.
GENERATED = """{
  "evaluation": {
    "source": {
      "name": "value"
    },
    "comparison_operator": "GREATER_THAN",
    "threshold": {
      "value": {
        "double_value": 0.0
      }
    },
    "notification": {}
  },
  "schedule": {
    "quartz_cron_schedule": "0 0 9 10 1 ?",
    "timezone_id": "UTC"
  },
  "query_lines": [
    "SELECT 1",
    " as value"
  ]
}
"""

# acceptance/bundle/resources/alerts/with_file/alert.dbalert.json
WITH_FILE = {
    "custom_summary": "My alert from file",
    "evaluation": {
        "source": {"name": "1", "display": "1", "aggregation": "MAX"},
        "comparison_operator": "EQUAL",
        "threshold": {"value": {"double_value": 2.0}},
        "notification": {"retrigger_seconds": 1, "notify_on_ok": False},
    },
    "schedule": {"quartz_cron_schedule": "44 19 */1 * * ?", "timezone_id": "Europe/Amsterdam"},
    "query_lines": ["select 2"],
    "custom_description_lines": ["My alert from file", "with multiple lines", "and a third line"],
}


def normalized(value):
    """What the golden's `jq -S 'walk(if type == "number" then . + 0 else . end)'` compares: keys sorted, 2.0 == 2."""
    return json.loads(json.dumps(value), parse_float=lambda s: float(s) if "." in s else int(s),
                      parse_int=int, object_pairs_hook=lambda pairs: dict(sorted(pairs)))


def test_bundle_generate_alert_exports_its_dbalert_file(cli, w, tmp_path):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="2X-Small").id
    me = w.current_user.me().user_name
    folder = f"/Workspace/Users/{me}/{unique('test')}"
    cli.run("workspace", "mkdirs", folder)
    spec = tmp_path / "alert.json"
    spec.write_text(json.dumps({
        "display_name": "test alert", "parent_path": folder, "query_text": "SELECT 1\n as value",
        "warehouse_id": wh,
        "evaluation": {"comparison_operator": "GREATER_THAN", "source": {"name": "value"},
                       "threshold": {"value": {"double_value": 0.0}}},
        "schedule": {"quartz_cron_schedule": "0 0 9 10 1 ?", "timezone_id": "UTC"},
    }))
    alert_id = cli.json("alerts-v2", "create-alert", "--json", f"@{spec}")["id"]

    # `list` answers paths without the /Workspace prefix (a known difference, FEATURES.md).
    listed = cli.json("workspace", "list", folder)
    bare = folder.removeprefix("/Workspace")
    assert [(o["path"], o["object_type"]) for o in listed] == [(f"{bare}/test alert.dbalert.json", "FILE")]

    project = tmp_path / "gen"
    project.mkdir()
    (project / "databricks.yml").write_text("bundle:\n  name: gen\n")
    out = cli.run("bundle", "generate", "alert", "--existing-id", alert_id, "--source-dir", "out/alert",
                  "--config-dir", "out/resource", cwd=project)
    said = out.stdout + out.stderr
    assert "Alert configuration successfully saved to" in said and "out/resource/test_alert.alert.yml" in said
    assert "Serialized alert definition to" in said and "out/alert/test_alert.dbalert.json" in said
    assert (project / "out" / "alert" / "test_alert.dbalert.json").read_text() == GENERATED
    assert (project / "out" / "resource" / "test_alert.alert.yml").read_text() == (
        "resources:\n  alerts:\n    test_alert:\n"
        f'      display_name: "test alert"\n      warehouse_id: {wh}\n'
        "      file_path: ../alert/test_alert.dbalert.json\n")

    # The folder goes with its alert file: the alert is trashed with it.
    cli.run("workspace", "delete", folder, "--recursive")
    assert cli.json("alerts-v2", "get-alert", alert_id)["lifecycle_state"] == "DELETED"


def test_bundle_alert_from_a_file_round_trips_through_workspace_export(cli, w, tmp_path):
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="2X-Small").id
    project = tmp_path / "with_file"
    project.mkdir()
    (project / "alert.dbalert.json").write_text(json.dumps(WITH_FILE, indent=2) + "\n")
    (project / "databricks.yml").write_text(f"""
bundle:
  name: alerts-with-file-{unique('b')}

resources:
  alerts:
    myalert:
      warehouse_id: {wh}
      display_name: "myalert"
      file_path: ./alert.dbalert.json
""")
    cli.run("bundle", "deploy", cwd=project)
    summary = cli.json("bundle", "summary", cwd=project)
    alert = summary["resources"]["alerts"]["myalert"]
    got = cli.json("alerts-v2", "get-alert", alert["id"])
    assert got["query_text"] == "select 2\n"
    assert got["custom_description"] == "My alert from file\nwith multiple lines\nand a third line\n"

    path = f"{alert['parent_path']}/myalert.dbalert.json"
    exported = project / "exported_alert.dbalert.json"
    exported.write_text(cli.run("workspace", "export", path).stdout)
    assert normalized(json.loads(exported.read_text())) == normalized(WITH_FILE)
    # The uploaded copy under files/ stays a plain file (what a job's alert_task reads), not a second alert.
    assert [a["id"] for a in cli.json("alerts-v2", "list-alerts") if a["display_name"] == "myalert"] == [alert["id"]]

    cli.run("bundle", "destroy", "--auto-approve", cwd=project)
    gone = cli.run("workspace", "get-status", path, check=False)
    assert gone.returncode != 0 and "doesn't exist" in gone.stderr + gone.stdout
    missing = cli.run("alerts-v2", "get-alert", alert["id"], check=False)
    assert missing.returncode != 0 and f"Alert with ID '{alert['id']}' does not exist." in missing.stderr
