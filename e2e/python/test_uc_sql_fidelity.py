"""Unity Catalog items made in SQL, seen through the real databricks-sdk: SQL through the Statement Execution
API against a warehouse, then the SDK's Unity Catalog REST calls on what it made (and back: REST changes seen
by SQL), as a user mixing a SQL editor and the SDK would."""
import pytest
from databricks.sdk.service.catalog import FunctionInfoSqlDataAccess
from databricks.sdk.service.sql import StatementState

from conftest import unique


@pytest.fixture
def sql(w):
    wh = w.warehouses.create(name=unique("wh"), cluster_size="Small").id

    def run(statement):
        r = w.statement_execution.execute_statement(statement=statement, warehouse_id=wh, wait_timeout="30s")
        assert r.status.state == StatementState.SUCCEEDED, (statement, r.status.error)
        cols = [c.name for c in r.manifest.schema.columns] if r.manifest and r.manifest.schema else []
        return cols, (r.result.data_array or []) if r.result else []

    return run


def test_create_function_shows_in_functions_api_at_once(w, sql):
    cat = unique("fn")
    w.catalogs.create(name=cat)
    w.schemas.create(name="s", catalog_name=cat)
    sql(f"CREATE FUNCTION {cat}.s.plus_one(x INT) RETURNS INT LANGUAGE SQL NOT DETERMINISTIC "
        f"READS SQL DATA COMMENT 'adds one' RETURN x + 1")
    sql(f"CREATE FUNCTION {cat}.s.twice(x INT) RETURNS INT DETERMINISTIC CONTAINS SQL RETURN x * 2")
    sql(f"CREATE FUNCTION {cat}.s.upto(n INT) RETURNS TABLE (i INT) RETURN SELECT * FROM range(n) AS t(i)")

    listed = {f.name: f for f in w.functions.list(catalog_name=cat, schema_name="s")}
    assert set(listed) == {"plus_one", "twice", "upto"}

    f = w.functions.get(f"{cat}.s.plus_one")
    assert (f.full_name, f.comment, f.is_deterministic) == (f"{cat}.s.plus_one", "adds one", False)
    assert f.sql_data_access == FunctionInfoSqlDataAccess.READS_SQL_DATA
    assert f.data_type.value == "INT" and f.full_data_type.upper() == "INT"
    assert [p.name for p in f.input_params.parameters] == ["x"]
    assert f.routine_body.value == "SQL" and f.routine_definition == "x + 1"

    g = w.functions.get(f"{cat}.s.twice")
    assert (g.is_deterministic, g.sql_data_access) == (True, FunctionInfoSqlDataAccess.CONTAINS_SQL)
    assert g.comment is None

    # A table function: the Functions API says so (data_type TABLE_TYPE, its columns as return_params).
    t = w.functions.get(f"{cat}.s.upto")
    assert t.data_type.value == "TABLE_TYPE"
    assert [p.name for p in t.return_params.parameters] == ["i"]
    assert sql(f"SELECT count(*) FROM {cat}.s.upto(3)")[1] == [["3"]]

    # And it runs, under the name the SDK saw.
    assert sql(f"SELECT {cat}.s.plus_one(1) AS v")[1] == [["2"]]
    sql(f"DROP FUNCTION {cat}.s.plus_one")
    assert "plus_one" not in {f.name for f in w.functions.list(catalog_name=cat, schema_name="s")}


def test_schema_and_catalog_properties_and_comment_round_trip(w, sql, server):
    cat = unique("props")
    sql(f"CREATE CATALOG {cat} COMMENT 'the catalog'")
    c = w.catalogs.get(cat)
    assert c.comment == "the catalog"
    sql(f"ALTER CATALOG {cat} SET DBPROPERTIES ('team' = 'data')")
    assert w.catalogs.get(cat).properties == {"team": "data"}

    sql(f"CREATE SCHEMA {cat}.s COMMENT 'the schema' WITH DBPROPERTIES ('k1' = 'v1', 'k2' = 'v2')")
    s = w.schemas.get(f"{cat}.s")
    assert (s.comment, s.properties) == ("the schema", {"k1": "v1", "k2": "v2"})
    sql(f"ALTER SCHEMA {cat}.s SET DBPROPERTIES ('k2' = 'changed', 'k3' = 'v3')")
    sql(f"COMMENT ON SCHEMA {cat}.s IS 'said again'")
    s = w.schemas.get(f"{cat}.s")
    assert (s.comment, s.properties) == ("said again", {"k1": "v1", "k2": "changed", "k3": "v3"})

    # Back: what the SDK sets, SQL reports.
    w.schemas.update(f"{cat}.s", comment="from the sdk", properties={"k4": "v4"})
    w.catalogs.update(cat, comment="catalog from the sdk", properties={"env": "dev"})
    me = w.current_user.me().user_name
    cols, rows = sql(f"DESCRIBE SCHEMA EXTENDED {cat}.s")
    assert cols == ["database_description_item", "database_description_value"]
    info = dict((r[0], r[1]) for r in rows)
    assert [r[0] for r in rows] == ["Catalog Name", "Namespace Name", "Comment", "Location", "Owner", "Properties"]
    assert (info["Catalog Name"], info["Namespace Name"], info["Comment"], info["Owner"]) == (
        cat, "s", "from the sdk", me)
    assert info["Properties"] == "((k1,v1), (k2,changed), (k3,v3), (k4,v4))"
    # Location: where the schema's managed data lives, a file: URL here (Databricks prints its cloud URL).
    schema_id = w.schemas.get(f"{cat}.s").schema_id
    assert info["Location"].startswith("file://") and info["Location"].endswith(f"/__unitystorage/schemas/{schema_id}")

    cols, rows = sql(f"DESCRIBE CATALOG EXTENDED {cat}")
    info = dict((r[0], r[1]) for r in rows)
    assert (info["Catalog Name"], info["Comment"], info["Owner"]) == (cat, "catalog from the sdk", me)
    assert info["Properties"] == "((env,dev), (team,data))"


def test_function_result_column_named_as_databricks_prints_it(w, sql):
    name = unique("f")
    sql(f"CREATE FUNCTION main.default.{name}(x INT) RETURNS INT RETURN x + 1")
    cols, rows = sql(f"SELECT main.default.{name}(41)")
    assert cols == [f"main.default.{name}(41)"] and rows == [["42"]]
