"""pytest-minilake's own tests: pytest runs inner test files (pytester, in a subprocess, so the plugin loads from
its entry point as for a user) against the real built server (MINILAKE_TEST_BIN, set by run-tests.sh)."""
import os
import re
import shutil
import subprocess
import sys

import pytest
# Imported before any pytester test: pytester drops the modules a test imported when it ends, and requests
# would then meet a second http.cookiejar ("You can only merge into CookieJar").
import databricks.sdk  # noqa: F401

from pytest_minilake import MiniLakeStartError, command_for, start

BIN = os.environ.get("MINILAKE_TEST_BIN", "")
pytestmark = pytest.mark.skipif(not os.path.exists(BIN), reason="no built server: pnpm build (run-tests.sh sets "
                                                                 "MINILAKE_TEST_BIN)")


@pytest.fixture
def inner(pytester, monkeypatch):
    """pytester with no MiniLake named by the outer environment, and a fresh HOME."""
    for k in list(os.environ):
        if k.startswith(("PYTEST_MINILAKE_", "DATABRICKS_")) or k in ("MINILAKE_URL",):
            monkeypatch.delenv(k)
    home = pytester.path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return pytester


def run(pytester, *args):
    return pytester.runpytest_subprocess("-p", "no:cacheprovider", *args, timeout=600)


def test_a_test_file_gets_the_url_a_client_and_the_environment(inner):
    # A ~/.databrickscfg pointing elsewhere with another way to authenticate: the session must not see it.
    (inner.path / "home" / ".databrickscfg").write_text(
        "[DEFAULT]\nhost = https://elsewhere.example.com\nclient_id = x\nclient_secret = y\n")
    inner.makepyfile(test_inner="""
        import os, urllib.request
        from databricks.sdk import WorkspaceClient

        def test_url(minilake, workspace_client):
            assert isinstance(minilake.url, str) and minilake.url.startswith("http://127.0.0.1:")
            assert str(minilake) == minilake.url
            assert urllib.request.urlopen(minilake.url + "/_minilake/ready").status == 200
            assert workspace_client.config.host == minilake.url
            assert os.environ["DATABRICKS_HOST"] == minilake.url
            assert os.environ["DATABRICKS_TOKEN"] == minilake.token
            # A client made with no arguments finds the server from the environment alone.
            assert WorkspaceClient().current_user.me().user_name == "dev@minilake.local"
    """)
    r = run(inner, f"--minilake-bin={BIN}")
    r.assert_outcomes(passed=1)
    assert f"minilake: bin {BIN} (from the command line)" in r.stdout.str()


def test_reset_by_default_and_the_marker_chooses_otherwise(inner):
    inner.makepyfile(test_inner="""
        import pytest

        def names(w):
            return sorted(c.name for c in w.catalogs.list())

        @pytest.fixture(scope="session")
        def seeded(minilake):
            minilake.reset()  # whatever tests before it left is not part of the seed
            w = minilake.workspace_client()
            w.catalogs.create(name="seeded")
            minilake.snapshot("seeded")

        def test_1_creates(workspace_client):
            workspace_client.catalogs.create(name="one")

        def test_2_starts_fresh(workspace_client):
            assert "one" not in names(workspace_client)
            workspace_client.catalogs.create(name="two")

        @pytest.mark.minilake(isolation="none")
        def test_3_keeps_what_the_last_test_left(workspace_client):
            assert "two" in names(workspace_client)

        @pytest.mark.minilake(restore="seeded")
        def test_4_restores_a_snapshot(seeded, workspace_client):
            assert "seeded" in names(workspace_client) and "two" not in names(workspace_client)
            workspace_client.catalogs.create(name="four")

        @pytest.mark.minilake(isolation="snapshot")
        def test_5_snapshot_finds_the_state_and_undoes_its_own(workspace_client):
            assert "four" in names(workspace_client)
            workspace_client.catalogs.create(name="five")

        @pytest.mark.minilake(reset=False)
        def test_6_after_a_snapshot_test(workspace_client):
            assert "four" in names(workspace_client) and "five" not in names(workspace_client)

        def test_7_fresh_again_with_the_built_in_catalogs(workspace_client):
            got = names(workspace_client)
            assert "four" not in got and "seeded" not in got and "main" in got
    """)
    r = run(inner, f"--minilake-bin={BIN}")
    r.assert_outcomes(passed=7)


