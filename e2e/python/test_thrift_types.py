"""Databricks type fidelity through the real databricks-sql-connector (Thrift, Arrow results): ANSI intervals,
the session time zone, VOID, and a table of every Databricks type with the Python values and cursor
description types the connector gives against Databricks."""
import datetime
import decimal
import subprocess
import sys

import pytest
import requests
from databricks import sql


@pytest.fixture
def wh(w):
    from conftest import unique
    return w.warehouses.create(name=unique("wh"), cluster_size="Small").id


def connect(url, wh, **kw):
    path = f"/sql/1.0/warehouses/{wh}"
    host = url.split("//", 1)[1]
    return sql.connect(server_hostname=host, http_path=path, access_token="dev",
                       _connection_uri=url + path, enable_telemetry=False, **kw)


def rest(url, wh, statement, **kw):
    r = requests.post(f"{url}/api/2.0/sql/statements",
                      json={"warehouse_id": wh, "statement": statement, "wait_timeout": "30s", **kw}).json()
    assert r["status"]["state"] == "SUCCEEDED", r
    return r


def test_intervals_are_typed_and_rendered_as_databricks_does(url, wh):
    q = ("SELECT INTERVAL '1-2' YEAR TO MONTH AS ym, INTERVAL '1 02:03:04' DAY TO SECOND AS dt, "
         "INTERVAL 3 DAYS AS d, INTERVAL '10' MINUTE AS m, "
         "DATE'2024-01-31' + INTERVAL 1 DAY AS next_day, DATE'2024-01-31' + INTERVAL '0-1' YEAR TO MONTH AS next_month, "
         "TIMESTAMP'2024-01-02 00:00:00Z' - TIMESTAMP'2024-01-01 01:00:00Z' AS diff")
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute(q)
        assert [d[1] for d in c.description] == ["interval_year_month", "interval_day_time", "interval_day_time",
                                                 "interval_day_time", "date", "date", "interval_day_time"]
        r = c.fetchone()
        # Without intervalTypesAsArrow (the connector does not ask for it) Databricks sends intervals as text.
        assert (r.ym, r.dt, r.d, r.m) == ("1-2", "1 02:03:04.000000000", "3 00:00:00.000000000",
                                          "0 00:10:00.000000000")
        assert (r.next_day, r.next_month) == (datetime.date(2024, 2, 1), datetime.date(2024, 2, 29))
        assert r.diff == "0 23:00:00.000000000"
        t = c.execute(q).fetchall_arrow()
        assert t.column("ym").to_pylist() == ["1-2"]
    cols = rest(url, wh, q)["manifest"]["schema"]["columns"]
    assert [(x["type_name"], x["type_text"]) for x in cols[:4]] == [
        ("INTERVAL", "INTERVAL YEAR TO MONTH"), ("INTERVAL", "INTERVAL DAY TO SECOND"),
        ("INTERVAL", "INTERVAL DAY"), ("INTERVAL", "INTERVAL MINUTE")]


def test_session_time_zone_reads_literals_and_current_timestamp(url, wh):
    ny = {"spark.sql.session.timeZone": "America/New_York"}
    with connect(url, wh, session_configuration=ny) as conn, conn.cursor() as c:
        # A literal without an offset is a wall clock in the session zone; TIMESTAMP_NTZ stays a wall clock.
        c.execute("SELECT TIMESTAMP'2024-06-01 12:00:00' AS ts, CAST('2024-06-01 12:00:00' AS TIMESTAMP_NTZ) AS ntz, "
                  "hour(TIMESTAMP'2024-06-01 12:00:00Z') AS h, current_timestamp() AS now, "
                  "from_utc_timestamp(TIMESTAMP'2024-06-01 12:00:00Z', 'Asia/Seoul') AS seoul")
        r = c.fetchone()
        assert r.ts.astimezone(datetime.timezone.utc) == datetime.datetime(2024, 6, 1, 16, tzinfo=datetime.timezone.utc)
        assert r.ts.utcoffset() == datetime.timedelta(hours=-4)
        assert r.ntz == datetime.datetime(2024, 6, 1, 12) and r.ntz.tzinfo is None
        assert r.h == 8
        assert abs(r.now - datetime.datetime.now(datetime.timezone.utc)) < datetime.timedelta(minutes=5)
        assert r.now.utcoffset() in (datetime.timedelta(hours=-4), datetime.timedelta(hours=-5))
        assert r.seoul.astimezone(datetime.timezone.utc) == datetime.datetime(2024, 6, 1, 21, tzinfo=datetime.timezone.utc)
        c.execute("SET TIME ZONE 'Asia/Tokyo'")
        assert [tuple(x) for x in c.fetchall()] == [("spark.sql.session.timeZone", "Asia/Tokyo")]
        c.execute("SELECT TIMESTAMP'2024-06-01 12:00:00' AS ts, hour(TIMESTAMP'2024-06-01 12:00:00Z') AS h")
        r = c.fetchone()
        assert r.ts.astimezone(datetime.timezone.utc) == datetime.datetime(2024, 6, 1, 3, tzinfo=datetime.timezone.utc)
        assert r.h == 21
        with pytest.raises(sql.exc.ServerOperationError, match="INVALID_CONF_VALUE.TIME_ZONE"):
            c.execute("SET TIME ZONE 'Mars/Olympus'")
    # Another session is in UTC.
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute("SELECT TIMESTAMP'2024-06-01 12:00:00' AS ts")
        assert c.fetchone().ts == datetime.datetime(2024, 6, 1, 12, tzinfo=datetime.timezone.utc)


