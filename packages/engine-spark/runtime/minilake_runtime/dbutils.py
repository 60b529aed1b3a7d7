"""A local `dbutils`: widgets from the task, secrets and files through MiniLake's REST API (the same paths the
Databricks SDK calls), notebook exit/run, and task values that flow to downstream tasks."""
import base64
import json
import os
import shutil
import time
from collections import namedtuple

from .rest import Rest, RestError, quote_path

FileInfo = namedtuple("FileInfo", ["path", "name", "size", "modificationTime"])
SecretMetadata = namedtuple("SecretMetadata", ["key"])
SecretScope = namedtuple("SecretScope", ["name"])

_BLOCK = 1024 * 1024  # the DBFS API's largest block and read length


class InputWidgetNotDefined(Exception):
    """The name Databricks gives this failure (com.databricks.dbutils_v1.InputWidgetNotDefined)."""


class NotebookExit(BaseException):
    """dbutils.notebook.exit: a BaseException so a user's `except Exception` does not swallow it."""

    def __init__(self, value):
        super().__init__(value)
        self.value = value


class WorkflowException(Exception):
    """dbutils.notebook.run of a notebook that failed, as Databricks names it."""


# ---------------------------------------------------------------------------------------------- widgets


class Widgets:
    def __init__(self, values):
        self._values = dict(values)

    def get(self, name):
        if name not in self._values:
            raise InputWidgetNotDefined("No input widget named %s is defined" % name)
        return self._values[name]

    def getArgument(self, name, defaultValue=None):  # noqa: N802 (Databricks' spelling)
        return self._values.get(name, defaultValue)

    def getAll(self):  # noqa: N802
        return dict(self._values)

    def _define(self, name, defaultValue):
        # A value passed by the job (base_parameters, notebook_params) wins over the widget's default.
        self._values.setdefault(name, "" if defaultValue is None else str(defaultValue))

    def text(self, name, defaultValue="", label=None):  # noqa: N803
        self._define(name, defaultValue)

    def dropdown(self, name, defaultValue, choices, label=None):  # noqa: N803
        self._define(name, defaultValue)

    def combobox(self, name, defaultValue, choices, label=None):  # noqa: N803
        self._define(name, defaultValue)

    def multiselect(self, name, defaultValue, choices, label=None):  # noqa: N803
        self._define(name, defaultValue)

    def remove(self, name):
        self._values.pop(name, None)

    def removeAll(self):  # noqa: N802
        self._values.clear()


# ---------------------------------------------------------------------------------------------- secrets


class Secrets:
    def __init__(self, rest, on_secret):
        self._rest = rest
        self._on_secret = on_secret

    def getBytes(self, scope, key):  # noqa: N802
        try:
            r = self._rest.get("/api/2.0/secrets/get", scope=scope, key=key)
        except RestError as e:
            if e.status == 404:
                raise ValueError("Secret does not exist with scope: %s and key: %s" % (scope, key)) from None
            raise
        value = base64.b64decode(r.get("value", ""))
        try:
            self._on_secret(value.decode("utf-8"))
        except UnicodeDecodeError:
            pass
        return value

    def get(self, scope, key):
        return self.getBytes(scope, key).decode("utf-8")

    def list(self, scope):
        r = self._rest.get("/api/2.0/secrets/list", scope=scope)
        return [SecretMetadata(s["key"]) for s in r.get("secrets", [])]

    def listScopes(self):  # noqa: N802
        r = self._rest.get("/api/2.0/secrets/scopes/list")
        return [SecretScope(s["name"]) for s in r.get("scopes", [])]


# ---------------------------------------------------------------------------------------------- fs


