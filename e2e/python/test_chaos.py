"""Issue 30, crash chaos: a real MiniLake process with persistence on (MINILAKE_PERSIST=1, one data dir kept
across rounds) takes a burst of writes from several clients at once (catalogs, schemas, rows INSERTed through
SQL into a managed Delta table, volume files, DBFS streaming handles, jobs and runs, secrets, workspace
imports) and is killed with SIGKILL at a random (seeded: CHAOS_SEED) moment, a few rounds in a row. After each
restart: the restart succeeds, every write that was answered 2xx before the kill is there (0 acknowledged writes
lost), and the Delta table reads back the same through the SQL API and through deltalake.

Against the real process (not in process like the storms): only a real `kill -9` of a real server tests what
reached the disk. The clients speak raw HTTP (no SDK retries) so an answer is exactly one acknowledgement."""
import base64
import http.client
import os
import random
import shutil
import time

import deltalake
from chaos import Ledger, burst, ok, req, sql
from conftest import Server

SEED = int(os.environ.get("CHAOS_SEED", "30"))
ROUNDS = int(os.environ.get("CHAOS_ROUNDS", "3"))
CLIENTS = 6
ENV = {"MINILAKE_PERSIST": "1", "MINILAKE_MANAGED_FORMAT": "delta"}
ME = "dev@minilake.local"


def writer(url, wh, ledger, rng, tag, stop):
    """One client: a random write after another until the server is gone (or `stop`)."""
    n = 0
    while not stop.is_set():
        n += 1
        key = f"{tag}_{n}"
        kind = rng.choice(["catalog", "schema", "insert", "insert", "file", "dbfs", "job", "run", "secret",
                           "notebook"])
        try:
            if kind == "catalog":
                s, _ = req(url, "POST", "/api/2.1/unity-catalog/catalogs", {"name": f"c_{key}"})
                ledger.saw(s)
                if ok(s):
                    ledger.ack("catalog", f"c_{key}")
            elif kind == "schema":
                s, _ = req(url, "POST", "/api/2.1/unity-catalog/schemas", {"catalog_name": "chaos", "name": f"s_{key}"})
                ledger.saw(s)
                if ok(s):
                    ledger.ack("schema", f"chaos.s_{key}")
            elif kind == "insert":
                value = f"{key}"
                s, b = sql(url, wh, f"INSERT INTO chaos.s.t VALUES ('{value}')")
                ledger.saw(s)
                if ok(s) and b.get("status", {}).get("state") == "SUCCEEDED":
                    ledger.ack("row", value)
            elif kind == "file":
                content = f"file {key}\n".encode() * 50
                s, _ = req(url, "PUT", f"/api/2.0/fs/files/Volumes/chaos/s/v/{key}.txt?overwrite=true", raw=content)
                ledger.saw(s)
                if ok(s):
                    ledger.ack("file", f"/Volumes/chaos/s/v/{key}.txt", content)
            elif kind == "dbfs":
                content = f"dbfs {key}\n".encode() * 50
                s, b = req(url, "POST", "/api/2.0/dbfs/create", {"path": f"/chaos/{key}.txt", "overwrite": True})
                ledger.saw(s)
                if ok(s):
                    h = b["handle"]
                    data = base64.b64encode(content).decode()
                    s2, _ = req(url, "POST", "/api/2.0/dbfs/add-block", {"handle": h, "data": data})
                    s3, _ = req(url, "POST", "/api/2.0/dbfs/close", {"handle": h})
                    ledger.saw(s3)
                    if ok(s2) and ok(s3):
                        ledger.ack("dbfs", f"/chaos/{key}.txt", content)
            elif kind == "job":
                s, b = req(url, "POST", "/api/2.2/jobs/create", {
                    "name": f"j_{key}",
                    "tasks": [{"task_key": "t", "condition_task": {"op": "EQUAL_TO", "left": "1", "right": "1"}}]})
                ledger.saw(s)
                if ok(s):
                    ledger.ack("job", str(b["job_id"]), f"j_{key}")
            elif kind == "run":
                with ledger.lock:
                    jobs = [k for kind_, k, _ in ledger.acked if kind_ == "job"]
                if jobs:
                    s, b = req(url, "POST", "/api/2.2/jobs/run-now", {"job_id": int(rng.choice(jobs))})
                    ledger.saw(s)
                    if ok(s):
                        ledger.ack("run", str(b["run_id"]))
            elif kind == "secret":
                s, _ = req(url, "POST", "/api/2.0/secrets/put", {"scope": "chaos", "key": f"k_{key}",
                                                                 "string_value": "v"})
                ledger.saw(s)
                if ok(s):
                    ledger.ack("secret", f"k_{key}")
            elif kind == "notebook":
                path = f"/Users/{ME}/chaos/n_{key}"
                s, _ = req(url, "POST", "/api/2.0/workspace/import", {
                    "path": path, "format": "SOURCE", "language": "PYTHON",
                    "content": base64.b64encode(f"print('{key}')\n".encode()).decode(), "overwrite": True})
                ledger.saw(s)
                if ok(s):
                    ledger.ack("notebook", path)
        except (OSError, http.client.HTTPException):
            return  # the server died: this client's in-flight write was never acknowledged


