"""What a Databricks Connect user runs, in one of the ways in, with the client under test (run by its own
venv's python, never the suite's: Databricks Connect must not see Apache pyspark). Prints one JSON line per
step: {"step", "ok", "value" | "error"}. Usage: dbc_client.py WAY SCHEMA [quick]; the environment names the
server. `quick` runs the steps that prove the way in works end to end (SQL, catalog defaults, a Delta write
read back, a UDF, an error's class), not the whole list again."""
import json
import os
import sys
import time

way, schema = sys.argv[1], sys.argv[2]
quick = len(sys.argv) > 3 and sys.argv[3] == "quick"
env = os.environ
table = f"main.{schema}.t"


def emit(step, ok, **kw):
    print(json.dumps({"step": step, "ok": ok, **kw}, default=str), flush=True)


def session():
    from databricks.connect import DatabricksSession

    b = DatabricksSession.builder
    if way == "sc-cluster":
        return b.remote(f"sc://localhost:{env['SC_PORT']}/;x-databricks-cluster-id={env['CLUSTER_ID']}").getOrCreate()
    if way == "sc-plain":
        return b.remote(f"sc://localhost:{env['SC_PORT']}").getOrCreate()
    if way == "spark-remote":  # SPARK_REMOTE in the environment wins over everything else
        return b.getOrCreate()
    if way == "remote-cluster":
        return b.remote(host=env["HOST"], token="dapi-connect-test", cluster_id=env["CLUSTER_ID"]).getOrCreate()
    if way == "serverless":
        return b.remote(host=env["HOST"], token="dapi-connect-test").serverless().getOrCreate()
    if way in ("env-cluster", "env-serverless"):  # DATABRICKS_* in the environment, plain getOrCreate()
        return b.getOrCreate()
    if way == "profile":
        return b.profile("connect").getOrCreate()
    if way == "sdk-runtime":  # what `from databricks.sdk.runtime import spark` gives a plain python process
        from databricks.sdk.runtime import spark

        return spark
    raise SystemExit(f"unknown way {way}")


QUICK = {"session", "sql", "catalog", "create schema", "saveAsTable", "table", "udf", "error"}


def step(name, f):
    if quick and name not in QUICK:
        return
    t = time.time()
    try:
        emit(name, True, value=f(), s=round(time.time() - t, 2))
    except BaseException as e:  # noqa: BLE001 (every outcome is reported, the test decides)
        emit(name, False, error=f"{type(e).__name__}: {e}"[:2000], errorClass=getattr(e, "getErrorClass", lambda: None)())


spark = None


def connect():
    global spark
    spark = session()
    return spark.version


step("session", connect)
if spark is None:
    sys.exit(1)
step("sql", lambda: spark.sql("SELECT 6 * 7 AS a").collect()[0].a)
step("range", lambda: [r.id for r in spark.range(5).collect()])
step("catalog", lambda: list(spark.sql("SELECT current_catalog(), current_schema()").collect()[0]))
step("use catalog", lambda: spark.sql("USE CATALOG main").collect())
step("create schema", lambda: spark.sql(f"CREATE SCHEMA IF NOT EXISTS main.{schema}").collect())
step(
    "saveAsTable",
    lambda: spark.createDataFrame([(1, "a"), (2, "b")], "id INT, v STRING").write.mode("overwrite").saveAsTable(table),
)
step("table", lambda: sorted(tuple(r) for r in spark.table(table).collect()))
step("insert", lambda: spark.sql(f"INSERT INTO {table} VALUES (3, 'c')").collect())
step("update", lambda: spark.sql(f"UPDATE {table} SET v = 'z' WHERE id = 3").collect())
step("delete", lambda: spark.sql(f"DELETE FROM {table} WHERE id = 1").collect())
step("history", lambda: [r.operation for r in spark.sql(f"DESCRIBE HISTORY {table}").collect()])
step("version as of", lambda: spark.sql(f"SELECT count(*) AS c FROM {table} VERSION AS OF 1").collect()[0].c)
step("warehouse delta table", lambda: sorted(r.x for r in spark.table(env["WAREHOUSE_DELTA"]).collect()))
step("warehouse duckdb table", lambda: spark.table(env["WAREHOUSE_DUCKDB"]).collect())