def test_ini_and_command_line_settings_reach_the_server(inner):
    inner.makeini(f"""
        [pytest]
        minilake_bin = {BIN}
        minilake_env =
            MINILAKE_USER=ini@example.com
    """)
    inner.makepyfile(test_inner="""
        def test_settings(minilake, workspace_client):
            assert workspace_client.current_user.me().user_name == "ini@example.com"
            status, _ = minilake.request("GET", "/api/2.0/preview/scim/v2/Me")
            assert status == 200
            import urllib.request
            r = urllib.request.urlopen(urllib.request.Request(minilake.url + "/api/2.0/preview/scim/v2/Me",
                                       headers={"Authorization": "Bearer x"}))
            assert r.headers["x-databricks-org-id"] == "4242"
    """)
    r = run(inner, "--minilake-env", "MINILAKE_WORKSPACE_ID=4242")
    r.assert_outcomes(passed=1)
    assert "(from the ini file)" in r.stdout.str()


def test_no_server_named_fails_clearly(inner, monkeypatch):
    monkeypatch.setenv("PATH", os.path.dirname(sys.executable) + os.pathsep + "/usr/bin" + os.pathsep + "/bin")
    if shutil.which("minilake"):
        pytest.skip("a minilake is on PATH here")
    inner.makepyfile(test_inner="""
        def test_needs_it(minilake):
            pass

        def test_does_not(tmp_path):
            pass
    """)
    r = run(inner)
    r.assert_outcomes(passed=1, errors=1)
    out = r.stdout.str()
    assert "pytest-minilake does not know which MiniLake to start" in out
    assert "--minilake-bin PATH" in out and "--minilake-image IMAGE" in out


def test_a_server_that_cannot_start_fails_with_its_own_words(inner):
    inner.makepyfile(test_inner="""
        def test_a(minilake):
            pass

        def test_b(workspace_client):
            pass
    """)
    r = run(inner, f"--minilake-bin={BIN}", "--minilake-env", "MINILAKE_LOG_LEVEL=loud")
    r.assert_outcomes(errors=2)
    out = r.stdout.str()
    assert re.search(r"exited with code \d+ before it listened", out)
    assert 'MINILAKE_LOG_LEVEL="loud" must be one of' in out


def test_a_missing_bin_is_named(inner):
    inner.makepyfile(test_inner="def test_a(minilake):\n    pass\n")
    r = run(inner, "--minilake-bin=/nowhere/cli.js")
    r.assert_outcomes(errors=1)
    assert "--minilake-bin /nowhere/cli.js: no such file" in r.stdout.str()


def test_a_running_server_by_url_or_the_action_s_environment(inner, monkeypatch):
    s = start(bin=BIN)
    try:
        s.workspace_client().catalogs.create(name="outer")
        inner.makepyfile(test_inner="""
            import os

            def test_same_server(minilake, workspace_client):
                assert minilake.url == os.environ["EXPECTED"]
                assert minilake.kind == "url"
        """)
        monkeypatch.setenv("EXPECTED", s.url)
        run(inner, f"--minilake-url={s.url}").assert_outcomes(passed=1)
        monkeypatch.setenv("MINILAKE_URL", s.url)  # what the GitHub Action exports
        run(inner).assert_outcomes(passed=1)
        # Used, not owned: still running after both sessions (reset by them, as asked).
        assert s.ready()
        assert "outer" not in [c.name for c in s.workspace_client().catalogs.list()]
    finally:
        s.stop()


