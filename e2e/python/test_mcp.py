"""The MCP server at /mcp (MINILAKE_MCP=1) through the official Python MCP client over Streamable HTTP: the
capabilities, the seeds' three-call agent flow, Databricks errors as isError, resources and prompts."""
import asyncio
import json
import os

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import ROOT, Server, unique


@pytest.fixture(scope="module")
def mcp_url():
    s = Server(env={"MINILAKE_MCP": "1", "MINILAKE_WAREHOUSE_START_DELAY": "0.1",
                    "MINILAKE_CLUSTER_START_DELAY": "0.1", "MINILAKE_CLUSTER_TERMINATE_DELAY": "0.1"})
    yield s.url + "/mcp"
    s.stop()


def session(url, body):
    async def main():
        async with streamable_http_client(url) as (r, w):
            async with ClientSession(r, w) as s:
                init = await s.initialize()
                return await body(s, init)

    return asyncio.run(main())


def ok(res):
    assert not res.is_error, res.content
    return res.structured_content


def test_capabilities(mcp_url):
    async def body(s, init):
        assert init.server_info.name == "minilake"
        assert init.protocol_version == "2025-11-25"
        tools = (await s.list_tools()).tools
        resources = (await s.list_resources()).resources
        templates = (await s.list_resource_templates()).resource_templates
        prompts = (await s.list_prompts()).prompts
        return tools, resources, templates, prompts

    tools, resources, templates, prompts = session(mcp_url, body)
    assert len(tools) >= 67
    assert all(t.description and t.output_schema and t.annotations for t in tools)
    assert {str(r.uri) for r in resources} >= {
        "minilake://capabilities", "minilake://sql-dialect", "minilake://pyspark-guide", "minilake://catalogs"}
    assert len(resources) >= 8 and len(templates) == 4
    assert {p.name for p in prompts} == {"explore_data", "run_spark_job", "diagnose_error", "seed_test_fixture"}


def test_seeds_agent_flow(mcp_url):
    schema = unique("store")

    async def body(s, _):
        fx = ok(await s.call_tool("setup_fixture", {"catalog": "sales", "schema": schema}))
        ok(await s.call_tool("seed_table", {
            "full_name": f"sales.{schema}.orders",
            "columns": [{"name": "id", "type_text": "BIGINT"}, {"name": "amount", "type_text": "DECIMAL(10,2)"}],
            "rows": [[1, "10.50"], [2, "20.25"], [3, "5.00"]]}))
        total = ok(await s.call_tool("run_sql", {"statement": f"SELECT SUM(amount) FROM sales.{schema}.orders"}))
        tree = ok(await s.call_tool("describe_catalog_tree", {"catalog": "sales"}))
        return fx, total, tree

    fx, total, tree = session(mcp_url, body)
    assert fx["full_name"] == f"sales.{schema}"
    assert total["rows"] == [["35.75"]]
    tables = next(x for x in tree["schemas"] if x["name"] == schema)["tables"]
    assert [c["name"] for c in tables[0]["columns"]] == ["id", "amount"]


def test_errors_are_databricks_errors(mcp_url):
    async def body(s, _):
        missing = await s.call_tool("describe_table", {"full_name": "nope.nope.nope"})
        bad_sql = await s.call_tool("run_sql", {"statement": "SELEC 1"})
        return missing, bad_sql

    missing, bad_sql = session(mcp_url, body)
    assert missing.is_error and missing.content[0].text.split(":")[0].endswith("DOES_NOT_EXIST")
    assert bad_sql.is_error and "PARSE_SYNTAX_ERROR" in bad_sql.content[0].text
    assert "Traceback" not in bad_sql.content[0].text and "    at " not in bad_sql.content[0].text


def test_resources_and_prompts(mcp_url):
    async def body(s, _):
        caps = await s.read_resource("minilake://capabilities")
        dialect = await s.read_resource("minilake://sql-dialect")
        prompt = await s.get_prompt("explore_data", {"question": "What is the total?", "catalog": "sales"})
        return caps, dialect, prompt

    caps, dialect, prompt = session(mcp_url, body)
    services = {x["name"]: x for x in json.loads(caps.contents[0].text)["services"]}
    assert services["unity-catalog"]["enabled"] and "create_table" in services["unity-catalog"]["mcp_tools"]
    assert "UNSUPPORTED_FEATURE" in dialect.contents[0].text
    assert "describe_catalog_tree" in prompt.messages[0].content.text


