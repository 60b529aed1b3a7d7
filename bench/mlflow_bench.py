"""Drives one tracking server with the real mlflow client, as bench/scenarios/mlflow.mjs asks: N log_metric
calls (one request each) and an artifact of SIZE bytes uploaded and downloaded, ROUNDS times each. Where it
points is the environment's MLFLOW_TRACKING_URI (`databricks` + DATABRICKS_HOST for MiniLake, `http://...`
for the MLflow server directly). Prints one JSON object of times in ms (per round)."""
import json
import os
import sys
import tempfile
import time

import mlflow
from mlflow import MlflowClient

n, size, rounds, exp_name = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
client = MlflowClient()
# Not timed: the first request (MiniLake starts its MLflow server on it) and the experiment.
exp_id = client.create_experiment(exp_name)
out = {"log_metric_ms": [], "upload_ms": [], "download_ms": []}
with tempfile.TemporaryDirectory() as tmp:
    blob = os.path.join(tmp, "blob.bin")
    with open(blob, "wb") as f:
        chunk = os.urandom(1 << 20)
        for _ in range(size // len(chunk)):
            f.write(chunk)
    for r in range(rounds):
        run_id = client.create_run(exp_id).info.run_id
        client.log_metric(run_id, "warm", 0.0)
        t0 = time.perf_counter()
        for i in range(n):
            client.log_metric(run_id, "loss", 1.0 / (i + 1), step=i)
        out["log_metric_ms"].append((time.perf_counter() - t0) * 1000)
        if size == 0:
            continue
        t0 = time.perf_counter()
        client.log_artifact(run_id, blob, artifact_path=f"r{r}")
        out["upload_ms"].append((time.perf_counter() - t0) * 1000)
        dst = os.path.join(tmp, f"dl{r}")
        os.mkdir(dst)
        t0 = time.perf_counter()
        got = mlflow.artifacts.download_artifacts(run_id=run_id, artifact_path=f"r{r}/blob.bin", dst_path=dst)
        out["download_ms"].append((time.perf_counter() - t0) * 1000)
        assert os.path.getsize(got) == size, (got, os.path.getsize(got))
        client.set_terminated(run_id)
        os.remove(got)
        history = client.get_metric_history(run_id, "loss")
        assert len(history) == n, len(history)
print(json.dumps(out))
