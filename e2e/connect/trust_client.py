"""A Databricks Connect user driven step by step (issue 30's second identity): reads a step name per line on
stdin and prints one JSON line per step: {"step", "ok", "value" | "error", "errorClass"}. Steps: `session`
(DatabricksSession.builder.remote(host, token, cluster_id) from HOST, TOKEN, CLUSTER_ID, then one query),
`read` (spark.table(TABLE).collect()), `write` (INSERT INTO TABLE). Run by the client's own venv python."""
import json
import os
import sys

env = os.environ
spark = None


def emit(step, ok, **kw):
    print(json.dumps({"step": step, "ok": ok, **kw}, default=str), flush=True)


def session():
    global spark
    from databricks.connect import DatabricksSession

    spark = DatabricksSession.builder.remote(host=env["HOST"], token=env["TOKEN"],
                                             cluster_id=env["CLUSTER_ID"]).getOrCreate()
    return spark.sql("SELECT 6 * 7 AS a").collect()[0].a


STEPS = {
    "session": session,
    "read": lambda: sorted(r.x for r in spark.table(env["TABLE"]).collect()),
    "write": lambda: spark.sql(f"INSERT INTO {env['TABLE']} VALUES (9)").collect(),
}

for line in sys.stdin:
    name = line.strip()
    if not name:
        continue
    try:
        emit(name, True, value=STEPS[name]())
    except BaseException as e:  # noqa: BLE001 (every outcome is reported, the test decides)
        emit(name, False, error=f"{type(e).__name__}: {e}"[:2000],
             errorClass=getattr(e, "getErrorClass", lambda: None)())