def test_snapshot_then_restore_undoes_an_experiment(mcp_url):
    name, schema = unique("snap"), unique("exp")

    async def body(s, _):
        ok(await s.call_tool("setup_fixture", {"catalog": "sales", "schema": "keep"}))
        ok(await s.call_tool("snapshot_state", {"name": name}))
        ok(await s.call_tool("setup_fixture", {"catalog": "sales", "schema": schema}))
        ok(await s.call_tool("run_sql", {"statement": f"CREATE TABLE sales.{schema}.t AS SELECT 1 AS x"}))
        ok(await s.call_tool("restore_state", {"name": name}))
        schemas = ok(await s.call_tool("list_schemas", {"catalog_name": "sales"}))
        total = ok(await s.call_tool("run_sql", {"statement": "SELECT 1 AS one"}))
        ok(await s.call_tool("delete_snapshot", {"name": name}))
        return schemas, total

    schemas, total = session(mcp_url, body)
    names = [x["name"] for x in schemas["schemas"]]
    assert "keep" in names and schema not in names
    assert total["rows"] == [["1"]]


def test_every_tool_once(mcp_url, tmp_path):
    """Each tool through the Python client with arguments an agent would send; results checked where they
    say something, and the whole list of tools covered (a new tool must be added here)."""
    cat, home, d, scope = unique("pyuc"), "/Users/" + unique("u"), "/tmp/" + unique("d"), unique("scope")
    secret = "s3cret-" + unique("v")

    async def body(s, _):
        called, outputs = set(), []

        async def raw(name, args=None):
            called.add(name)
            r = await s.call_tool(name, args or {})
            outputs.append(json.dumps(r.structured_content) + "".join(getattr(c, "text", "") for c in r.content))
            return r

        async def call(name, args=None):
            return ok(await raw(name, args))

        async def until(name, args, pred):
            for _ in range(200):
                r = await call(name, args)
                if pred(r):
                    return r
                await asyncio.sleep(0.1)
            raise AssertionError(f"{name} never reached the expected state: {r}")

        names = {t.name for t in (await s.list_tools()).tools}
        assert (await call("health"))["status"] == "ok"
        assert "mcp" in (await call("list_services"))["enabled"]

        await call("create_catalog", {"name": cat})
        assert cat in [c["name"] for c in (await call("list_catalogs"))["catalogs"]]
        await call("get_catalog", {"name": cat})
        await call("create_schema", {"name": "raw", "catalog_name": cat})
        await call("list_schemas", {"catalog_name": cat})
        await call("get_schema", {"full_name": f"{cat}.raw"})
        cols = [{"name": "id", "type_text": "INT"}, {"name": "kind", "type_text": "STRING"}]
        await call("create_table", {"name": "events", "catalog_name": cat, "schema_name": "raw",
                                    "table_type": "MANAGED", "columns": cols})
        await call("list_tables", {"catalog_name": cat, "schema_name": "raw"})
        assert len((await call("describe_table", {"full_name": f"{cat}.raw.events"}))["table"]["columns"]) == 2
        assert (await call("table_exists", {"full_name": f"{cat}.raw.events"}))["table_exists"] is True
        await call("seed_table", {"full_name": f"{cat}.raw.events", "columns": cols,
                                  "rows": [[1, "a"], [2, None]], "recreate": False})
        assert (await call("preview_table", {"full_name": f"{cat}.raw.events"}))["rows"] == [["1", "a"], ["2", None]]
        await call("describe_catalog_tree", {"catalog": cat, "include_columns": True})
        await call("setup_fixture", {"catalog": cat, "schema": "fx"})
        await call("create_volume", {"name": "landing", "catalog_name": cat, "schema_name": "raw"})
        await call("list_volumes", {"catalog_name": cat, "schema_name": "raw"})
        await call("get_volume", {"full_name": f"{cat}.raw.landing"})

        vol = f"/Volumes/{cat}/raw/landing"
        await call("create_directory", {"path": f"{vol}/in"})
        await call("upload_file", {"path": f"{vol}/in/a.csv", "content": "x,y\n1,2\n3,4\n"})
        assert (await call("list_directory", {"path": f"{vol}/in"}))["contents"][0]["name"] == "a.csv"
        assert (await call("download_file", {"path": f"{vol}/in/a.csv"}))["content"] == "x,y\n1,2\n3,4\n"
        assert (await call("get_file_metadata", {"path": f"{vol}/in/a.csv"}))["size"] == 12
        assert (await call("run_sql", {"statement": f"SELECT sum(y) FROM read_csv('{vol}/in/a.csv')"}))["rows"] == [["6"]]
        await call("delete_file", {"path": f"{vol}/in/a.csv"})

        st = await call("run_sql", {"statement": "SELECT id FROM range(3)", "max_rows": 2})
        assert st["truncated"] is True
        await call("get_statement", {"statement_id": st["statement_id"]})
        await call("cancel_statement", {"statement_id": st["statement_id"]})
        assert (await call("explain_sql", {"statement": "SELECT 1"}))["accepted"] is True
        assert (await call("query_history", {"max_results": 5}))["queries"]

        loc = str(tmp_path / "dt")
        await call("run_sql", {"statement": f"CREATE TABLE {cat}.raw.dt (id BIGINT) USING DELTA LOCATION '{loc}'"})
        await call("run_sql", {"statement": f"INSERT INTO {cat}.raw.dt VALUES (1), (2)"})
        hist = await call("table_history", {"full_name": f"{cat}.raw.dt"})
        assert hist["row_count"] == 2
        assert (await call("read_table_as_of", {"full_name": f"{cat}.raw.dt", "version": 0}))["row_count"] == 0

        wh = await call("create_warehouse", {"name": unique("wh"), "auto_stop_mins": 0})
        await until("get_warehouse", {"id": wh["id"]}, lambda r: r["warehouse"]["state"] == "RUNNING")
        await call("list_warehouses")
        await call("stop_warehouse", {"id": wh["id"]})
        await until("get_warehouse", {"id": wh["id"]}, lambda r: r["warehouse"]["state"] == "STOPPED")
        await call("start_warehouse", {"id": wh["id"]})
        await call("delete_warehouse", {"id": wh["id"]})

        await call("make_workspace_dirs", {"path": f"{home}/etl"})
        await call("put_workspace_file", {"path": f"{home}/etl/job.py", "content": "print('hi')\n"})
        assert (await call("get_workspace_file", {"path": f"{home}/etl/job.py"}))["content"] == "print('hi')\n"
        await call("list_workspace", {"path": f"{home}/etl"})
        await call("get_workspace_status", {"path": f"{home}/etl/job.py"})
        await call("delete_workspace_object", {"path": home, "recursive": True})

        await call("dbfs_mkdirs", {"path": d})
        await call("dbfs_put", {"path": f"{d}/a.txt", "content": "hello dbfs"})
        assert (await call("dbfs_read", {"path": f"{d}/a.txt", "offset": 6, "length": 2}))["content"] == "db"
        await call("dbfs_list", {"path": d})
        await call("dbfs_move", {"source_path": f"{d}/a.txt", "destination_path": f"{d}/c.txt"})
        assert (await call("dbfs_get_status", {"path": f"{d}/c.txt"}))["file"]["file_size"] == 10
        await call("dbfs_delete", {"path": d, "recursive": True})

        await call("create_secret_scope", {"scope": scope})
        await call("list_secret_scopes")
        await call("put_secret", {"scope": scope, "key": "pw", "string_value": secret})
        assert (await call("list_secrets", {"scope": scope}))["secrets"][0]["key"] == "pw"
        await call("delete_secret", {"scope": scope, "key": "pw"})
        await call("delete_secret_scope", {"scope": scope})

        cl = await call("create_cluster", {"cluster_name": unique("c"), "autotermination_minutes": 0})
        await call("list_clusters")
        await call("list_spark_versions")
        await until("get_cluster", {"cluster_id": cl["cluster_id"]}, lambda r: r["cluster"]["state"] == "RUNNING")
        await call("restart_cluster", {"cluster_id": cl["cluster_id"]})
        await until("get_cluster", {"cluster_id": cl["cluster_id"]}, lambda r: r["cluster"]["state"] == "RUNNING")
        await call("terminate_cluster", {"cluster_id": cl["cluster_id"]})
        await until("get_cluster", {"cluster_id": cl["cluster_id"]}, lambda r: r["cluster"]["state"] == "TERMINATED")
        await call("start_cluster", {"cluster_id": cl["cluster_id"]})

        if "create_job" in names:
            job = await call("create_job", {"name": unique("job"), "tasks": [
                {"task_key": "t", "spark_python_task": {"python_file": "/Workspace/none.py"}}]})
            await call("get_job", {"job_id": job["job_id"]})
            await call("list_jobs")
            run = await raw("run_job", {"job_id": job["job_id"]})
            run_id = (run.structured_content or {}).get("run_id")
            if run_id is not None:
                await raw("get_run", {"run_id": run_id})
                await raw("get_run_output", {"run_id": run_id})
                await raw("cancel_run", {"run_id": run_id})
            await call("list_runs", {"job_id": job["job_id"]})
            # The script's outcome depends on the Spark install; any answer must be a tool result.
            await raw("run_python_script", {"script": "print(1 + 1)", "timeout_seconds": 120})
            await call("delete_job", {"job_id": job["job_id"]})

        snap = unique("snap")
        await call("snapshot_state", {"name": snap})
        await call("list_snapshots")
        await call("restore_state", {"name": snap})
        await call("delete_snapshot", {"name": snap})
        await call("delete_table", {"full_name": f"{cat}.raw.dt"})
        await call("delete_volume", {"full_name": f"{cat}.raw.landing"})
        await call("delete_table", {"full_name": f"{cat}.raw.events"})
        await call("delete_schema", {"full_name": f"{cat}.raw"})
        await call("delete_catalog", {"name": cat, "force": True})
        await call("reset_state")
        return names, called, outputs

    names, called, outputs = session(mcp_url, body)
    assert sorted(names - called) == []
    assert secret not in "\n".join(outputs)


