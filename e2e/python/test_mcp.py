"""The MCP server at /mcp (MINILAKE_MCP=1) through the official Python MCP client over Streamable HTTP: the
capabilities, the seeds' three-call agent flow, Databricks errors as isError, resources and prompts."""
import asyncio
import json

import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

from conftest import Server, unique


@pytest.fixture(scope="module")
def mcp_url():
    s = Server(env={"MINILAKE_MCP": "1", "MINILAKE_WAREHOUSE_START_DELAY": "0.1"})
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
