"""Issue 30, crash chaos for MLflow tracking: with persistence on, several clients log runs, params and metrics
by raw REST (no retries: one 2xx answer is one acknowledgement) to /api/2.0/mlflow/*, and the MiniLake process
alone is killed with SIGKILL mid-burst (as a crash takes it: its children are not signalled). The MLflow server
was its child in a process group of its own: the launcher sees its stdin close and stops the group, so it is
gone within seconds and never blocks the restart. After the restart on the same data dir every acknowledged run,
param and metric is there. Bounded: CHAOS_MLFLOW_ROUNDS rounds (default 1: each restart starts MLflow again, ~30 s)."""
import os
import random
import shutil
import tempfile
import time

from chaos import Ledger, burst, kill9_server_only, ok, req, wait_gone
from conftest import Server

SEED = int(os.environ.get("CHAOS_SEED", "30"))
ROUNDS = int(os.environ.get("CHAOS_MLFLOW_ROUNDS", "1"))
CLIENTS = 4
ENV = {"MINILAKE_PERSIST": "1"}
ME = "dev@minilake.local"
API = "/api/2.0/mlflow"


def writer(url, eid, ledger, rng, tag, stop):
    """One client: a run, then params and metrics logged to it one request at a time, a new run now and then."""
    run = None
    n = 0
    while not stop.is_set():
        n += 1
        try:
            if run is None or rng.random() < 0.1:
                s, b = req(url, "POST", f"{API}/runs/create", {"experiment_id": eid, "run_name": f"{tag}_{n}",
                                                               "start_time": int(time.time() * 1000)})
                ledger.saw(s)
                if ok(s):
                    run = b["run"]["info"]["run_id"]
                    ledger.ack("run", run, f"{tag}_{n}")
                continue
            if rng.random() < 0.3:
                s, _ = req(url, "POST", f"{API}/runs/log-parameter", {"run_id": run, "key": f"p{n}", "value": str(n)})
                ledger.saw(s)
                if ok(s):
                    ledger.ack("param", (run, f"p{n}"), str(n))
            elif rng.random() < 0.5:
                s, _ = req(url, "POST", f"{API}/runs/log-metric", {"run_id": run, "key": "loss", "value": n / 10,
                                                                   "timestamp": int(time.time() * 1000), "step": n})
                ledger.saw(s)
                if ok(s):
                    ledger.ack("metric", (run, "loss", n), n / 10)
            else:
                s, _ = req(url, "POST", f"{API}/runs/log-batch", {"run_id": run, "metrics": [
                    {"key": "acc", "value": n / 100, "timestamp": int(time.time() * 1000), "step": n}],
                    "params": [{"key": f"b{n}", "value": "x"}]})
                ledger.saw(s)
                if ok(s):
                    ledger.ack("metric", (run, "acc", n), n / 100)
                    ledger.ack("param", (run, f"b{n}"), "x")
        except OSError:
            return  # the server died: the in-flight call was never acknowledged
        except Exception:  # noqa: BLE001 - an answer cut mid-body is as unacknowledged as no answer
            return


def verify(url, ledger):
    missing = []
    runs, history = {}, {}
    for kind, key, expected in ledger.acked:
        if kind == "run":
            s, b = req(url, "GET", f"{API}/runs/get?run_id={key}")
            if ok(s):
                runs[key] = b["run"]
            there = ok(s) and b["run"]["info"]["run_name"] == expected
        elif kind == "param":
            run, k = key
            if run not in runs:
                s, b = req(url, "GET", f"{API}/runs/get?run_id={run}")
                runs[run] = b.get("run", {}) if ok(s) else {}
            params = {p["key"]: p["value"] for p in runs[run].get("data", {}).get("params", [])}
            there = params.get(k) == expected
        else:
            run, k, step = key
            if (run, k) not in history:
                s, b = req(url, "GET", f"{API}/metrics/get-history?run_id={run}&metric_key={k}&max_results=25000")
                history[(run, k)] = {(m["step"], m["value"]) for m in b.get("metrics", [])} if ok(s) else set()
            there = (step, expected) in history[(run, k)]
        if not there:
            missing.append((kind, key))
    return missing


def test_kill_9_during_mlflow_logging_loses_no_acknowledged_write():
    rng = random.Random(SEED)
    ledger = Ledger()
    data_dir = tempfile.mkdtemp(prefix="minilake-mlflow-chaos-")
    s = Server(env=ENV, data_dir=data_dir)
    figures = []
    try:
        st, b = req(s.url, "POST", "/api/2.0/workspace/mkdirs", {"path": f"/Users/{ME}/chaos"})
        assert ok(st), b
        # The first MLflow call starts the MLflow server (seconds): before the burst, not inside it.
        st, b = req(s.url, "POST", f"{API}/experiments/create", {"name": f"/Users/{ME}/chaos/exp"}, timeout=180)
        assert ok(st), b
        eid = b["experiment_id"]
        for round_ in range(ROUNDS):
            # The restarted server starts MLflow lazily again: one read warms it before the burst.
            st, b = req(s.url, "GET", f"{API}/experiments/get?experiment_id={eid}", timeout=180)
            assert ok(st), b
            before, delay, children = burst(writer, (s.url, eid, ledger), ledger, rng, round_, CLIENTS,
                                            lambda: kill9_server_only(s))
            # The MLflow launcher, the mlflow CLI and uvicorn: gone by themselves, the server being dead.
            t_kill = time.monotonic()
            left = wait_gone(children, 30)
            gone = time.monotonic() - t_kill
            assert children and left == [], f"the killed server's children still running: {left} of {children}"
            t0 = time.monotonic()
            s = Server(env=ENV, data_dir=data_dir)  # the restart must succeed
            restart = time.monotonic() - t0
            missing = verify(s.url, ledger)
            figures.append(f"round {round_}: killed after {delay:.2f} s, {len(ledger.acked) - before} acknowledged "
                           f"MLflow writes, {len(children)} child processes gone in {gone:.1f} s, "
                           f"restart {restart:.1f} s, {len(missing)} lost")
            assert missing == [], f"acknowledged before kill -9 (round {round_}) but gone after restart: {missing}"
        print("\n".join(figures + [f"answers: {dict(sorted(ledger.answers.items()))}"]))
        assert not any(st >= 500 for st in ledger.answers), ledger.answers
        assert {"run", "param", "metric"} <= {k for k, _, _ in ledger.acked}
    finally:
        if s.proc.poll() is None:
            s.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
