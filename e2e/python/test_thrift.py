"""The Thrift SQL endpoint through the real databricks-sql-connector and SQLAlchemy's Databricks dialect, over
plain http (`_connection_uri`): typed values, fetch variants, parameters, metadata cursors, namespace,
cancel, query history, and a table made through the Statement API seen through Thrift."""
import datetime
import decimal
import threading
import time

import pandas as pd
import pytest
import requests
from databricks import sql
from sqlalchemy import create_engine, inspect, text

from conftest import unique


@pytest.fixture
def wh(w):
    return w.warehouses.create(name=unique("wh"), cluster_size="Small").id


def connect(url, wh, **kw):
    path = f"/sql/1.0/warehouses/{wh}"
    host = url.split("//", 1)[1]
    return sql.connect(server_hostname=host, http_path=path, access_token="dev",
                       _connection_uri=url + path, enable_telemetry=False, **kw)


def run_rest(url, wh, statement):
    r = requests.post(f"{url}/api/2.0/sql/statements",
                      json={"warehouse_id": wh, "statement": statement, "wait_timeout": "30s"}).json()
    assert r["status"]["state"] == "SUCCEEDED", r


def test_values_come_back_as_the_connector_types(url, wh):
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute("SELECT 1 AS i, CAST(3 AS BIGINT) AS b, CAST(2 AS SMALLINT) AS si, CAST(1 AS TINYINT) AS ti, "
                  "1.5D AS d, CAST(0.5 AS FLOAT) AS f, 'a' AS s, CAST(2.50 AS DECIMAL(10,2)) AS dec, "
                  "DATE'2024-01-02' AS day, TIMESTAMP'2024-01-02 03:04:05.123456' AS ts, "
                  "CAST('2024-01-02 03:04:05' AS TIMESTAMP_NTZ) AS ntz, true AS bool, "
                  "CAST('abc' AS BINARY) AS bin, CAST(NULL AS STRING) AS n")
        assert [d[1] for d in c.description] == ["int", "bigint", "smallint", "tinyint", "double", "float",
                                                 "string", "decimal", "date", "timestamp", "timestamp",
                                                 "boolean", "binary", "string"]
        assert c.description[7][4:6] == (10, 2)
        r = c.fetchone()
        assert (r.i, r.b, r.si, r.ti, r.d, r.f, r.s) == (1, 3, 2, 1, 1.5, 0.5, "a")
        assert r.dec == decimal.Decimal("2.50")
        assert r.day == datetime.date(2024, 1, 2)
        assert r.ts == datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=datetime.timezone.utc)
        assert r.ntz == datetime.datetime(2024, 1, 2, 3, 4, 5) and r.ntz.tzinfo is None
        assert (r.bool, r.bin, r.n) == (True, b"abc", None)


def test_nested_values_and_session_time_zone(url, wh):
    with connect(url, wh, session_configuration={"spark.sql.session.timeZone": "America/New_York"}) as conn, \
            conn.cursor() as c:
        c.execute("SELECT array(1, 2, 3) AS a, map('k', 1) AS m, named_struct('x', 1, 'y', 'z') AS st, "
                  "TIMESTAMP'2024-06-01 12:00:00Z' AS ts")
        r = c.fetchone()
        assert list(r.a) == [1, 2, 3]
        assert r.m == [("k", 1)]
        assert r.st == {"x": 1, "y": "z"}
        # The instant is the same; the connector shows it in the session time zone.
        assert r.ts.utcoffset() == datetime.timedelta(hours=-4)
        assert r.ts.astimezone(datetime.timezone.utc) == datetime.datetime(2024, 6, 1, 12, tzinfo=datetime.timezone.utc)
        c.execute("SET spark.sql.session.timeZone = Asia/Tokyo")
        assert c.fetchall()[0].value == "Asia/Tokyo"
        c.execute("SELECT TIMESTAMP'2024-06-01 12:00:00Z' AS ts")
        assert c.fetchone().ts.utcoffset() == datetime.timedelta(hours=9)


