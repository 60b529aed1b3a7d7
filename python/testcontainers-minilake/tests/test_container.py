"""MiniLakeContainer against the real Docker daemon and a real MiniLake image: the official databricks-sdk
client it hands out, the environment it gives other clients, reset and snapshots, a failing start."""
import os
import shutil
import subprocess
import sys

import pytest

from testcontainers_minilake import MiniLakeContainer

IMAGE = os.environ.get("MINILAKE_TEST_IMAGE", "minilake:slim")


def _why_not():
    if not shutil.which("docker"):
        return "no docker client"
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        return "no Docker daemon answers (docker/dockerd.sh start)"
    if subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True).returncode != 0:
        return f"no image {IMAGE} (bash docker/build.sh --slim)"
    return None


pytestmark = pytest.mark.skipif(_why_not() is not None, reason=str(_why_not()))


def test_client_env_reset_and_snapshots():
    with MiniLakeContainer(IMAGE) as lake:
        w = lake.get_client()
        assert w.current_user.me().user_name == "dev@minilake.local"
        w.catalogs.create(name="tc_sales")
        lake.snapshot("with_sales")
        lake.reset()
        assert "tc_sales" not in [c.name for c in w.catalogs.list()]
        lake.restore("with_sales")
        assert "tc_sales" in [c.name for c in w.catalogs.list()]
        env = lake.get_env()
        assert env["DATABRICKS_HOST"] == lake.get_url() and env["DATABRICKS_TOKEN"] == "dapi-minilake"
        # Another client, from the environment alone (a subprocess: nothing shared with this one).
        out = subprocess.run(
            [sys.executable, "-c", "from databricks.sdk import WorkspaceClient; "
             "print(sorted(c.name for c in WorkspaceClient().catalogs.list()))"],
            env={**os.environ, **env, "DATABRICKS_CONFIG_FILE": "/dev/null"}, capture_output=True, text=True,
            timeout=120)
        assert "'tc_sales'" in out.stdout, out.stderr[-2000:]
        cid = lake.get_container_id()
    assert subprocess.run(["docker", "ps", "-aq", "--filter", f"id={cid}"], capture_output=True,
                          text=True).stdout.strip() == "", "the container is removed on exit"


def test_services_and_two_containers_at_once():
    with MiniLakeContainer(IMAGE, services=["secrets"]) as a, MiniLakeContainer(IMAGE) as b:
        assert a.get_url() != b.get_url()
        from databricks.sdk.errors import NotImplemented as NotImplementedError_
        with pytest.raises(NotImplementedError_):
            list(a.get_client().catalogs.list())
        a.get_client().secrets.create_scope(scope="only_secrets")
        assert [s.name for s in b.get_client().secrets.list_scopes()] == []


def test_a_container_that_cannot_start_says_why():
    c = MiniLakeContainer(IMAGE, startup_timeout=60).with_env("MINILAKE_LOG_LEVEL", "loud")
    with pytest.raises(RuntimeError, match='MINILAKE_LOG_LEVEL="loud" must be one of'):
        c.start()
    c.stop()