def test_sql_connection_and_spark(inner):
    pytest.importorskip("databricks.sql")
    inner.makepyfile(test_inner="""
        def test_sql(sql_connection):
            with sql_connection.cursor() as c:
                c.execute("SELECT 1 AS one, 'a' AS s")
                assert [tuple(r) for r in c.fetchall()] == [(1, "a")]

        def test_spark(spark):
            assert spark.range(3).count() == 3
    """)
    r = run(inner, f"--minilake-bin={BIN}", "-rs")
    try:
        import databricks.connect  # noqa: F401
    except ImportError:
        r.assert_outcomes(passed=1, skipped=1)
        assert "spark needs databricks-connect" in r.stdout.str()
    else:
        assert r.ret == 0


def test_tests_without_the_server_never_start_it(inner):
    inner.makepyfile(test_inner="def test_plain():\n    assert True\n")
    r = run(inner, "--minilake-bin=/nowhere/cli.js")
    r.assert_outcomes(passed=1)


def test_a_bad_marker_is_a_usage_error(inner):
    inner.makepyfile(test_inner="""
        import pytest

        @pytest.mark.minilake(isolation="sometimes")
        def test_a(minilake):
            pass
    """)
    r = run(inner, f"--minilake-bin={BIN}")
    assert "use one of reset, snapshot, none" in r.stdout.str() + r.stderr.str()
    assert r.ret != 0


def test_the_python_api_kill_and_restart_on_the_same_data(tmp_path):
    data = str(tmp_path / "data")
    s = start(bin=BIN, env={"MINILAKE_PERSIST": "1"}, data_dir=data)
    s.workspace_client().catalogs.create(name="kept")
    s.kill()
    assert s.proc.poll() is not None
    s2 = start(bin=BIN, env={"MINILAKE_PERSIST": "1"}, data_dir=data)
    try:
        assert "kept" in [c.name for c in s2.workspace_client().catalogs.list()]
    finally:
        s2.stop()
    assert os.path.isdir(data), "a data dir given by the caller is the caller's"
    s3 = start(bin=BIN)
    own = s3.data_dir
    s3.stop()
    assert not os.path.exists(own), "a data dir the plugin made is removed on stop"


def test_command_lines():
    assert command_for(BIN)[-1] == os.path.abspath(BIN) and command_for(BIN)[0].endswith("node")
    tgz = os.path.join(os.path.dirname(BIN), "x.tgz")
    open(tgz, "w").close()
    try:
        cmd = command_for(tgz)
        assert cmd[1:] == ["--yes", "--package", tgz, "minilake"] and cmd[0].endswith("npx")
    finally:
        os.unlink(tgz)
    with pytest.raises(MiniLakeStartError, match="no such file"):
        command_for("/nowhere/minilake.js")


def _docker_image():
    image = os.environ.get("MINILAKE_TEST_IMAGE", "minilake:slim")
    if not shutil.which("docker"):
        return None, "no docker client"
    if subprocess.run(["docker", "image", "inspect", image], capture_output=True).returncode != 0:
        return None, f"no image {image} (bash docker/build.sh --slim) or no daemon"
    return image, ""


def test_the_image_source(inner):
    image, why = _docker_image()
    if not image:
        pytest.skip(why)
    inner.makepyfile(test_inner="""
        def test_in_a_container(minilake, workspace_client):
            assert minilake.kind == "docker" and minilake.container
            open("container.txt", "w").write(minilake.container)
            workspace_client.catalogs.create(name="in_docker")
            assert "in_docker" in [c.name for c in workspace_client.catalogs.list()]

        def test_reset_there_too(workspace_client):
            assert "in_docker" not in [c.name for c in workspace_client.catalogs.list()]
    """)
    r = run(inner, f"--minilake-image={image}")
    r.assert_outcomes(passed=2)
    name = (inner.path / "container.txt").read_text()
    left = subprocess.run(["docker", "ps", "-aq", "--filter", f"name=^{name}$"], capture_output=True, text=True)
    assert left.returncode == 0 and left.stdout.strip() == "", f"container {name} left behind"
