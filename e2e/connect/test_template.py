"""A project made by `databricks bundle init default-python` (the real CLI, built from source by
e2e/tools/build.sh): its own tests/ pass with pytest against MiniLake, unchanged, with only the host, token and
cluster in the environment. Its conftest validates the session (DB Connect 15.4 against the cluster's
spark_version) and its test reads samples.nyctaxi.trips through `databricks.sdk.runtime.spark`."""
import json
import os
import subprocess
import sys

import pytest

from conftest import client_python



def cli():
    tools = os.path.join(os.environ.get("MINILAKE_CACHE", os.path.expanduser("~/.cache/minilake")), "tools")
    versions = open(os.path.join(os.path.dirname(__file__), "..", "tools", "versions.sh")).read()
    version = next(l.split("=")[1].strip() for l in versions.splitlines() if l.startswith("CLI_VERSION="))
    path = os.environ.get("MINILAKE_DATABRICKS_CLI") or os.path.join(tools, f"databricks-{version}")
    if not os.path.exists(path):
        pytest.skip(f"the Databricks CLI is not built ({path}): bash e2e/tools/build.sh")
    return path


def test_default_python_template(w, server, cluster, tmp_path):
    try:
        w.tables.get("samples.nyctaxi.trips")
    except Exception:  # noqa: BLE001
        pytest.skip("samples.nyctaxi.trips is not served by this server yet (the samples catalog, issue 32)")
    py = client_python("15.4")
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABRICKS_", "SPARK_", "PYSPARK_"))}
    env.update({"HOME": str(home), "DATABRICKS_HOST": server.url, "DATABRICKS_TOKEN": "dapi-template"})
    cfg = tmp_path / "cfg.json"
    cfg.write_text(json.dumps({"project_name": "my_project", "include_notebook": "yes", "include_dlt": "no",
                               "include_python": "yes", "serverless": "no"}))
    subprocess.run([cli(), "bundle", "init", "default-python", "--config-file", str(cfg), "--output-dir",
                    str(tmp_path)], env=env, check=True, capture_output=True, timeout=120)
    project = tmp_path / "my_project"
    assert (project / "tests" / "conftest.py").exists()
    # What `uv run pytest` does: the project's src/ importable, its tests run, nothing of them changed.
    env.update({"DATABRICKS_CLUSTER_ID": cluster, "PYTHONPATH": str(project / "src"),
                "GRPC_DEFAULT_SSL_ROOTS_FILE_PATH": os.path.join(server.data_dir, "tls", "cert.pem")})
    p = subprocess.run([py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=project, env=env,
                       capture_output=True, text=True, timeout=900)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-2000:]
    assert " passed" in p.stdout