def udf():
    from pyspark.sql.functions import udf as make

    @make("int")
    def plus1(x):
        return x + 1

    return [r.y for r in spark.range(3).select(plus1("id").alias("y")).collect()]


step("udf", udf)


def delta_table_steps():
    """Delta's Python DeltaTable over Databricks Connect (Delta Connect: Relation/Command extensions the
    server plans), on a table of its own so the steps above keep their table. Each step reads back what it
    did; the last one reads the table's history, which names every operation."""
    from delta.tables import DeltaTable

    name = f"main.{schema}.dt"
    rows = lambda df: sorted(tuple(r) for r in df.collect())  # noqa: E731
    tbl = lambda: DeltaTable.forName(spark, name)  # noqa: E731
    loc = {}

    def create():
        t = (DeltaTable.createIfNotExists(spark).tableName(name).addColumn("id", "INT")
             .addColumn("v", "STRING").property("delta.appendOnly", "false").execute())
        spark.sql(f"INSERT INTO {name} VALUES (1, 'a'), (2, 'b'), (3, 'c'), (4, 'd')").collect()
        return rows(t.toDF())

    def detail():
        d = tbl().detail().collect()[0]
        loc["path"] = d.location
        return [d.format, d.name]

    step("DeltaTable create", create)
    step("DeltaTable detail", detail)
    # The client answers a numpy bool (the first cell of its toPandas()).
    step("DeltaTable isDeltaTable", lambda: [bool(DeltaTable.isDeltaTable(spark, loc.get("path", ""))),
                                               bool(DeltaTable.isDeltaTable(spark, "/tmp/minilake-no-such-delta"))])
    step("DeltaTable forPath", lambda: rows(DeltaTable.forPath(spark, loc["path"]).toDF()))
    step("DeltaTable delete", lambda: [rows(tbl().delete("id = 4")), rows(tbl().toDF())])
    step("DeltaTable update", lambda: [rows(tbl().update("id = 3", {"v": "'z'"})), rows(tbl().toDF())])

    def merge():
        src = spark.createDataFrame([(2, "B"), (5, "e")], "id INT, v STRING")
        m = (tbl().alias("t").merge(src.alias("s"), "t.id = s.id")
             .whenMatchedUpdate(set={"v": "s.v"}).whenNotMatchedInsertAll()
             .whenNotMatchedBySourceDelete("t.id = 1").execute())
        return [m.columns, rows(tbl().toDF())]

    step("DeltaTable merge", merge)
    step("DeltaTable optimize", lambda: [tbl().optimize().executeCompaction().columns,
                                         tbl().optimize().executeZOrderBy("id").count(), rows(tbl().toDF())])
    # Version 1 is the INSERT (0 is the CREATE).
    step("DeltaTable restore", lambda: [rows(tbl().restoreToVersion(1)), rows(tbl().toDF())])
    step("DeltaTable vacuum", lambda: [tbl().vacuum(), rows(tbl().toDF())])
    step("DeltaTable upgradeTableProtocol", lambda: [tbl().upgradeTableProtocol(1, 4),
                                                     tbl().detail().collect()[0].minWriterVersion])
    if hasattr(DeltaTable, "addFeatureSupport"):  # not in 15.4's client
        step("DeltaTable addFeatureSupport", lambda: [tbl().addFeatureSupport("deletionVectors"),
                                                      tbl().detail().collect()[0].minWriterVersion])
    step("DeltaTable clone", lambda: rows(tbl().clone(f"main.{schema}.dt_clone", isShallow=True).toDF()))
    step("DeltaTable history", lambda: [r.operation for r in tbl().history().collect()])


if env.get("DELTA_TABLE") == "1":
    delta_table_steps()
step("show catalogs", lambda: [r.catalog for r in spark.sql("SHOW CATALOGS").collect()])
step("create catalog", lambda: spark.sql(f"CREATE CATALOG IF NOT EXISTS {schema}_cat").collect())
step("use new catalog", lambda: spark.sql(f"CREATE SCHEMA IF NOT EXISTS {schema}_cat.inner").collect())
step("grant", lambda: spark.sql(f"GRANT SELECT ON TABLE {table} TO `someone@example.com`").collect())


def missing():
    spark.sql(f"SELECT * FROM main.{schema}.no_such_table").collect()


step("error", missing)
