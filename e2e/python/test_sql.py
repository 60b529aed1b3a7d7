"""The Statement Execution API through the real databricks-sdk: sync and async execution, cancel, all three
result formats read by real parsers, chunk paging, query history, and 50 concurrent clients."""
import csv
import io
import json
import time
from concurrent.futures import ThreadPoolExecutor

import pyarrow as pa
import pytest
import requests
from databricks.sdk.errors import NotFound
from databricks.sdk.service.catalog import ColumnInfo, DataSourceFormat, TableType
from databricks.sdk.service.sql import (
    Disposition,
    ExecuteStatementRequestOnWaitTimeout,
    Format,
    QueryFilter,
    QueryStatus,
    StatementParameterListItem,
    StatementState,
)

from conftest import unique

TERMINAL = {StatementState.SUCCEEDED, StatementState.FAILED, StatementState.CANCELED, StatementState.CLOSED}


@pytest.fixture
def wh(w):
    return w.warehouses.create(name=unique("wh"), cluster_size="Small").id


def poll(w, statement_id, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        r = w.statement_execution.get_statement(statement_id)
        if r.status.state in TERMINAL:
            return r
        time.sleep(0.05)
    raise AssertionError(f"statement {statement_id} did not finish")


def test_quickstart_from_the_readme(w, wh):
    cat = unique("sales")
    w.catalogs.create(name=cat)
    w.schemas.create(name="store", catalog_name=cat)
    w.tables.create(
        name="orders",
        catalog_name=cat,
        schema_name="store",
        table_type=TableType.MANAGED,
        data_source_format=DataSourceFormat.DELTA,
        storage_location=f"/data/{cat}/store/orders",
        columns=[
            ColumnInfo(name="id", type_text="BIGINT"),
            ColumnInfo(name="customer", type_text="STRING"),
            ColumnInfo(name="amount", type_text="DECIMAL(10,2)"),
        ],
    )
    ins = w.statement_execution.execute_statement(
        warehouse_id=wh, statement=f"INSERT INTO {cat}.store.orders VALUES (1, 'Ana', 459.90)"
    )
    assert ins.status.state == StatementState.SUCCEEDED, ins.status
    result = w.statement_execution.execute_statement(
        warehouse_id=wh, statement=f"SELECT customer, amount FROM {cat}.store.orders"
    )
    assert result.result.data_array == [["Ana", "459.90"]]
    cols = result.manifest.schema.columns
    assert [(c.name, c.type_name.value, c.type_text) for c in cols] == [
        ("customer", "STRING", "STRING"),
        ("amount", "DECIMAL", "DECIMAL(10,2)"),
    ]
    assert (cols[1].type_precision, cols[1].type_scale) == (10, 2)


def test_sql_created_catalog_and_default_namespace(w, wh):
    cat = unique("sqlcat")
    for stmt in [
        f"CREATE CATALOG {cat}",
        f"CREATE SCHEMA {cat}.s1",
        f"CREATE TABLE {cat}.s1.t (id BIGINT, name STRING)",
        f"INSERT INTO {cat}.s1.t VALUES (1, 'a'), (2, 'b')",
    ]:
        r = w.statement_execution.execute_statement(warehouse_id=wh, statement=stmt)
        assert r.status.state == StatementState.SUCCEEDED, (stmt, r.status)
    r = w.statement_execution.execute_statement(
        warehouse_id=wh, statement="SELECT name FROM t ORDER BY id", catalog=cat, schema="s1"
    )
    assert r.result.data_array == [["a"], ["b"]]


def test_session_functions_name_the_caller_and_schema(w, wh):
    me = w.current_user.me().user_name
    r = w.statement_execution.execute_statement(
        warehouse_id=wh, statement="SELECT current_user(), current_database(), current_catalog()"
    )
    assert r.status.state == StatementState.SUCCEEDED, r.status
    assert [c.name for c in r.manifest.schema.columns] == ["current_user()", "current_database()", "current_catalog()"]
    assert r.result.data_array == [[me, "default", "main"]]


def test_ddl_names_follow_unity_catalog_rules(w, wh):
    cat = unique("namecat")
    for stmt in [f"CREATE CATALOG {cat}", f"CREATE SCHEMA {cat}.s1"]:
        r = w.statement_execution.execute_statement(warehouse_id=wh, statement=stmt)
        assert r.status.state == StatementState.SUCCEEDED, (stmt, r.status)
    for stmt in [f"CREATE TABLE {cat}.s1.`a b.c` (a INT)", f"CREATE VIEW {cat}.s1.`v;1` AS SELECT 1"]:
        r = w.statement_execution.execute_statement(warehouse_id=wh, statement=stmt)
        assert r.status.state == StatementState.FAILED, stmt
        assert "INVALID_PARAMETER_VALUE" in r.status.error.message
    # Nothing was created: the schema lists no table.
    assert list(w.tables.list(catalog_name=cat, schema_name="s1")) == []

    missing = w.statement_execution.execute_statement(
        warehouse_id=wh, statement="SELECT * FROM no_such_catalog_xyz.s.t"
    )
    assert missing.status.state == StatementState.FAILED
    assert "NO_SUCH_CATALOG_EXCEPTION" in missing.status.error.message
    assert missing.status.sql_state == "42704"
    assert "__ml" not in (missing.status.error.message or "")


def test_values_are_strings_and_failures_are_http_200(w, wh):
    r = w.statement_execution.execute_statement(
        warehouse_id=wh,
        statement="SELECT 1 AS one, 'a' AS s, CAST(2.50 AS DECIMAL(10,2)) AS d, DATE'2024-01-04' AS dt, "
        "true AS b, CAST(NULL AS INT) AS n",
    )
    assert r.result.data_array == [["1", "a", "2.50", "2024-01-04", "true", None]]
    assert [c.type_name.value for c in r.manifest.schema.columns] == ["INT", "STRING", "DECIMAL", "DATE", "BOOLEAN", "INT"]
    assert r.manifest.total_row_count == 1 and r.manifest.total_chunk_count == 1

    bad = w.statement_execution.execute_statement(warehouse_id=wh, statement="SELECT * FROM no_such_table_xyz")
    assert bad.status.state == StatementState.FAILED
    assert bad.status.error.message and bad.status.error.error_code
    assert bad.status.sql_state


def test_named_parameters_are_bound(w, wh):
    r = w.statement_execution.execute_statement(
        warehouse_id=wh,
        statement="SELECT :name AS n, :d AS d, :x + 1 AS x",
        parameters=[
            StatementParameterListItem(name="name", value="O'Brien; DROP TABLE x"),
            StatementParameterListItem(name="d", value="2020-01-01", type="DATE"),
            StatementParameterListItem(name="x", value="41", type="INT"),
        ],
    )
    assert r.status.state == StatementState.SUCCEEDED, r.status
    assert r.result.data_array == [["O'Brien; DROP TABLE x", "2020-01-01", "42"]]


def test_zero_rows_and_row_limit(w, wh):
    r = w.statement_execution.execute_statement(warehouse_id=wh, statement="SELECT 1 AS x WHERE 1 = 0")
    assert r.status.state == StatementState.SUCCEEDED
    assert r.manifest.total_chunk_count == 0 and r.manifest.total_row_count == 0
    assert r.result.data_array is None

    r = w.statement_execution.execute_statement(
        warehouse_id=wh, statement="SELECT * FROM range(100) AS t(id)", row_limit=5
    )
    assert [row[0] for row in r.result.data_array] == ["0", "1", "2", "3", "4"]
    assert r.manifest.truncated is True


def test_async_execution_then_polling(w, wh):
    r = w.statement_execution.execute_statement(
        warehouse_id=wh, statement="SELECT count(*) AS c FROM range(50000000)", wait_timeout="0s"
    )
    assert r.status.state in (StatementState.PENDING, StatementState.RUNNING)
    done = poll(w, r.statement_id)
    assert done.status.state == StatementState.SUCCEEDED
    assert done.result.data_array == [["50000000"]]


def test_cancel_interrupts_a_long_query(w, wh):
    r = w.statement_execution.execute_statement(
        warehouse_id=wh,
        statement="SELECT count(*) FROM range(3000000000) a CROSS JOIN range(10) b",
        wait_timeout="0s",
    )
    for _ in range(400):
        if w.statement_execution.get_statement(r.statement_id).status.state == StatementState.RUNNING:
            break
        time.sleep(0.025)
    w.statement_execution.cancel_execution(r.statement_id)
    assert poll(w, r.statement_id).status.state == StatementState.CANCELED
    # The engine is free again.
    ok = w.statement_execution.execute_statement(warehouse_id=wh, statement="SELECT 2 AS two")
    assert ok.result.data_array == [["2"]]


def test_on_wait_timeout_cancel(w, wh):
    r = w.statement_execution.execute_statement(
        warehouse_id=wh,
        # Minutes of work on any machine (a plain count of the cross join takes DuckDB about 5 s on a quiet one).
        statement="SELECT sum(a.id * b.id) FROM range(3000000000) a CROSS JOIN range(100) b",
        wait_timeout="5s",
        on_wait_timeout=ExecuteStatementRequestOnWaitTimeout.CANCEL,
    )
    assert r.status.state == StatementState.CANCELED


def test_unknown_statement_is_not_found(w):
    with pytest.raises(NotFound):
        w.statement_execution.get_statement("00000000-0000-0000-0000-000000000000")


def test_external_links_in_three_formats(w, wh):
    query = "SELECT id, id * 0.5 AS half, 'name_' || CAST(id AS STRING) AS s FROM range(5000) AS t(id)"

    arrow = w.statement_execution.execute_statement(
        warehouse_id=wh, statement=query, disposition=Disposition.EXTERNAL_LINKS, format=Format.ARROW_STREAM
    )
    assert arrow.status.state == StatementState.SUCCEEDED, arrow.status
    link = arrow.result.external_links[0]
    assert link.expiration
    # Fetched the way real clients do: no Databricks auth header on the external URL.
    body = requests.get(link.external_link, timeout=30)
    assert body.status_code == 200
    table = pa.ipc.open_stream(body.content).read_all()
    assert table.num_rows == 5000
    assert table.column("id").to_pylist()[4999] == 4999
    assert table.column("s").to_pylist()[7] == "name_7"
    assert len(body.content) == link.byte_count

    c = w.statement_execution.execute_statement(
        warehouse_id=wh, statement=query, disposition=Disposition.EXTERNAL_LINKS, format=Format.CSV
    )
    text = requests.get(c.result.external_links[0].external_link, timeout=30).text
    rows = list(csv.reader(io.StringIO(text)))
    assert rows[0] == ["id", "half", "s"]
    assert rows[1] == ["0", "0.0", "name_0"] and len(rows) == 5001

    j = w.statement_execution.execute_statement(
        warehouse_id=wh, statement=query, disposition=Disposition.EXTERNAL_LINKS, format=Format.JSON_ARRAY
    )
    data = json.loads(requests.get(j.result.external_links[0].external_link, timeout=30).text)
    assert data[3] == ["3", "1.5", "name_3"] and len(data) == 5000


def test_large_arrow_result_in_chunks(w, wh):
    n = 3_000_000
    r = w.statement_execution.execute_statement(
        warehouse_id=wh,
        statement=f"SELECT id, CAST(id AS DOUBLE) AS d FROM range({n}) AS t(id)",
        disposition=Disposition.EXTERNAL_LINKS,
        format=Format.ARROW_STREAM,
        wait_timeout="50s",
    )
    assert r.status.state == StatementState.SUCCEEDED, r.status
    m = r.manifest
    assert m.total_row_count == n and m.total_chunk_count > 1 and len(m.chunks) == m.total_chunk_count
    total, link = 0, r.result.external_links[0]
    seen = 0
    while True:
        t = pa.ipc.open_stream(requests.get(link.external_link, timeout=60).content).read_all()
        assert t.num_rows == link.row_count
        assert t.column("id")[0].as_py() == link.row_offset
        total += t.num_rows
        seen += 1
        if link.next_chunk_index is None:
            break
        link = w.statement_execution.get_statement_result_chunk_n(r.statement_id, link.next_chunk_index).external_links[0]
    assert total == n and seen == m.total_chunk_count


def test_query_history_records_statements(w, wh):
    marker = unique("hist")
    w.statement_execution.execute_statement(warehouse_id=wh, statement=f"SELECT '{marker}' AS m")
    w.statement_execution.execute_statement(warehouse_id=wh, statement="SELECT * FROM no_such_table_hist")
    res = w.query_history.list(filter_by=QueryFilter(warehouse_ids=[wh], statuses=[QueryStatus.FINISHED]))
    texts = [q.query_text for q in res.res]
    assert f"SELECT '{marker}' AS m" in texts
    assert all(q.status == QueryStatus.FINISHED for q in res.res)
    failed = w.query_history.list(filter_by=QueryFilter(warehouse_ids=[wh], statuses=[QueryStatus.FAILED]))
    assert [q.query_text for q in failed.res] == ["SELECT * FROM no_such_table_hist"]
    assert failed.res[0].error_message

    for i in range(4):
        w.statement_execution.execute_statement(warehouse_id=wh, statement=f"SELECT {i}")
    page = w.query_history.list(filter_by=QueryFilter(warehouse_ids=[wh]), max_results=2)
    assert len(page.res) == 2 and page.has_next_page and page.next_page_token
    seen = [q.query_id for q in page.res]
    while page.has_next_page:
        page = w.query_history.list(filter_by=QueryFilter(warehouse_ids=[wh]), max_results=2, page_token=page.next_page_token)
        seen += [q.query_id for q in page.res]
    assert len(seen) == len(set(seen)) == 6


def test_fifty_concurrent_clients(w, wh):
    def one(i):
        r = w.statement_execution.execute_statement(
            warehouse_id=wh, statement=f"SELECT {i} AS i, sum(id) AS s FROM range({1000 + i})"
        )
        assert r.status.state == StatementState.SUCCEEDED, r.status
        return r.result.data_array

    with ThreadPoolExecutor(max_workers=50) as pool:
        results = list(pool.map(one, range(50)))
    for i, rows in enumerate(results):
        n = 1000 + i
        assert rows == [[str(i), str(n * (n - 1) // 2)]]