class _Dbfs:
    scheme = "dbfs:"

    def __init__(self, rest):
        self.rest = rest

    def stat(self, p):
        try:
            s = self.rest.get("/api/2.0/dbfs/get-status", path=p)
        except RestError as e:
            if e.status == 404:
                return None
            raise
        return self._info(s)

    def _info(self, s):
        d = bool(s.get("is_dir"))
        p = s["path"].rstrip("/") + ("/" if d else "")
        name = os.path.basename(s["path"].rstrip("/")) + ("/" if d else "")
        return FileInfo("dbfs:" + p, name, 0 if d else s.get("file_size", 0), s.get("modification_time", 0)), d

    def list(self, p):
        r = self.rest.get("/api/2.0/dbfs/list", path=p)
        return [self._info(f)[0] for f in r.get("files", [])]

    def read(self, p, limit=None):
        out = bytearray()
        while limit is None or len(out) < limit:
            n = _BLOCK if limit is None else min(_BLOCK, limit - len(out))
            r = self.rest.get("/api/2.0/dbfs/read", path=p, offset=len(out), length=n)
            chunk = base64.b64decode(r.get("data", ""))
            out += chunk
            if r.get("bytes_read", len(chunk)) < n or not chunk:
                break
        return bytes(out)

    def write(self, p, data, overwrite):
        h = self.rest.post("/api/2.0/dbfs/create", {"path": p, "overwrite": overwrite})["handle"]
        for i in range(0, len(data), _BLOCK):
            self.rest.post("/api/2.0/dbfs/add-block", {"handle": h, "data": base64.b64encode(data[i : i + _BLOCK]).decode()})
        self.rest.post("/api/2.0/dbfs/close", {"handle": h})

    def mkdirs(self, p):
        self.rest.post("/api/2.0/dbfs/mkdirs", {"path": p})

    def delete(self, p, is_dir, recurse):
        self.rest.post("/api/2.0/dbfs/delete", {"path": p, "recursive": recurse})

    def move(self, a, b):
        self.rest.post("/api/2.0/dbfs/move", {"source_path": a, "destination_path": b})
        return True


class _Volumes:
    """Unity Catalog volume paths through the Files API (/api/2.0/fs/files, /api/2.0/fs/directories)."""

    scheme = "dbfs:"

    def __init__(self, rest):
        self.rest = rest

    def _head(self, kind, p):
        try:
            self.rest.request("HEAD", "/api/2.0/fs/%s%s" % (kind, quote_path(p)), expect_json=False)
            return True
        except RestError as e:
            if e.status == 404:
                return False
            raise

    def stat(self, p):
        p = p.rstrip("/") or "/"
        if self._head("files", p):
            # HEAD gives no JSON; the parent listing carries size and modification time.
            parent, name = os.path.dirname(p), os.path.basename(p)
            for f in self.list(parent):
                if f.name == name:
                    return f, False
            return FileInfo("dbfs:" + p, name, 0, 0), False
        if self._head("directories", p):
            return FileInfo("dbfs:" + p + "/", os.path.basename(p) + "/", 0, 0), True
        return None

    def list(self, p):
        out, token = [], None
        while True:
            r = self.rest.request("GET", "/api/2.0/fs/directories" + quote_path(p.rstrip("/") or "/"), query={"page_token": token})
            for f in r.get("contents", []):
                d = bool(f.get("is_directory"))
                fp = f["path"].rstrip("/") + ("/" if d else "")
                out.append(FileInfo("dbfs:" + fp, f.get("name", os.path.basename(f["path"].rstrip("/"))) + ("/" if d else ""), 0 if d else f.get("file_size", 0), f.get("last_modified", 0)))
            token = r.get("next_page_token")
            if not token:
                return out

    def read(self, p, limit=None):
        data = self.rest.request("GET", "/api/2.0/fs/files" + quote_path(p), expect_json=False)
        return data if limit is None else data[:limit]

    def write(self, p, data, overwrite):
        self.rest.request("PUT", "/api/2.0/fs/files" + quote_path(p), query={"overwrite": "true" if overwrite else "false"}, raw=data, expect_json=False)

    def mkdirs(self, p):
        self.rest.request("PUT", "/api/2.0/fs/directories" + quote_path(p), expect_json=False)

    def delete(self, p, is_dir, recurse):
        if not is_dir:
            self.rest.request("DELETE", "/api/2.0/fs/files" + quote_path(p), expect_json=False)
            return
        # The Files API deletes only empty directories: recurse here, as dbutils does.
        if recurse:
            for f in self.list(p):
                child = f.path[len("dbfs:") :]
                self.delete(child.rstrip("/"), f.name.endswith("/"), True)
        self.rest.request("DELETE", "/api/2.0/fs/directories" + quote_path(p.rstrip("/")), expect_json=False)

    def move(self, a, b):
        return False  # no server-side move: copy and delete


