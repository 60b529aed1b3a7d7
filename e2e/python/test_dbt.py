"""dbt-databricks against MiniLake over the Thrift endpoint: the project in e2e/dbt (a seed, a table, a view
and an incremental merge model, schema tests) through `dbt debug`, `seed`, `run`, `test` and a second,
incremental `run`; rows checked through the SDK's Statement Execution API.

dbt lives in its own venv under ~/.cache/minilake (its pins conflict with the suite's connector), made once
from e2e/dbt/requirements.txt and rebuilt only when that file changes."""
import hashlib
import os
import shutil
import subprocess
import sys

import pytest

from conftest import ROOT, unique

DBT_DIR = os.path.join(ROOT, "e2e", "dbt")


@pytest.fixture(scope="session")
def dbt_bin():
    req = os.path.join(DBT_DIR, "requirements.txt")
    with open(req, "rb") as f:
        h = hashlib.sha256(f.read()).hexdigest()[:12]
    cache = os.environ.get("MINILAKE_CACHE") or os.path.join(os.path.expanduser("~"), ".cache", "minilake")
    venv = os.path.join(cache, f"venv-dbt-{h}")
    dbt = os.path.join(venv, "bin", "dbt")
    if not os.path.exists(dbt):
        os.makedirs(cache, exist_ok=True)
        subprocess.run([sys.executable, "-m", "venv", venv], check=True)
        subprocess.run([os.path.join(venv, "bin", "pip"), "install", "-q", "--disable-pip-version-check",
                        "-r", req], check=True, timeout=900)
    return dbt


@pytest.fixture
def project(tmp_path, url, w):
    """A copy of the project (dbt writes target/ and logs/ next to it) and a profile for this server."""
    wh = w.warehouses.create(name=unique("wh"), cluster_size="Small").id
    cat = unique("dbt")
    w.catalogs.create(name=cat)
    proj = tmp_path / "project"
    shutil.copytree(DBT_DIR, proj, ignore=shutil.ignore_patterns("target", "logs", "requirements.txt"))
    path = f"/sql/1.0/warehouses/{wh}"
    (tmp_path / "profiles.yml").write_text(f"""
minilake:
  target: dev
  outputs:
    dev:
      type: databricks
      host: {url}
      http_path: {path}
      token: dev
      catalog: {cat}
      schema: shop
      threads: 1
      connection_parameters:
        _connection_uri: {url}{path}
        enable_telemetry: false
""")
    return {"dir": str(proj), "profiles": str(tmp_path), "catalog": cat, "warehouse": wh}


def dbt(dbt_bin, project, *args):
    env = dict(os.environ, DBT_PROFILES_DIR=project["profiles"], DBT_SEND_ANONYMOUS_USAGE_STATS="false",
               DATABRICKS_CONFIG_FILE="/dev/null", DO_NOT_TRACK="1")
    for k in ("DATABRICKS_HOST", "DATABRICKS_TOKEN", "DATABRICKS_CONFIG_PROFILE"):
        env.pop(k, None)
    r = subprocess.run([dbt_bin, *args, "--no-use-colors"], cwd=project["dir"], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, f"dbt {' '.join(args)} failed:\n{r.stdout}\n{r.stderr}"
    return r.stdout


def rows(w, project, statement):
    r = w.statement_execution.execute_statement(warehouse_id=project["warehouse"], statement=statement,
                                                catalog=project["catalog"], schema="shop", wait_timeout="30s")
    assert r.status.state.value == "SUCCEEDED", r.status
    return r.result.data_array or []


def test_dbt_project_builds_tests_and_runs_incrementally(dbt_bin, project, w):
    out = dbt(dbt_bin, project, "debug")
    assert "All checks passed!" in out

    out = dbt(dbt_bin, project, "seed")
    assert "PASS=1" in out
    assert rows(w, project, "SELECT count(*) FROM raw_orders") == [["4"]]

    out = dbt(dbt_bin, project, "run")
    assert "PASS=3" in out
    assert rows(w, project, "SELECT order_id, amount FROM orders ORDER BY order_id") == [
        ["1", "10.50"], ["2", "20.00"], ["3", "5.25"], ["4", "42.00"]]
    assert rows(w, project, "SELECT order_id FROM shipped_orders ORDER BY 1") == [["1"], ["3"]]
    assert rows(w, project, "SELECT customer, total, orders FROM customer_totals ORDER BY 1") == [
        ["ada", "15.75", "2"], ["bob", "20.00", "1"], ["cy", "42.00", "1"]]
    tables = rows(w, project, "SELECT table_name, table_type FROM information_schema.tables "
                              "WHERE table_schema = 'shop' ORDER BY 1")
    assert tables == [["customer_totals", "MANAGED"], ["orders", "MANAGED"], ["raw_orders", "MANAGED"],
                      ["shipped_orders", "VIEW"]]

    out = dbt(dbt_bin, project, "test")
    assert "PASS=8 WARN=0 ERROR=0" in out

    # A new order for bob; cy's row is marked so a full rebuild (instead of a merge) would show.
    rows(w, project, "INSERT INTO raw_orders VALUES (5, 'bob', 7.00, 'shipped', '2024-02-01')")
    rows(w, project, "UPDATE customer_totals SET orders = 99 WHERE customer = 'cy'")
    out = dbt(dbt_bin, project, "run")
    assert "PASS=3" in out
    assert rows(w, project, "SELECT customer, total, orders, CAST(last_order AS STRING) FROM customer_totals "
                            "ORDER BY 1") == [
        ["ada", "15.75", "2", "2024-01-03"], ["bob", "27.00", "2", "2024-02-01"], ["cy", "42.00", "99", "2024-01-04"]]
