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
import requests
from mlflow import MlflowClient

# The artifact's own GET, as the client sent it (URL and headers: the Files API or the MLflow server's artifact
# proxy), to time the same download again with one plain HTTP client on both sides.
artifact_gets = []
_send = requests.Session.send


def send(self, req, **kw):
    if req.method == "GET" and req.url.split("?")[0].endswith("blob.bin"):
        artifact_gets.append((req.url, {k: v for k, v in req.headers.items() if k.lower() == "authorization"}))
    return _send(self, req, **kw)


requests.Session.send = send

n, size, rounds, exp_name = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
client = MlflowClient()
# Not timed: the first request (MiniLake starts its MLflow server on it) and the experiment.
exp_id = client.create_experiment(exp_name)
out = {"log_metric_ms": [], "upload_ms": [], "download_ms": [], "plain_download_ms": []}
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
        if artifact_gets:
            url, headers = artifact_gets[-1]
            t0 = time.perf_counter()
            n_bytes = 0
            with requests.get(url, headers=headers, stream=True, timeout=300) as r:
                r.raise_for_status()
                for c in r.iter_content(1 << 20):
                    n_bytes += len(c)
            out["plain_download_ms"].append((time.perf_counter() - t0) * 1000)
            assert n_bytes == size, n_bytes
        client.set_terminated(run_id)
        os.remove(got)
        history = client.get_metric_history(run_id, "loss")
        assert len(history) == n, len(history)
print(json.dumps(out))