class _Local:
    scheme = "file:"

    def _info(self, p):
        st = os.stat(p)
        d = os.path.isdir(p)
        return FileInfo("file:" + p.rstrip("/") + ("/" if d else ""), os.path.basename(p.rstrip("/")) + ("/" if d else ""), 0 if d else st.st_size, int(st.st_mtime * 1000)), d

    def stat(self, p):
        return self._info(p) if os.path.exists(p) else None

    def list(self, p):
        return [self._info(os.path.join(p, n))[0] for n in sorted(os.listdir(p))]

    def read(self, p, limit=None):
        with open(p, "rb") as f:
            return f.read() if limit is None else f.read(limit)

    def write(self, p, data, overwrite):
        if os.path.exists(p) and not overwrite:
            raise FileExistsError("File already exists: file:" + p)
        os.makedirs(os.path.dirname(p) or "/", exist_ok=True)
        with open(p, "wb") as f:
            f.write(data)

    def mkdirs(self, p):
        os.makedirs(p, exist_ok=True)

    def delete(self, p, is_dir, recurse):
        if is_dir:
            shutil.rmtree(p) if recurse else os.rmdir(p)
        else:
            os.remove(p)

    def move(self, a, b):
        os.makedirs(os.path.dirname(b) or "/", exist_ok=True)
        os.replace(a, b)
        return True


class Fs:
    def __init__(self, rest):
        self._dbfs, self._vol, self._local = _Dbfs(rest), _Volumes(rest), _Local()

    def _resolve(self, path):
        """Databricks' path forms: dbfs:/x and /x are DBFS, /Volumes/... (with or without dbfs:) go to the
        Files API, file:/x is the local disk."""
        if not isinstance(path, str) or not path:
            raise ValueError("A path is required")
        if path.startswith("file:"):
            p = path[len("file:") :]
            if p.startswith("//"):
                p = p[2:]
            return self._local, os.path.normpath(p)
        if path.startswith("dbfs:"):
            path = path[len("dbfs:") :]
        elif "://" in path:
            raise ValueError("MiniLake's dbutils.fs serves dbfs:/, /Volumes and file:/ paths, not %s" % path)
        if not path.startswith("/"):
            path = "/" + path
        p = os.path.normpath(path)
        if p == "/Volumes" or p.startswith("/Volumes/"):
            return self._vol, p
        return self._dbfs, p

    def ls(self, dir):
        b, p = self._resolve(dir)
        s = b.stat(p)
        if s is None:
            raise FileNotFoundError("No such file or directory: %s" % dir)
        info, is_dir = s
        return b.list(p) if is_dir else [info]

    def head(self, file, maxBytes=65536):  # noqa: N803
        b, p = self._resolve(file)
        return b.read(p, maxBytes).decode("utf-8", "replace")

    def put(self, file, contents, overwrite=False):
        b, p = self._resolve(file)
        data = contents.encode("utf-8") if isinstance(contents, str) else bytes(contents)
        b.write(p, data, overwrite)
        print("Wrote %d bytes." % len(data))
        return True

    def mkdirs(self, dir):
        b, p = self._resolve(dir)
        b.mkdirs(p)
        return True

    def rm(self, dir, recurse=False):
        b, p = self._resolve(dir)
        s = b.stat(p)
        if s is None:
            return False
        b.delete(p, s[1], recurse)
        return True

    def _copy(self, sb, sp, db, dp, recurse):
        s = sb.stat(sp)
        if s is None:
            raise FileNotFoundError("No such file or directory: %s" % sp)
        if s[1]:
            if not recurse:
                raise ValueError("Cannot copy directory %s unless recurse is set to true" % sp)
            db.mkdirs(dp)
            for f in sb.list(sp):
                n = f.name.rstrip("/")
                self._copy(sb, os.path.join(sp, n), db, os.path.join(dp, n), True)
        else:
            db.write(dp, sb.read(sp), True)

    def cp(self, from_, to, recurse=False):
        sb, sp = self._resolve(from_)
        db, dp = self._resolve(to)
        self._copy(sb, sp, db, dp, recurse)
        return True

    def mv(self, from_, to, recurse=False):
        sb, sp = self._resolve(from_)
        db, dp = self._resolve(to)
        if sb is db and sb.move(sp, dp):
            return True
        s = sb.stat(sp)
        self._copy(sb, sp, db, dp, True if s and s[1] else recurse)
        sb.delete(sp, bool(s and s[1]), True)
        return True