def test_decimals_inside_nested_values_are_decimals(url, wh):
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute("SELECT array(CAST(1.25 AS DECIMAL(10,2)), NULL) AS a, "
                  "named_struct('d', CAST(-2.5 AS DECIMAL(5,1)), 'n', 1) AS s, "
                  "map('k', CAST(12345678901234.5678 AS DECIMAL(20,4))) AS m")
        r = c.fetchone()
        assert list(r.a) == [decimal.Decimal("1.25"), None]
        assert r.s == {"d": decimal.Decimal("-2.5"), "n": 1}
        assert r.m == [("k", decimal.Decimal("12345678901234.5678"))]


def test_fetch_variants_and_paging(url, wh):
    with connect(url, wh) as conn, conn.cursor(arraysize=1000) as c:
        c.execute("SELECT id FROM range(5000) ORDER BY id")
        assert c.fetchone().id == 0
        assert [r.id for r in c.fetchmany(3)] == [1, 2, 3]
        rest = c.fetchall()
        assert len(rest) == 4996 and rest[-1].id == 4999
        c.execute("SELECT id, id * 2 AS twice FROM range(2500)")
        t = c.fetchall_arrow()
        assert t.num_rows == 2500 and t.column_names == ["id", "twice"]
        c.execute("SELECT * FROM range(100000)")
        assert len(c.fetchall()) == 100000


def test_named_parameters(url, wh):
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute("SELECT :x + 1 AS y, :s AS s, :d AS d",
                  {"x": 41, "s": "hé", "d": decimal.Decimal("1.25")})
        r = c.fetchone()
        assert (r.y, r.s, r.d) == (42, "hé", decimal.Decimal("1.25"))


def test_positional_parameters(url, w, wh):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute("SELECT ? + 1 AS y, ? AS s, ? AS d, ? AS day",
                  [41, "it's", decimal.Decimal("1.25"), datetime.date(2024, 2, 29)])
        r = c.fetchone()
        assert (r.y, r.s, r.d, r.day) == (42, "it's", decimal.Decimal("1.25"), datetime.date(2024, 2, 29))
        c.execute(f"CREATE TABLE {cat}.default.pos (id INT, name STRING)")
        c.execute(f"INSERT INTO {cat}.default.pos VALUES (?, ?), (?, ?)", [1, "a", 2, "b"])
        c.execute(f"SELECT name FROM {cat}.default.pos WHERE id = ?", [2])
        assert [x.name for x in c.fetchall()] == ["b"]
        with pytest.raises(sql.exc.ServerOperationError, match="INVALID_QUERY_MIXED_QUERY_PARAMETERS"):
            c.execute("SELECT ?, :x", [1])


def test_metadata_cursors_see_unity_catalog(url, w, wh):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    run_rest(url, wh, f"CREATE TABLE {cat}.default.t AS SELECT 1 AS id, 'x' AS s")
    with connect(url, wh) as conn, conn.cursor() as c:
        c.catalogs()
        assert cat in [r.TABLE_CAT for r in c.fetchall()]
        c.schemas(catalog_name=cat)
        assert ("default", cat) in [(r.TABLE_SCHEM, r.TABLE_CATALOG) for r in c.fetchall()]
        c.tables(catalog_name=cat, schema_name="default")
        rows = c.fetchall()
        assert [(r.TABLE_NAME, r.TABLE_TYPE) for r in rows] == [("t", "TABLE")]
        c.columns(catalog_name=cat, schema_name="default", table_name="t")
        cols = c.fetchall()
        assert [(r.COLUMN_NAME, r.TYPE_NAME, r.DATA_TYPE) for r in cols] == [("id", "INT", 4), ("s", "STRING", 12)]
        c.execute(f"SELECT id, s FROM {cat}.default.t")
        assert [tuple(r) for r in c.fetchall()] == [(1, "x")]


def test_initial_namespace_and_use(url, w, wh):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    w.schemas.create(name="other", catalog_name=cat)
    run_rest(url, wh, f"CREATE TABLE {cat}.other.t2 AS SELECT 5 AS v")
    with connect(url, wh, catalog=cat, schema="default") as conn, conn.cursor() as c:
        c.execute("SELECT current_catalog() AS c, current_schema() AS s")
        assert tuple(c.fetchone()) == (cat, "default")
        c.execute("USE SCHEMA other")
        c.execute("SELECT v FROM t2")
        assert c.fetchone().v == 5
        c.execute("SELECT current_schema() AS s")
        assert c.fetchone().s == "other"


