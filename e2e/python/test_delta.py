"""EXTERNAL Delta tables: Spark (the engine-spark install's venv, with delta-spark) writes the table, MiniLake
registers it in Unity Catalog and reads it through the Statement API, and sees Spark's next commit at once
(skipped when that install is absent: run `bash packages/engine-spark/install.sh`). MiniLake's own writes
(UPDATE, DELETE, MERGE, INSERT OVERWRITE, OPTIMIZE) are read back by delta-rs (`deltalake`)."""
import json
import os
import subprocess
import tempfile

import pytest
from databricks.sdk.service.catalog import DataSourceFormat, TableType
from databricks.sdk.service.sql import StatementState

from conftest import ROOT, unique

_versions = json.load(open(os.path.join(ROOT, "packages", "engine-spark", "versions.json")))
_install = os.path.join(
    os.environ.get("MINILAKE_CACHE") or os.path.expanduser("~/.cache/minilake"),
    f"spark-{_versions['pyspark']}-delta-{_versions['deltaSpark']}",
)
_python = os.path.join(_install, "venv", "bin", "python")
needs_spark = pytest.mark.skipif(
    not os.path.exists(os.path.join(_install, ".complete")),
    reason="the Spark install is missing: run bash packages/engine-spark/install.sh",
)


def spark_sql(*statements):
    jars = ",".join(os.path.join(_install, "jars", j) for j in sorted(os.listdir(os.path.join(_install, "jars"))))
    script = os.path.join(ROOT, "packages", "delta", "test", "fixtures", "spark_sql.py")
    out = subprocess.run([_python, script, jars, *statements], check=True, capture_output=True, timeout=240, text=True)
    # One JSON line of rows per statement (after whatever Spark logged to stdout first).
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("[")][-len(statements) :]


@needs_spark
def test_spark_writes_minilake_reads(w):
    wh = w.warehouses.create(name=unique("wh"), cluster_size="Small").id
    cat = unique("dc")
    w.catalogs.create(name=cat)
    with tempfile.TemporaryDirectory() as ext:
        loc = os.path.join(ext, "events")
        spark_sql(
            f"CREATE TABLE delta.`{loc}` (id BIGINT, kind STRING, day DATE) USING DELTA PARTITIONED BY (day)",
            f"INSERT INTO delta.`{loc}` VALUES (1, 'click', DATE'2024-01-01'), (2, 'view', DATE'2024-01-02')",
        )
        t = w.tables.create(
            name="events",
            catalog_name=cat,
            schema_name="default",
            table_type=TableType.EXTERNAL,
            data_source_format=DataSourceFormat.DELTA,
            storage_location=loc,
        )
        assert [(c.name, c.type_name.value) for c in t.columns] == [("id", "LONG"), ("kind", "STRING"), ("day", "DATE")]

        def q(stmt):
            r = w.statement_execution.execute_statement(warehouse_id=wh, statement=stmt, wait_timeout="30s")
            assert r.status.state == StatementState.SUCCEEDED, r.status
            return r.result.data_array

        assert q(f"SELECT id, kind, day FROM {cat}.default.events ORDER BY id") == [
            ["1", "click", "2024-01-01"],
            ["2", "view", "2024-01-02"],
        ]
        spark_sql(f"INSERT INTO delta.`{loc}` VALUES (3, 'buy', DATE'2024-01-03')")
        assert q(f"SELECT count(*), max(day) FROM {cat}.default.events") == [["3", "2024-01-03"]]