# ---------------------------------------------------------------------------------------------- jobs


class TaskValues:
    def __init__(self, upstream, on_change):
        self._upstream = upstream
        self._mine = {}
        self._on_change = on_change

    def set(self, key, value):
        # Databricks keeps the JSON form; a value that does not serialise fails at set time, as there.
        json.dumps(value)
        self._mine[key] = value
        self._on_change(dict(self._mine))

    def get(self, taskKey, key, default=None, debugValue=None):  # noqa: N803
        values = self._upstream.get(taskKey)
        if values is not None and key in values:
            return values[key]
        if default is not None:
            return default
        if values is None:
            raise ValueError("No task named %s ran upstream of this task (or it set no values)" % taskKey)
        raise ValueError("Task %s set no value for key %s, and no default was given" % (taskKey, key))

    def all(self):
        return dict(self._mine)


class Jobs:
    def __init__(self, task_values):
        self.taskValues = task_values


class Notebook:
    def __init__(self, rest, source_path):
        self._rest = rest
        self._source_path = source_path

    def exit(self, value):
        raise NotebookExit("" if value is None else str(value))

    def run(self, path, timeout_seconds=0, arguments=None):
        """Runs another notebook as a one-time job run (POST /api/2.2/jobs/runs/submit) and returns its
        dbutils.notebook.exit value, as Databricks' ephemeral notebook runs do."""
        if not path.startswith("/"):
            if not self._source_path:
                raise ValueError("dbutils.notebook.run(%r): a relative path needs the calling notebook's workspace path" % path)
            path = os.path.normpath(os.path.join(os.path.dirname(self._source_path), path))
        body = {
            "run_name": "dbutils.notebook.run " + path,
            "tasks": [{"task_key": "notebook", "notebook_task": {"notebook_path": path, "base_parameters": {k: str(v) for k, v in (arguments or {}).items()}}}],
        }
        if timeout_seconds:
            body["timeout_seconds"] = int(timeout_seconds)
        try:
            run_id = self._rest.post("/api/2.2/jobs/runs/submit", body)["run_id"]
        except RestError as e:
            if e.status == 501:
                raise NotImplementedError("dbutils.notebook.run needs MiniLake's Jobs API (runs/submit), which this server does not serve") from None
            raise
        while True:
            r = self._rest.get("/api/2.2/jobs/runs/get", run_id=run_id)
            st = r.get("state", {})
            if st.get("life_cycle_state") in ("TERMINATED", "INTERNAL_ERROR", "SKIPPED"):
                break
            time.sleep(0.2)
        task_run = (r.get("tasks") or [{}])[0].get("run_id", run_id)
        out = self._rest.get("/api/2.2/jobs/runs/get-output", run_id=task_run)
        if st.get("result_state") != "SUCCESS":
            raise WorkflowException("Notebook %s ended %s: %s" % (path, st.get("result_state") or st.get("life_cycle_state"), out.get("error") or st.get("state_message", "")))
        return (out.get("notebook_output") or {}).get("result", "")


class DBUtils:
    def __init__(self, task, on_secret, on_task_values):
        rest = Rest()
        self.widgets = Widgets(task.get("widgets") or {})
        self.secrets = Secrets(rest, on_secret)
        self.fs = Fs(rest)
        self.notebook = Notebook(rest, task.get("sourcePath"))
        self.jobs = Jobs(TaskValues(task.get("taskValues") or {}, on_task_values))

    def help(self):
        print("MiniLake dbutils: fs, secrets, widgets, notebook (exit, run), jobs.taskValues")