def test_seed_table_is_all_or_nothing(mcp_url):
    schema = unique("seed")
    cols = [{"name": "id", "type_text": "BIGINT"}, {"name": "name", "type_text": "STRING"}]

    async def body(s, _):
        ok(await s.call_tool("setup_fixture", {"catalog": "main", "schema": schema}))
        fresh = await s.call_tool("seed_table", {"full_name": f"main.{schema}.t", "columns": cols,
                                                 "rows": [[1, "a"], ["not a number", "b"]]})
        after_fresh = ok(await s.call_tool("table_exists", {"full_name": f"main.{schema}.t"}))
        ok(await s.call_tool("seed_table", {"full_name": f"main.{schema}.t", "columns": cols, "rows": [[1, "a"]]}))
        replace = await s.call_tool("seed_table", {"full_name": f"main.{schema}.t", "columns": cols,
                                                   "rows": [[2, "b"], ["x", "c"]]})
        append = await s.call_tool("seed_table", {"full_name": f"main.{schema}.t", "columns": cols,
                                                  "rows": [[3, "c"], ["y", "d"]], "recreate": False})
        rows = ok(await s.call_tool("run_sql", {"statement": f"SELECT id, name FROM main.{schema}.t"}))
        tables = ok(await s.call_tool("list_tables", {"catalog_name": "main", "schema_name": schema}))
        return fresh, after_fresh, replace, append, rows, tables

    fresh, after_fresh, replace, append, rows, tables = session(mcp_url, body)
    assert fresh.is_error and after_fresh["table_exists"] is False
    assert replace.is_error and append.is_error
    # Neither failure changed the table, and no staging table was left behind.
    assert rows["rows"] == [["1", "a"]]
    assert [t["name"] for t in tables["tables"]] == ["t"]