# Every Databricks type: (select expression, cursor.description type, Python value with Arrow results,
# Python value with column-based results (the connector installed without pyarrow)).
UTC = datetime.timezone.utc
TYPES = [
    ("true", "boolean", True, True),
    ("CAST(1 AS TINYINT)", "tinyint", 1, 1),
    ("CAST(2 AS SMALLINT)", "smallint", 2, 2),
    ("3", "int", 3, 3),
    ("CAST(4 AS BIGINT)", "bigint", 4, 4),
    ("CAST(0.5 AS FLOAT)", "float", 0.5, 0.5),
    ("1.5D", "double", 1.5, 1.5),
    ("CAST(2.50 AS DECIMAL(10,2))", "decimal", decimal.Decimal("2.50"), decimal.Decimal("2.50")),
    ("'a'", "string", "a", "a"),
    ("CAST('ab' AS VARCHAR(5))", "string", "ab", "ab"),
    ("CAST('abc' AS BINARY)", "binary", b"abc", b"abc"),
    ("DATE'2024-01-02'", "date", datetime.date(2024, 1, 2), datetime.date(2024, 1, 2)),
    ("TIMESTAMP'2024-01-02 03:04:05.123456'", "timestamp",
     datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC), datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)),
    ("CAST('2024-01-02 03:04:05' AS TIMESTAMP_NTZ)", "timestamp",
     datetime.datetime(2024, 1, 2, 3, 4, 5), datetime.datetime(2024, 1, 2, 3, 4, 5)),
    ("array(1, 2)", "array", [1, 2], "[1,2]"),
    ("map('k', 1)", "map", [("k", 1)], '{"k":1}'),
    ("named_struct('x', 1, 'y', 'z')", "struct", {"x": 1, "y": "z"}, '{"x":1,"y":"z"}'),
    ("INTERVAL '1-2' YEAR TO MONTH", "interval_year_month", "1-2", "1-2"),
    ("INTERVAL '1 02:03:04' DAY TO SECOND", "interval_day_time", "1 02:03:04.000000000", "1 02:03:04.000000000"),
    ("parse_json('{\"a\":1}')", "variant", '{"a":1}', '{"a":1}'),
    ("NULL", "null", None, None),
]
TABLE_QUERY = "SELECT " + ", ".join(f"{e} AS c{i}" for i, (e, *_rest) in enumerate(TYPES))


def normal(v):
    return list(v) if hasattr(v, "tolist") else v


def test_every_type_with_arrow_results(url, wh):
    with connect(url, wh) as conn, conn.cursor() as c:
        c.execute(TABLE_QUERY)
        assert [d[1] for d in c.description] == [t[1] for t in TYPES]
        assert c.description[7][4:6] == (10, 2)
        row = c.fetchone()
        for (expr, _, want, _), got in zip(TYPES, row):
            assert normal(got) == want, expr
            if isinstance(want, datetime.datetime):
                assert (got.utcoffset() is None) == (want.tzinfo is None), expr


def test_every_type_without_native_arrow_types(url, wh):
    # The connector's own switches: nested values, decimals and timestamps then come as Databricks' text.
    with connect(url, wh, _use_arrow_native_complex_types=False, _use_arrow_native_decimals=False,
                 _use_arrow_native_timestamps=False) as conn, conn.cursor() as c:
        c.execute(TABLE_QUERY)
        row = c.fetchone()
        for (expr, kind, want, text), got in zip(TYPES, row):
            assert got == (text if kind in ("array", "map", "struct") else want), expr


def test_every_type_with_column_based_results(url, wh):
    # Without pyarrow the connector cannot read Arrow and asks for column-based results.
    code = f"""
import sys, json, datetime, decimal
sys.modules["pyarrow"] = None
from databricks import sql
with sql.connect(server_hostname="x", http_path="/sql/1.0/warehouses/{wh}", access_token="dev",
                 _connection_uri="{url}/sql/1.0/warehouses/{wh}", enable_telemetry=False) as conn, conn.cursor() as c:
    c.execute({TABLE_QUERY!r})
    print(repr(([d[1] for d in c.description], tuple(c.fetchone()))))
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    types, row = eval(out.stdout.strip().splitlines()[-1], {"datetime": datetime, "decimal": decimal, "Decimal": decimal.Decimal})
    assert types[:-2] == [t[1] for t in TYPES][:-2]
    # VARIANT has no TTypeId: without the Arrow field metadata it is a string column.
    assert types[-2:] == ["string", "null"]
    assert list(row) == [t[3] for t in TYPES]
