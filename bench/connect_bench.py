"""Databricks Connect round trips through each way in against a direct Spark Connect client of the same
server (a cluster's driver), in one process, rounds interleaved so the machine's noise hits all alike.
Usage: connect_bench.py DIRECT_PORT PROXY_PORT HOST CLUSTER_ID ROUNDS ROWS [RELAY_PORT] -> one JSON object.
RELAY_PORT: a bare TCP relay to the driver (a Node process piping bytes, nothing else): the floor of any relay
in user space on this machine, measured beside MiniLake's ways in."""
import json
import statistics
import sys
import time

from databricks.connect import DatabricksSession

direct_port, proxy_port, host, cluster, rounds, rows = sys.argv[1:7]
relay_port = sys.argv[7] if len(sys.argv) > 7 else None
rounds, rows = int(rounds), int(rows)
ways = {
    # The baseline: the cluster's own Spark Connect server, no MiniLake in between.
    "direct": lambda: DatabricksSession.builder.remote(f"sc://127.0.0.1:{direct_port}").getOrCreate(),
    "sc_proxy": lambda: DatabricksSession.builder.remote(
        f"sc://127.0.0.1:{proxy_port}/;x-databricks-cluster-id={cluster}").getOrCreate(),
    "tls_door": lambda: DatabricksSession.builder.remote(host=host, token="dapi-bench", cluster_id=cluster)
    .validateSession(False).getOrCreate(),
}
if relay_port:
    ways["relay"] = lambda: DatabricksSession.builder.remote(f"sc://127.0.0.1:{relay_port}").getOrCreate()
sessions = {}
for name, make in ways.items():
    s = make()
    s.sql("SELECT 1").collect()  # warm: the channel, the session, the planner
    s.range(rows).toPandas()
    sessions[name] = s
select1 = {n: [] for n in sessions}
# One unary call (Config): what each way adds to a single gRPC call (a SELECT 1 collect() is four calls).
conf = {n: [] for n in sessions}
pandas = {n: [] for n in sessions}
for _ in range(rounds):
    for name, s in sessions.items():
        for _ in range(20):
            t = time.perf_counter()
            s.sql("SELECT 1").collect()
            select1[name].append((time.perf_counter() - t) * 1000)
        for _ in range(100):
            t = time.perf_counter()
            s.conf.get("spark.sql.shuffle.partitions")
            conf[name].append((time.perf_counter() - t) * 1000)
    for name, s in sessions.items():
        t = time.perf_counter()
        n = len(s.range(rows).toPandas())
        assert n == rows
        pandas[name].append((time.perf_counter() - t) * 1000)
out = {}
for name in sessions:
    out[f"{name}_select1_p50_ms"] = round(statistics.median(select1[name]), 2)
    out[f"{name}_one_call_p50_ms"] = round(statistics.median(conf[name]), 3)
    out[f"{name}_topandas_{rows}_ms"] = round(statistics.median(pandas[name]), 1)
for name in [n for n in sessions if n != "direct"]:
    out[f"{name}_select1_over_direct_ratio"] = round(out[f"{name}_select1_p50_ms"] / out["direct_select1_p50_ms"], 3)
    out[f"{name}_select1_added_ms"] = round(out[f"{name}_select1_p50_ms"] - out["direct_select1_p50_ms"], 2)
    out[f"{name}_one_call_added_ms"] = round(out[f"{name}_one_call_p50_ms"] - out["direct_one_call_p50_ms"], 3)
    out[f"{name}_topandas_over_direct_ratio"] = round(
        out[f"{name}_topandas_{rows}_ms"] / out[f"direct_topandas_{rows}_ms"], 3)
print(json.dumps(out))