def test_errors_and_cancel(url, wh):
    with connect(url, wh) as conn, conn.cursor() as c:
        with pytest.raises(sql.exc.ServerOperationError, match="TABLE_OR_VIEW_NOT_FOUND|NO_SUCH_CATALOG"):
            c.execute("SELECT * FROM nope_catalog.nope.nope")
        c.execute("SELECT 1")
        c.fetchall()
        before = c.active_command_id
        t0 = time.time()

        def cancel_when_started():
            while c.active_command_id is before or c.active_command_id is None:
                time.sleep(0.02)
            c.cancel()

        th = threading.Thread(target=cancel_when_started)
        th.start()
        with pytest.raises(sql.exc.Error):
            c.execute("SELECT count(*) FROM range(100000000) a CROSS JOIN range(100000) b")
        th.join()
        assert time.time() - t0 < 30
        # The session is still usable and the engine is free again.
        c.execute("SELECT 2 AS two")
        assert c.fetchone().two == 2


def test_statements_are_in_query_history(url, wh):
    marker = unique("q")
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute(f"SELECT '{marker}' AS m")
        c.fetchall()
    res = requests.get(f"{url}/api/2.0/sql/history/queries", params={"max_results": 100}).json()["res"]
    hit = [q for q in res if marker in q["query_text"]]
    assert hit and hit[0]["status"] == "FINISHED" and hit[0]["warehouse_id"] == wh
    assert hit[0]["client_application"].startswith("PyDatabricksSqlConnector")


def test_unknown_warehouse_is_refused(url):
    with pytest.raises(sql.exc.Error):
        connect(url, "nope0000000000000")
    r = requests.post(f"{url}/sql/1.0/warehouses/nope0000000000000", data=b"",
                      headers={"Content-Type": "application/x-thrift"})
    assert r.status_code == 404 and r.json()["error_code"] == "RESOURCE_DOES_NOT_EXIST"


def test_sqlalchemy_engine_reflection_and_pandas(url, w, wh):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    run_rest(url, wh, f"CREATE TABLE {cat}.default.people AS SELECT 1 AS id, 'ada' AS name")
    path = f"/sql/1.0/warehouses/{wh}"
    engine = create_engine(f"databricks://token:dev@127.0.0.1?http_path={path}&catalog={cat}&schema=default",
                           connect_args={"_connection_uri": url + path, "enable_telemetry": False})
    with engine.connect() as cn:
        assert cn.execute(text("SELECT 1 AS one")).scalar() == 1
        ins = inspect(cn)
        assert "people" in ins.get_table_names(schema="default")
        assert [c["name"] for c in ins.get_columns("people", schema="default")] == ["id", "name"]
        df = pd.read_sql("SELECT id, name FROM people", cn)
        assert df.to_dict("records") == [{"id": 1, "name": "ada"}]
    engine.dispose()


def test_information_schema_through_thrift_and_the_statement_api(url, w, wh):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    run_rest(url, wh, f"CREATE TABLE {cat}.default.people (id BIGINT NOT NULL, name STRING COMMENT 'who')")
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute("SELECT table_schema, table_name, table_type FROM system.information_schema.tables "
                  "WHERE table_catalog = ?", [cat])
        assert [tuple(r) for r in c.fetchall()] == [("default", "people", "MANAGED")]
        c.execute(f"SELECT column_name, data_type, is_nullable, comment FROM {cat}.information_schema.columns "
                  "WHERE table_name = 'people' ORDER BY ordinal_position")
        assert [tuple(r) for r in c.fetchall()] == [("id", "BIGINT", "NO", None), ("name", "STRING", "YES", "who")]
        c.execute(f"SELECT * FROM {cat}.information_schema.row_filters")
        assert c.fetchall() == [] and [d[0] for d in c.description][:3] == ["table_catalog", "table_schema",
                                                                          "table_name"]
    r = w.statement_execution.execute_statement(
        warehouse_id=wh, statement=f"SELECT schema_name FROM {cat}.information_schema.schemata ORDER BY 1",
        wait_timeout="30s")
    assert r.result.data_array == [["default"], ["information_schema"]]
    assert [c.name for c in r.manifest.schema.columns] == ["schema_name"]