def verify(url, wh, ledger):
    """Every acknowledged write is there; answers (kind, key) of the ones missing."""
    missing = []
    secrets = None
    rows = None
    for kind, key, expected in ledger.acked:
        if kind == "catalog":
            s, _ = req(url, "GET", f"/api/2.1/unity-catalog/catalogs/{key}")
            there = ok(s)
        elif kind == "schema":
            s, _ = req(url, "GET", f"/api/2.1/unity-catalog/schemas/{key}")
            there = ok(s)
        elif kind == "row":
            if rows is None:
                s, b = sql(url, wh, "SELECT v FROM chaos.s.t")
                assert b["status"]["state"] == "SUCCEEDED", b
                rows = {r[0] for r in (b.get("result", {}).get("data_array") or [])}
            there = key in rows
        elif kind == "file":
            s, b = req(url, "GET", f"/api/2.0/fs/files{key}")
            there = ok(s) and b == expected
        elif kind == "dbfs":
            s, b = req(url, "GET", f"/api/2.0/dbfs/read?path={key}&length=1000000")
            there = ok(s) and base64.b64decode(b["data"]) == expected
        elif kind == "job":
            s, b = req(url, "GET", f"/api/2.2/jobs/get?job_id={key}")
            there = ok(s) and b["settings"]["name"] == expected
        elif kind == "run":
            s, _ = req(url, "GET", f"/api/2.2/jobs/runs/get?run_id={key}")
            there = ok(s)
        elif kind == "secret":
            if secrets is None:
                s, b = req(url, "GET", "/api/2.0/secrets/list?scope=chaos")
                secrets = {x["key"] for x in b.get("secrets", [])}
            there = key in secrets
        elif kind == "notebook":
            s, _ = req(url, "GET", f"/api/2.0/workspace/get-status?path={key}")
            there = ok(s)
        if not there:
            missing.append((kind, key))
    return missing


def delta_rows(url):
    s, b = req(url, "GET", "/api/2.1/unity-catalog/tables/chaos.s.t")
    assert ok(s), b
    assert b["data_source_format"] == "DELTA", b
    loc = b["storage_location"]
    return set(deltalake.DeltaTable(loc).to_pyarrow_table().to_pydict()["v"])


def test_kill_9_during_write_bursts_loses_no_acknowledged_write():
    rng = random.Random(SEED)
    ledger = Ledger()
    s = Server(env=ENV)
    data_dir = s.data_dir
    figures = []
    try:
        url = s.url
        st, b = req(url, "POST", "/api/2.0/sql/warehouses", {"name": "chaos", "cluster_size": "2X-Small"})
        assert ok(st), b
        wh = b["id"]
        for path, body in [("/api/2.1/unity-catalog/catalogs", {"name": "chaos"}),
                           ("/api/2.1/unity-catalog/schemas", {"catalog_name": "chaos", "name": "s"}),
                           ("/api/2.1/unity-catalog/volumes", {"catalog_name": "chaos", "schema_name": "s",
                                                               "name": "v", "volume_type": "MANAGED"}),
                           ("/api/2.0/secrets/scopes/create", {"scope": "chaos"}),
                           ("/api/2.0/workspace/mkdirs", {"path": f"/Users/{ME}/chaos"})]:
            st, b = req(url, "POST", path, body)
            assert ok(st), (path, b)
        st, b = sql(url, wh, "CREATE TABLE chaos.s.t (v STRING)")
        assert b["status"]["state"] == "SUCCEEDED", b

        for round_ in range(ROUNDS):
            before, delay, _ = burst(writer, (s.url, wh, ledger), ledger, rng, round_, CLIENTS, s.kill9)
            t0 = time.monotonic()
            s = Server(env=ENV, data_dir=data_dir)  # the restart must succeed
            restart = time.monotonic() - t0
            missing = verify(s.url, wh, ledger)
            figures.append(f"round {round_}: killed after {delay:.2f} s, {len(ledger.acked) - before} acknowledged "
                           f"writes, restart {restart:.1f} s, {len(missing)} lost")
            assert missing == [], f"acknowledged before kill -9 (round {round_}) but gone after restart: {missing}"
            # The Delta table reads the same through SQL and through deltalake.
            st, b = sql(s.url, wh, "SELECT v FROM chaos.s.t")
            assert b["status"]["state"] == "SUCCEEDED", b
            via_sql = {r[0] for r in (b.get("result", {}).get("data_array") or [])}
            assert delta_rows(s.url) == via_sql
            # And still takes writes.
            st, b = sql(s.url, wh, f"INSERT INTO chaos.s.t VALUES ('after_{round_}')")
            assert b["status"]["state"] == "SUCCEEDED", b
            ledger.ack("row", f"after_{round_}")
        print("\n".join(figures + [f"answers: {dict(sorted(ledger.answers.items()))}"]))
        assert not any(st >= 500 for st in ledger.answers), ledger.answers
        kinds = {k for k, _, _ in ledger.acked}
        assert {"catalog", "row", "file", "dbfs", "job", "secret", "notebook"} <= kinds, kinds
    finally:
        if s.proc.poll() is None:
            s.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
