"""Workspace API through the real databricks-sdk: notebooks and files round-trip byte for byte."""
import base64
import io
import json
from urllib.parse import quote

import pytest
from databricks.sdk.errors import NotFound, PermissionDenied, ResourceAlreadyExists, BadRequest
from databricks.sdk.service.workspace import ExportFormat, ImportFormat, Language, ObjectType

from conftest import raw_request, unique


@pytest.fixture
def home(w):
    return f"/Users/{w.current_user.me().user_name}"


def test_home_exists_and_upload_download_round_trip(w, home):
    assert w.workspace.get_status(home).object_type == ObjectType.DIRECTORY
    d = f"{home}/{unique('py')}"
    w.workspace.mkdirs(d)
    src = b"# Databricks notebook source\nprint('hello')\n\n# COMMAND ----------\n\nx = 1\n"
    w.workspace.upload(f"{d}/nb", src, language=Language.PYTHON)
    with w.workspace.download(f"{d}/nb") as f:
        assert f.read() == src
    st = w.workspace.get_status(f"/Workspace{d}/nb")
    assert st.object_type == ObjectType.NOTEBOOK and st.language == Language.PYTHON
    # asked with the /Workspace prefix, answered with it, as Databricks does
    assert st.path == f"/Workspace{d}/nb" and st.object_id > 0
    assert w.workspace.get_status(f"{d}/nb").object_id == st.object_id

    w.workspace.upload(f"{d}/data.csv", io.BytesIO(b"a,b\n1,2\n"), format=ImportFormat.AUTO)
    assert w.workspace.get_status(f"{d}/data.csv").object_type == ObjectType.FILE
    with w.workspace.download(f"{d}/data.csv") as f:
        assert f.read() == b"a,b\n1,2\n"

    names = sorted(o.path for o in w.workspace.list(d))
    assert names == [f"{d}/data.csv", f"{d}/nb"]
    with pytest.raises(ResourceAlreadyExists):
        w.workspace.upload(f"{d}/nb", src, language=Language.PYTHON)
    w.workspace.upload(f"{d}/nb", src.replace(b"hello", b"again"), language=Language.PYTHON, overwrite=True)


def test_import_export_formats(w, home):
    d = f"{home}/{unique('fmt')}"
    w.workspace.mkdirs(d)
    sql = "-- Databricks notebook source\nSELECT 1\n"
    w.workspace.import_(path=f"{d}/q", content=base64.b64encode(sql.encode()).decode(),
                        format=ImportFormat.SOURCE, language=Language.SQL)
    out = w.workspace.export(f"{d}/q", format=ExportFormat.SOURCE)
    assert base64.b64decode(out.content).decode() == sql
    assert w.workspace.get_status(f"{d}/q").language == Language.SQL

    ipynb = json.dumps({"cells": [{"cell_type": "code", "source": ["1 + 1"], "metadata": {}, "outputs": [],
                                   "execution_count": None}],
                        "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5})
    w.workspace.import_(path=f"{d}/j.ipynb", content=base64.b64encode(ipynb.encode()).decode(),
                        format=ImportFormat.JUPYTER)
    back = w.workspace.export(f"{d}/j", format=ExportFormat.JUPYTER)
    assert base64.b64decode(back.content).decode() == ipynb

    py = "# Databricks notebook source\na = 1\n\n# COMMAND ----------\n\nb = 2\n"
    w.workspace.import_(path=f"{d}/p", content=base64.b64encode(py.encode()).decode(),
                        format=ImportFormat.SOURCE, language=Language.PYTHON)
    nb = json.loads(base64.b64decode(w.workspace.export(f"{d}/p", format=ExportFormat.JUPYTER).content))
    assert ["".join(c["source"]) for c in nb["cells"]] == ["a = 1", "b = 2"]


def test_delete_and_errors(w, home):
    d = f"{home}/{unique('del')}"
    w.workspace.mkdirs(f"{d}/sub")
    w.workspace.upload(f"{d}/sub/f.txt", b"x", format=ImportFormat.AUTO)
    with pytest.raises(BadRequest) as e:
        w.workspace.delete(d)
    assert e.value.error_code == "DIRECTORY_NOT_EMPTY"
    w.workspace.delete(d, recursive=True)
    with pytest.raises(NotFound):
        w.workspace.get_status(d)
    with pytest.raises(NotFound):
        w.workspace.list(f"{home}/nope-{unique()}").__next__()


def test_system_folders_cannot_be_deleted(w, home):
    keep = f"{home}/{unique('keep')}"
    w.workspace.mkdirs(keep)
    for p in ("/Users", "/Shared", home):
        with pytest.raises(PermissionDenied) as e:
            w.workspace.delete(p, recursive=True)
        assert e.value.error_code == "PERMISSION_DENIED"
    assert w.workspace.get_status(keep).object_type == ObjectType.DIRECTORY


def test_permissions_need_a_real_workspace_object(w, home):
    d = f"{home}/{unique('perm')}"
    w.workspace.mkdirs(d)
    w.workspace.import_(path=f"{d}/nb", content=base64.b64encode(b"print(1)").decode(),
                        format=ImportFormat.SOURCE, language=Language.PYTHON)
    nb_id = str(w.workspace.get_status(f"{d}/nb").object_id)
    dir_id = str(w.workspace.get_status(d).object_id)
    assert w.permissions.get("notebooks", nb_id).object_id == f"/notebooks/{nb_id}"
    assert w.permissions.get("directories", dir_id).object_type == "directory"
    with pytest.raises(NotFound):
        w.permissions.get("notebooks", dir_id)  # a folder's id is not a notebook's
    with pytest.raises(NotFound):
        w.permissions.get("notebooks", "987654321")
    w.workspace.delete(d, recursive=True)
    with pytest.raises(NotFound):
        w.permissions.get("notebooks", nb_id)


def test_cli_escaped_workspace_files_paths(w, url, home):
    """The Databricks CLI v1.12.1 (bundle deploy, workspace import-dir) escapes the whole path into one segment."""
    root = f"{home}/.bundle/{unique('b')}/dev"
    w.workspace.mkdirs(f"{root}/files")
    w.workspace.mkdirs(f"{root}/state")
    esc = lambda p: quote(p.lstrip("/"), safe="")
    status, body = raw_request(url, "POST", f"/api/2.0/workspace-files/import-file/{esc(root + '/files/databricks.yml')}"
                        "?overwrite=true", b"bundle:\n  name: demo\n")
    assert status == 200, body
    assert w.workspace.get_status(f"{root}/files/databricks.yml").object_type == ObjectType.FILE
    with w.workspace.download(f"{root}/files/databricks.yml", format=ExportFormat.AUTO) as f:
        assert f.read() == b"bundle:\n  name: demo\n"
    state = json.dumps({"state_version": 1}).encode()
    assert raw_request(url, "POST", f"/api/2.0/workspace-files/import-file/{esc(root + '/state/resources.json')}"
                "?overwrite=true", state)[0] == 200
    # later deploys and destroy read the state back this way
    assert raw_request(url, "GET", f"/api/2.0/workspace-files/{esc(root + '/state/resources.json')}") == (200, state)
    # an escape hidden in the escaped segment never gets through
    for bad in ["Users%2F..%2F..%2F..%2Fetc%2Fescape.py", "Users%2F%2e%2e%2F%2e%2e%2Fescape.py", "Users%2Fa%00b.py"]:
        assert raw_request(url, "POST", f"/api/2.0/workspace-files/import-file/{bad}?overwrite=true", b"x")[0] == 400
        assert raw_request(url, "GET", f"/api/2.0/workspace-files/{bad}")[0] == 400
