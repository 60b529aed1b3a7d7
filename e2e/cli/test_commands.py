"""The Databricks CLI commands people type every day, against MiniLake, with `-o json` parsed and checked."""
import base64
import os

from minilake import unique


def test_identity_and_api(cli):
    me = cli.json("current-user", "me")
    assert me["userName"]
    catalogs = cli.run("api", "get", "/api/2.1/unity-catalog/catalogs").stdout
    assert '"catalogs"' in catalogs or catalogs.strip() == "{}"


def test_unity_catalog(cli, w):
    cat = unique("cli")
    cli.json("catalogs", "create", cat)
    assert cat in [c["name"] for c in cli.json("catalogs", "list")]
    s = cli.json("schemas", "create", "raw", cat)
    assert s["full_name"] == f"{cat}.raw"
    wh = w.warehouses.create_and_wait(name=unique("wh"), cluster_size="2X-Small")
    w.statement_execution.execute_statement(warehouse_id=wh.id, wait_timeout="30s",
                                            statement=f"CREATE TABLE {cat}.raw.events (id BIGINT, kind STRING)")
    tables = cli.json("tables", "list", cat, "raw")
    assert [t["name"] for t in tables] == ["events"]
    assert [c["name"] for c in tables[0]["columns"]] == ["id", "kind"]


def test_fs_on_dbfs_and_volumes(cli, tmp_path):
    cat = unique("fs")
    cli.json("catalogs", "create", cat)
    cli.json("volumes", "create", cat, "default", "v", "MANAGED")
    src = tmp_path / "hello.txt"
    src.write_text("hello from the cli\n")
    for base in (f"dbfs:/Volumes/{cat}/default/v/in", f"dbfs:/tmp/{cat}"):
        cli.run("fs", "mkdir", base)
        cli.run("fs", "cp", str(src), f"{base}/hello.txt")
        assert cli.run("fs", "cat", f"{base}/hello.txt").stdout == "hello from the cli\n"
        listing = cli.json("fs", "ls", base)
        assert [e["name"] for e in listing] == ["hello.txt"]
        out = tmp_path / f"back-{abs(hash(base))}.txt"
        cli.run("fs", "cp", f"{base}/hello.txt", str(out))
        assert out.read_text() == "hello from the cli\n"


def test_workspace_import_and_export_dir(cli, w, tmp_path):
    me = w.current_user.me().user_name
    src = tmp_path / "project"
    (src / "pkg").mkdir(parents=True)
    (src / "main.py").write_text("# Databricks notebook source\nprint('main')\n")
    (src / "pkg" / "util.py").write_text("def f():\n    return 1\n")
    (src / "query.sql").write_text("SELECT 1\n")
    target = f"/Users/{me}/{unique('ws')}"
    cli.run("workspace", "mkdirs", target)
    cli.run("workspace", "import-dir", str(src), target, "--overwrite")
    names = sorted(o["path"].rsplit("/", 1)[1] for o in cli.json("workspace", "list", target))
    assert names == ["main", "pkg", "query.sql"]
    out = tmp_path / "exported"
    cli.run("workspace", "export-dir", target, str(out))
    assert (out / "pkg" / "util.py").read_text() == "def f():\n    return 1\n"
    assert "print('main')" in (out / "main.py").read_text()


def test_secrets(cli, w):
    scope = unique("scope")
    cli.run("secrets", "create-scope", scope)
    cli.run("secrets", "put-secret", scope, "k", "--string-value", "v4lue")
    assert [s["key"] for s in cli.json("secrets", "list-secrets", scope)] == ["k"]
    assert scope in [s["name"] for s in cli.json("secrets", "list-scopes")]
    got = cli.json("secrets", "get-secret", scope, "k")
    assert base64.b64decode(got["value"]).decode() == "v4lue"


def test_compute_lists(cli, w):
    wh = w.warehouses.create(name=unique("wh"), cluster_size="2X-Small").result()
    assert wh.id in [x["id"] for x in cli.json("warehouses", "list")]
    assert isinstance(cli.json("clusters", "list"), list) or cli.json("clusters", "list") is None
    assert os.path.exists(cli.exe)