def test_deletion_vectors_history_time_travel_and_paths(w):
    wh = w.warehouses.create(name=unique("wh"), cluster_size="Small").id
    cat = unique("dc")
    w.catalogs.create(name=cat)
    with tempfile.TemporaryDirectory() as ext:
        loc = os.path.join(ext, "dv")
        spark_sql(
            f"CREATE TABLE delta.`{loc}` (id BIGINT) USING DELTA TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')",
            f"INSERT INTO delta.`{loc}` SELECT id FROM range(10)",
            f"DELETE FROM delta.`{loc}` WHERE id IN (2, 5)",
        )
        # Version 1 (the INSERT) was committed on 2024-06-01: time travel by timestamp finds it.
        v1 = os.path.join(loc, "_delta_log", "00000000000000000001.json")
        os.utime(os.path.join(loc, "_delta_log", "00000000000000000000.json"), (1717100000, 1717100000))
        os.utime(v1, (1717200000, 1717200000))
        w.tables.create(
            name="dv",
            catalog_name=cat,
            schema_name="default",
            table_type=TableType.EXTERNAL,
            data_source_format=DataSourceFormat.DELTA,
            storage_location=loc,
        )

        def run(stmt):
            return w.statement_execution.execute_statement(warehouse_id=wh, statement=stmt, wait_timeout="30s")

        def q(stmt):
            r = run(stmt)
            assert r.status.state == StatementState.SUCCEEDED, r.status
            return r.result.data_array

        assert q(f"SELECT count(*), sum(id) FROM {cat}.default.dv") == [["8", "38"]]
        assert q(f"SELECT count(*) FROM {cat}.default.dv VERSION AS OF 1") == [["10"]]
        assert q(f"SELECT count(*) FROM {cat}.default.dv TIMESTAMP AS OF '2024-06-01 12:00:00'") == [["10"]]
        assert q(f"SELECT count(*) FROM {cat}.default.dv@v1") == [["10"]]
        r = run(f"SELECT * FROM {cat}.default.dv TIMESTAMP AS OF '2020-01-01'")
        assert r.status.state == StatementState.FAILED
        assert "DELTA_TIMESTAMP_EARLIER_THAN_COMMIT_RETENTION" in r.status.error.message
        h = run(f"DESCRIBE HISTORY {cat}.default.dv")
        cols = [c.name for c in h.manifest.schema.columns]
        assert cols[:5] == ["version", "timestamp", "userId", "userName", "operation"]
        assert [(row[0], row[4]) for row in h.result.data_array] == [("2", "DELETE"), ("1", "WRITE"), ("0", "CREATE TABLE")]
        d = run(f"DESCRIBE DETAIL {cat}.default.dv")
        detail = dict(zip([c.name for c in d.manifest.schema.columns], d.result.data_array[0]))
        assert detail["format"] == "delta" and detail["numFiles"] == "1"
        assert "deletionVectors" in json.loads(detail["tableFeatures"])
        assert q(f"SELECT count(*) FROM delta.`{loc}`") == [["8"]]


def test_minilake_dml_read_by_deltalake(w):
    import deltalake

    wh = w.warehouses.create(name=unique("wh"), cluster_size="Small").id
    cat = unique("dm")
    w.catalogs.create(name=cat)

    def q(stmt):
        r = w.statement_execution.execute_statement(warehouse_id=wh, statement=stmt, wait_timeout="30s")
        assert r.status.state == StatementState.SUCCEEDED, r.status
        return r

    with tempfile.TemporaryDirectory() as ext:
        loc = os.path.join(ext, "ev")
        t = f"{cat}.default.ev"
        q(f"CREATE TABLE {t} (id BIGINT, name STRING, day DATE) USING DELTA PARTITIONED BY (day) LOCATION '{loc}'")
        q(f"INSERT INTO {t} VALUES (1, 'a', DATE'2024-01-01'), (2, 'b', DATE'2024-01-02'), (3, 'c', DATE'2024-01-02')")
        r = q(f"UPDATE {t} SET name = 'B' WHERE id = 2")
        assert [c.name for c in r.manifest.schema.columns] == ["num_affected_rows"]
        assert r.result.data_array == [["1"]]
        assert q(f"DELETE FROM {t} WHERE id = 1").result.data_array == [["1"]]
        r = q(
            f"MERGE INTO {t} t USING (SELECT 3 AS id, 'C' AS name, DATE'2024-01-02' AS day UNION ALL "
            "SELECT 4, 'd', DATE'2024-01-03') s ON t.id = s.id WHEN MATCHED THEN UPDATE SET * WHEN NOT MATCHED THEN INSERT *"
        )
        assert [c.name for c in r.manifest.schema.columns] == [
            "num_affected_rows",
            "num_updated_rows",
            "num_deleted_rows",
            "num_inserted_rows",
        ]
        assert r.result.data_array == [["2", "1", "0", "1"]]
        q(f"INSERT INTO {t} VALUES (5, 'e', DATE'2024-01-03')")
        # Two small files in partition 2024-01-03: OPTIMIZE compacts them (the others hold one file each).
        q(f"OPTIMIZE {t}")
        dt = deltalake.DeltaTable(loc)
        assert dt.version() == 6
        d = dt.to_pyarrow_table().to_pydict()
        assert sorted(zip(d["id"], d["name"])) == [(2, "B"), (3, "C"), (4, "d"), (5, "e")]
        ops = [h["operation"] for h in sorted(dt.history(), key=lambda h: h["version"])]
        assert ops == ["CREATE TABLE", "WRITE", "UPDATE", "DELETE", "MERGE", "WRITE", "OPTIMIZE"]
        d1 = deltalake.DeltaTable(loc, version=1).to_pyarrow_table().to_pydict()
        assert sorted(d1["name"]) == ["a", "b", "c"]
        q(f"INSERT OVERWRITE {t} PARTITION (day = '2024-01-03') SELECT 40, 'D'")
        d = deltalake.DeltaTable(loc).to_pyarrow_table().to_pydict()
        assert sorted(zip(d["id"], d["name"])) == [(2, "B"), (3, "C"), (40, "D")]


