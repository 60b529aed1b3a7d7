#!/bin/bash
# Connect issue: Databricks Connect (databricks-connect 16.1.x, installed once into a cache venv by this check)
# against MiniLake, both ways in: plain Spark Connect on MINILAKE_SPARK_CONNECT_PORT, and Databricks' own
# remote(host, token, cluster_id) over TLS (MINILAKE_TLS=1, the CA file MiniLake writes). Each writes a table
# with saveAsTable that the SQL warehouse reads back, runs Databricks SQL (USE CATALOG) on Spark, and sees an
# error's class. Then /api/1.2 command execution on the cluster. Prints the round trips last.
set -u; . /work/shared/checks/lib.sh
venv=${CHECKS_CONNECT_VENV:-$HOME/.cache/minilake-checks/connect-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import databricks.connect, pyarrow, pandas' 2>/dev/null; then
  python3 -m venv "$venv" && "$venv/bin/pip" install -q 'databricks-connect==16.1.*' 'pyarrow<18' 'pandas<2.3' >/dev/null || { echo "FAIL: cannot install databricks-connect 16.1"; exit 1; }
fi
client() { # MODE TABLE -> prints "ok <ms>" or the error
  "$venv/bin/python" - "$@" <<'PY' 2>&1 | tail -1
import os, sys, time
from databricks.connect import DatabricksSession
mode, table = sys.argv[1], sys.argv[2]
t0 = time.time()
if mode == "sc":
    b = DatabricksSession.builder.remote(f"sc://localhost:{os.environ['CONNECT_PORT']}/;x-databricks-cluster-id={os.environ['CLUSTER']}")
else:
    b = DatabricksSession.builder.remote(host=os.environ["HOST"], token="dev", cluster_id=os.environ["CLUSTER"])
spark = b.getOrCreate()
assert spark.sql("SELECT 6 * 7 AS a").collect()[0].a == 42
spark.sql("USE CATALOG main")
spark.sql("CREATE SCHEMA IF NOT EXISTS connect_check")
spark.createDataFrame([(1, "a"), (2, "b")], "id INT, v STRING").write.mode("overwrite").saveAsTable(table)
assert spark.table(table).count() == 2
try:
    spark.sql("SELECT * FROM main.connect_check.no_such_table").collect()
    raise SystemExit("no error for a missing table")
except Exception as e:
    if "TABLE_OR_VIEW_NOT_FOUND" not in str(e):
        raise SystemExit(f"the error lost its class: {type(e).__name__}: {str(e)[:200]}")
print(f"ok {int((time.time() - t0) * 1000)}")
PY
}
sql_sum() { ml_call POST /api/2.0/sql/statements "{\"warehouse_id\":\"dev\",\"statement\":\"SELECT sum(id) FROM $1\",\"wait_timeout\":\"50s\"}" | sed 's/^[0-9]* //' | json 'j.result&&j.result.data_array&&j.result.data_array[0][0]'; }
new_cluster() { ml_call POST /api/2.1/clusters/create '{"cluster_name":"connect-check","spark_version":"16.4.x-scala2.12","node_type_id":"i3.xlarge","num_workers":0}' | sed 's/^[0-9]* //' | json 'j.cluster_id'; }
# 1. plain Spark Connect
cport=$(ml_free_port)
ml_start MINILAKE_SPARK_CONNECT_PORT=$cport || fail start
ml_call POST /api/2.1/unity-catalog/catalogs '{"name":"main"}' >/dev/null
cl=$(new_cluster); [ -n "$cl" ] || fail "cluster create"
out=$(CONNECT_PORT=$cport CLUSTER=$cl client sc main.connect_check.t_sc)
case "$out" in ok\ *) sc_ms=${out#ok };; *) fail "sc:// way in: $out";; esac
[ "$(sql_sum main.connect_check.t_sc)" = 3 ] || fail "the SQL warehouse does not read what Spark wrote (sc://)"
# /api/1.2 command execution on the same cluster
ctx=$(ml_call POST /api/1.2/contexts/create "{\"clusterId\":\"$cl\",\"language\":\"python\"}" | sed 's/^[0-9]* //' | json 'j.id')
[ -n "$ctx" ] || fail "/api/1.2/contexts/create gave no context id"
cmd=$(ml_call POST /api/1.2/commands/execute "{\"clusterId\":\"$cl\",\"contextId\":\"$ctx\",\"language\":\"python\",\"command\":\"print(spark.range(7).count())\"}" | sed 's/^[0-9]* //' | json 'j.id')
res=""; for _ in $(seq 1 120); do
  res=$(ml_call GET "/api/1.2/commands/status?clusterId=$cl&contextId=$ctx&commandId=$cmd" | sed 's/^[0-9]* //')
  case "$(echo "$res" | json 'j.status')" in Finished|Error|Cancelled) break;; esac; sleep 1
done
[ "$(echo "$res" | json 'j.status+"|"+(j.results&&j.results.data||"").trim()')" = 'Finished|7' ] || fail "command execution: $res"
ml_stop
# 2. Databricks' own remote(host, token, cluster_id), gRPC over TLS on MiniLake's port
ML_PORT=$(ml_free_port); ML_DATA=$(mktemp -d); https=https://127.0.0.1:$ML_PORT
env MINILAKE_TLS=1 MINILAKE_DATA_DIR=$ML_DATA node "$(ml_entry)" --port "$ML_PORT" >"$ML_DATA.log" 2>&1 & ML_PID=$!
for _ in $(seq 1 300); do curl -ksfS -o /dev/null "$https/_minilake/ready" 2>/dev/null && break; sleep 0.05; done
cert=$ML_DATA/tls/cert.pem; [ -f "$cert" ] || fail "no CA file at <data dir>/tls/cert.pem with MINILAKE_TLS=1"
curl -sS --cacert "$cert" -X POST -H 'Content-Type: application/json' -d '{"name":"main"}' "$https/api/2.1/unity-catalog/catalogs" >/dev/null
cl=$(curl -sS --cacert "$cert" -X POST -H 'Content-Type: application/json' -d '{"cluster_name":"c2","spark_version":"16.4.x-scala2.12","node_type_id":"i3.xlarge","num_workers":0}' "$https/api/2.1/clusters/create" | json 'j.cluster_id')
out=$(HOST=$https CLUSTER=$cl GRPC_DEFAULT_SSL_ROOTS_FILE_PATH=$cert REQUESTS_CA_BUNDLE=$cert SSL_CERT_FILE=$cert client remote main.connect_check.t_remote)
case "$out" in ok\ *) remote_ms=${out#ok };; *) fail "remote(host, token, cluster_id) over TLS: $out";; esac
ml_stop; echo "connect ok: sc:// session + writes in $sc_ms ms, remote(host, token, cluster_id) over TLS in $remote_ms ms, /api/1.2 command ran"
