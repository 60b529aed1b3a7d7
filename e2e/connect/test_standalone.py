"""Users who outgrow one machine: MINILAKE_SPARK_CONNECT_MASTER points clusters' drivers at an existing Spark
cluster. A real standalone master and worker on loopback (from the same Spark install), a MiniLake whose
clusters use them, and a Databricks Connect session whose work (a Python UDF) runs on the worker's executor."""
import json
import os
import socket
import subprocess
import time
import urllib.request

import pytest
from databricks.sdk import WorkspaceClient

from conftest import Server, client_python, unique

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")


def spark_home():
    v = json.load(open(os.path.join(ROOT, "packages", "engine-spark", "versions.json")))
    cache = os.environ.get("MINILAKE_CACHE", os.path.expanduser("~/.cache/minilake"))
    py = os.path.join(cache, f"spark-{v['pyspark']}-delta-{v['deltaSpark']}", "venv", "bin", "python")
    if not os.path.exists(py):
        pytest.skip(f"the Spark install is missing ({py}): bash packages/engine-spark/install.sh")
    return subprocess.check_output([py, "-c", "import os, pyspark; print(os.path.dirname(pyspark.__file__))"],
                                   text=True).strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def status(ui):
    with urllib.request.urlopen(f"http://127.0.0.1:{ui}/json/", timeout=5) as r:
        return json.load(r)


@pytest.fixture(scope="module")
def standalone(tmp_path_factory):
    home = spark_home()
    work = tmp_path_factory.mktemp("standalone")
    port, ui, wui = free_port(), free_port(), free_port()
    env = {**os.environ, "SPARK_HOME": home, "SPARK_LOCAL_IP": "127.0.0.1"}
    cls = os.path.join(home, "bin", "spark-class")
    procs = [subprocess.Popen([cls, "org.apache.spark.deploy.master.Master", "--host", "127.0.0.1", "--port",
                               str(port), "--webui-port", str(ui)], env=env, cwd=work,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)]
    master = f"spark://127.0.0.1:{port}"
    procs.append(subprocess.Popen([cls, "org.apache.spark.deploy.worker.Worker", "--host", "127.0.0.1",
                                   "--webui-port", str(wui), "--cores", "2", "--memory", "1g", "--work-dir",
                                   str(work / "work"), master], env=env, cwd=work, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, start_new_session=True))
    try:
        deadline = time.time() + 180
        while True:
            try:
                if status(ui).get("aliveworkers", 0) >= 1:
                    break
            except OSError:
                pass
            assert time.time() < deadline, "the standalone worker never registered with the master"
            time.sleep(0.5)
        yield master, ui
    finally:
        for p in procs:
            try:
                os.killpg(p.pid, 15)
            except ProcessLookupError:
                pass
        for p in procs:
            p.wait(30)


def test_connect_session_on_a_standalone_cluster(standalone):
    master, ui = standalone
    s = Server(env={"MINILAKE_CLUSTER_RUNTIME": "spark", "MINILAKE_SPARK_CONNECT_MASTER": master,
                    "MINILAKE_CLUSTER_START_DELAY": "0.2", "MINILAKE_CLUSTER_TERMINATE_DELAY": "0.2"})
    try:
        w = WorkspaceClient(host=s.url, token="dapi-standalone", auth_type="pat")
        c = w.clusters.create_and_wait(cluster_name=unique("sa"), spark_version="16.4.x-scala2.12",
                                       node_type_id="i3.xlarge", num_workers=1)
        apps = [a for a in status(ui).get("activeapps", []) if a["name"] == f"minilake-cluster-{c.cluster_id}"]
        assert apps, "the cluster's driver is an application of the standalone master"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DATABRICKS_", "SPARK_", "PYSPARK_"))}
        code = (
            "from databricks.connect import DatabricksSession\n"
            "from pyspark.sql.functions import udf\n"
            f"s = DatabricksSession.builder.remote('sc://localhost:{s.spark_connect_port}/;"
            f"x-databricks-cluster-id={c.cluster_id}').getOrCreate()\n"
            "host = udf(lambda _: __import__('socket').gethostname() + ':' + str(__import__('os').getppid()), 'string')\n"
            "print('master', s.conf.get('spark.master'))\n"
            "print('rows', s.range(100).repartition(4).select(host('id')).distinct().count() >= 1)\n"
            "print('sum', s.range(1000).selectExpr('sum(id)').collect()[0][0])\n"
        )
        p = subprocess.run([client_python("16.1"), "-c", code], env=env, capture_output=True, text=True, timeout=600)
        assert p.returncode == 0, p.stderr[-3000:]
        assert f"master {master}" in p.stdout and "rows True" in p.stdout and "sum 499500" in p.stdout
        # The work ran on the worker: the application has an executor there (not only a driver).
        app = next(a for a in status(ui)["activeapps"] if a["name"] == f"minilake-cluster-{c.cluster_id}")
        assert app["cores"] >= 1
        w.clusters.delete_and_wait(c.cluster_id)
        # Terminated: the driver is gone, so the master lists the application no more.
        deadline = time.time() + 30
        while [a for a in status(ui).get("activeapps", []) if a["name"] == f"minilake-cluster-{c.cluster_id}"]:
            assert time.time() < deadline, "the terminated cluster's application is still active"
            time.sleep(0.2)
    finally:
        s.stop()
