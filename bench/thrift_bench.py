"""The Thrift endpoint through the real databricks-sql-connector, against the same statements through the
Statement Execution API with the real databricks-sdk. Run by bench/scenarios/thrift.mjs with the e2e Python
venv: python bench/thrift_bench.py <server url> <rows> <rounds>; prints one JSON object."""
import json
import statistics
import sys
import time

import pyarrow as pa
import requests
from databricks import sql
from databricks.sdk import WorkspaceClient
from databricks.sdk.service.sql import Disposition, Format

url, rows, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
wh = "dev"
path = f"/sql/1.0/warehouses/{wh}"
query = f"SELECT id, id * 2.5 AS d, concat('name_', id) AS s FROM range({rows})"


def ms(f, n):
    out = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        out.append((time.perf_counter() - t) * 1000)
    return out


def p(xs, q):
    xs = sorted(xs)
    return round(xs[min(len(xs) - 1, int(q * len(xs)))], 3)


res = {}
conn = sql.connect(server_hostname=url.split("//", 1)[1], http_path=path, access_token="dev",
                   _connection_uri=url + path, enable_telemetry=False)
cur = conn.cursor()


def thrift_select1():
    cur.execute("SELECT 1")
    cur.fetchall()


ms(thrift_select1, 20)  # warm-up: the warehouse, the dialect, the connection
lat = ms(thrift_select1, 200)
res["thrift_select1_p50_ms"], res["thrift_select1_p99_ms"] = p(lat, 0.5), p(lat, 0.99)


def thrift_fetch():
    cur.execute(query)
    t = cur.fetchall_arrow()
    assert t.num_rows == rows


def thrift_fetch_rows():
    cur.execute(query)
    assert len(cur.fetchall()) == rows


res["thrift_fetch_arrow_ms"] = round(statistics.median(ms(thrift_fetch, rounds)), 1)
res["thrift_fetch_rows_ms"] = round(statistics.median(ms(thrift_fetch_rows, rounds)), 1)
cur.close()
conn.close()

w = WorkspaceClient(host=url, token="dapi-bench", auth_type="pat")


def api_select1():
    r = w.statement_execution.execute_statement(warehouse_id=wh, statement="SELECT 1", wait_timeout="30s")
    assert r.result.data_array == [["1"]]


ms(api_select1, 20)
lat = ms(api_select1, 200)
res["api_select1_p50_ms"], res["api_select1_p99_ms"] = p(lat, 0.5), p(lat, 0.99)


def api_fetch():
    r = w.statement_execution.execute_statement(warehouse_id=wh, statement=query, wait_timeout="50s",
                                                disposition=Disposition.EXTERNAL_LINKS,
                                                format=Format.ARROW_STREAM)
    n = 0
    for i in range(r.manifest.total_chunk_count or 0):
        chunk = r.result if i == 0 else w.statement_execution.get_statement_result_chunk_n(r.statement_id, i)
        for link in chunk.external_links or []:
            n += pa.ipc.open_stream(requests.get(link.external_link).content).read_all().num_rows
    assert n == rows, n


res["api_fetch_arrow_ms"] = round(statistics.median(ms(api_fetch, rounds)), 1)
print(json.dumps(res))