def test_minilake_deletion_vectors_read_by_deltalake_sql_and_spark(w):
    """UPDATE / DELETE / MERGE on a table with deletion vectors write DVs (files stay, rows are marked);
    deltalake's SQL engine (QueryBuilder) and Spark must see the same live rows, before and after OPTIMIZE
    (which applies the DVs and removes the DV'd files)."""
    import pyarrow
    from deltalake import DeltaTable, QueryBuilder

    wh = w.warehouses.create(name=unique("wh"), cluster_size="Small").id
    cat = unique("dv")
    w.catalogs.create(name=cat)

    def q(stmt):
        r = w.statement_execution.execute_statement(warehouse_id=wh, statement=stmt, wait_timeout="30s")
        assert r.status.state == StatementState.SUCCEEDED, r.status
        return r.result.data_array if r.result else None

    def by_deltalake(loc):
        dt = DeltaTable(loc)
        rows = QueryBuilder().register("t", dt).execute("SELECT id, name FROM t ORDER BY id").read_all()
        d = pyarrow.table(rows).to_pydict()
        return [[str(i), n] for i, n in zip(d["id"], d["name"])]

    with tempfile.TemporaryDirectory() as ext:
        loc = os.path.join(ext, "dv")
        t = f"{cat}.default.dv"
        q(
            f"CREATE TABLE {t} (id BIGINT, name STRING) USING DELTA LOCATION '{loc}' "
            "TBLPROPERTIES ('delta.enableDeletionVectors' = 'true')"
        )
        q(f"INSERT INTO {t} SELECT id, 'n' || id FROM range(0, 50)")
        q(f"INSERT INTO {t} SELECT id, 'n' || id FROM range(50, 100)")
        assert q(f"UPDATE {t} SET name = 'u' WHERE id IN (3, 60)") == [["2"]]
        assert q(f"DELETE FROM {t} WHERE id % 10 = 7") == [["10"]]
        assert q(
            f"MERGE INTO {t} AS t USING (SELECT 4 AS id, 'm' AS name UNION ALL SELECT 5, 'gone' "
            "UNION ALL SELECT 200, 'new') AS s ON t.id = s.id "
            "WHEN MATCHED AND s.name = 'gone' THEN DELETE WHEN MATCHED THEN UPDATE SET name = s.name "
            "WHEN NOT MATCHED THEN INSERT *"
        ) == [["3", "1", "1", "1"]]
        adds = [
            json.loads(line)["add"]
            for v in sorted(os.listdir(os.path.join(loc, "_delta_log")))
            if v.endswith(".json")
            for line in open(os.path.join(loc, "_delta_log", v))
            if '"add"' in line
        ]
        assert any(a.get("deletionVector") for a in adds), "the DML should have written deletion vectors"
        expected = q(f"SELECT id, name FROM {t} ORDER BY id")
        assert len(expected) == 100 - 10 - 1 + 1
        assert ["3", "u"] in expected and ["4", "m"] in expected and ["200", "new"] in expected
        assert ["5", "n5"] not in expected and ["17", "n17"] not in expected
        assert by_deltalake(loc) == expected
        if os.path.exists(os.path.join(_install, ".complete")):
            [spark_rows] = spark_sql(f"SELECT id, name FROM delta.`{loc}` ORDER BY id")
            assert spark_rows == expected

        # OPTIMIZE applies the deletion vectors: the same rows, and no live file keeps a DV.
        q(f"OPTIMIZE {t}")
        dt = DeltaTable(loc)
        assert [h["operation"] for h in dt.history(1)] == ["OPTIMIZE"]
        files = pyarrow.table(dt.get_add_actions(flatten=True)).to_pydict()
        dv_columns = [k for k in files if k.startswith("deletionVector")]
        assert all(v is None for k in dv_columns for v in files[k]), "OPTIMIZE should leave no deletion vector"
        assert by_deltalake(loc) == expected
        assert q(f"SELECT id, name FROM {t} ORDER BY id") == expected
        if os.path.exists(os.path.join(_install, ".complete")):
            [spark_rows] = spark_sql(f"SELECT id, name FROM delta.`{loc}` ORDER BY id")
            assert spark_rows == expected