def test_the_dialect_resource_matches_the_dialect_and_run_sql_names_its_warehouse(mcp_url):
    async def body(s, _):
        dialect = (await s.read_resource("minilake://sql-dialect")).contents[0].text
        travel = ok(await s.call_tool("run_sql", {"statement": "SELECT count(*) FROM samples.tpch.region VERSION AS OF 1"}))
        tools = {t.name: t for t in (await s.list_tools()).tools}
        return dialect, travel, tools

    dialect, travel, tools = session(mcp_url, body)
    refused = dialect.split("## Refused")[1].split("##")[0]
    assert "VERSION AS OF" not in refused and "DESCRIBE HISTORY" not in refused
    assert "time travel" in dialect.split("## Works as on Databricks")[1].split("## Refused")[0]
    assert travel["rows"] == [["5"]]
    # The warehouse run_sql names in its description is the one it used.
    assert travel["warehouse_id"] == "dev"
    assert "`dev`" in tools["run_sql"].input_schema["properties"]["warehouse_id"]["description"]


_versions = json.load(open(os.path.join(ROOT, "packages", "engine-spark", "versions.json")))
_spark = os.path.join(os.environ.get("MINILAKE_CACHE") or os.path.expanduser("~/.cache/minilake"),
                      f"spark-{_versions['pyspark']}-delta-{_versions['deltaSpark']}", ".complete")


@pytest.mark.skipif(not os.path.exists(_spark), reason="Spark is not installed: bash packages/engine-spark/install.sh")
def test_a_failed_run_is_an_error(mcp_url):
    async def body(s, _):
        good = await s.call_tool("run_python_script", {"script": "print('fine')", "timeout_seconds": 600})
        bad = await s.call_tool("run_python_script", {"script": "raise ValueError('boom')", "timeout_seconds": 600})
        output = await s.call_tool("get_run_output", {"run_id": bad.structured_content["run_id"]})
        return good, bad, output

    good, bad, output = session(mcp_url, body)
    assert not good.is_error and "fine" in good.structured_content["stdout"]
    assert bad.is_error and bad.structured_content["result_state"] == "FAILED"
    assert "boom" in bad.content[0].text
    assert output.is_error
