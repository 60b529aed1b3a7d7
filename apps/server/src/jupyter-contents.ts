/**
 * JupyterLab's contents manager over MiniLake's Workspace API (Python, written next to the kernel startup
 * file and named with --ServerApp.contents_manager_class): what JupyterLab opens, lists, saves, renames and
 * deletes is the workspace itself, so a notebook made in JupyterLab is a NOTEBOOK object that the Workspace API,
 * the CLI and jobs see, and one made anywhere else opens in JupyterLab.
 *
 * Jupyter's paths are the workspace's without the leading slash (`Users/me@example.com/etl.ipynb`): a
 * workspace NOTEBOOK `/Users/me@example.com/etl` shows as `etl.ipynb` (JupyterLab opens notebooks by that
 * extension; Databricks drops it on import), FILE and DIRECTORY objects keep their names, and objects of
 * other types (MLflow experiments) are not listed. Notebooks move as JUPYTER exports and imports; files as
 * RAW. The Workspace API has no move, so a rename is an export, an import and a delete. Checkpoints stay on
 * local disk (Jupyter's generic file checkpoints under the Jupyter folder): they are the editor's undo, not
 * workspace objects.
 */
export const CONTENTS_MODULE = 'minilake_contents';

export const CONTENTS_MANAGER = String.raw`import base64, datetime, hashlib, json, os, posixpath, urllib.error, urllib.parse, urllib.request

import nbformat
from tornado import web
from traitlets import default
from jupyter_server.services.contents.filecheckpoints import GenericFileCheckpoints
from jupyter_server.services.contents.manager import ContentsManager


def _time(ms):
    return datetime.datetime.fromtimestamp((ms or 0) / 1000, tz=datetime.timezone.utc)


class MiniLakeContentsManager(ContentsManager):
    """Jupyter contents backed by the MiniLake (Databricks) Workspace API at DATABRICKS_HOST."""

    @default("checkpoints_class")
    def _checkpoints_class_default(self):
        return GenericFileCheckpoints

    @default("checkpoints_kwargs")
    def _checkpoints_kwargs_default(self):
        return {"root_dir": os.path.join(os.environ.get("MINILAKE_JUPYTER_DIR", "."), ".checkpoints")}

    _seeded = False

    # ---- the Workspace API ----
    def _call(self, method, path, query=None, body=None):
        url = os.environ["DATABRICKS_HOST"].rstrip("/") + path
        if query:
            url += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(url, data=data, method=method, headers={
            "Authorization": "Bearer " + os.environ.get("DATABRICKS_TOKEN", ""),
            "Content-Type": "application/json",
        })
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                raw = r.read()
                return json.loads(raw) if raw else {}
        except urllib.error.HTTPError as e:
            try:
                msg = json.loads(e.read()).get("message", e.reason)
            except Exception:
                msg = e.reason
            raise web.HTTPError(e.code if e.code in (400, 403, 404, 409) else 500, msg)

    def _status(self, ws):
        try:
            return self._call("GET", "/api/2.0/workspace/get-status", {"path": ws})
        except web.HTTPError as e:
            if e.status_code == 404:
                return None
            raise

    @staticmethod
    def _ws(path):
        return "/" + path.strip("/")

    def _resolve(self, path):
        """(workspace path, ObjectInfo) of a Jupyter path, or (path, None) when nothing is there."""
        path = path.strip("/")
        if path.endswith(".ipynb"):
            nb = self._ws(path[: -len(".ipynb")])
            info = self._status(nb)
            if info and info.get("object_type") == "NOTEBOOK":
                return nb, info
        ws = self._ws(path)
        info = self._status(ws)
        if info and info.get("object_type") in ("FILE", "DIRECTORY"):
            return ws, info
        return ws, None

    # ---- what Jupyter asks ----
    def dir_exists(self, path):
        ws, info = self._resolve(path)
        return bool(info) and info["object_type"] == "DIRECTORY"

    def file_exists(self, path):
        ws, info = self._resolve(path)
        return bool(info) and info["object_type"] != "DIRECTORY"

    def is_hidden(self, path):
        return any(part.startswith(".") for part in path.strip("/").split("/") if part)

    def _model(self, path, info, kind):
        return {
            "name": posixpath.basename(path.strip("/")),
            "path": path.strip("/"),
            "type": kind,
            "writable": True,
            "created": _time(info.get("created_at")),
            "last_modified": _time(info.get("modified_at")),
            "content": None,
            "format": None,
            "mimetype": None,
            "size": info.get("size"),
            "hash": None,
            "hash_algorithm": None,
        }

    def _seed(self):
        """The starter notebook in the user's home folder, the first time JupyterLab looks."""
        if self._seeded:
            return
        self._seeded = True
        starter = os.environ.get("MINILAKE_JUPYTER_STARTER")
        if not starter or not os.path.exists(starter):
            return
        try:
            me = self._call("GET", "/api/2.0/preview/scim/v2/Me").get("userName")
            home = "/Users/" + me
            if self._status(home + "/minilake-starter") is None and self._status(home):
                with open(starter, "rb") as f:
                    content = base64.b64encode(f.read()).decode()
                self._call("POST", "/api/2.0/workspace/import", body={
                    "path": home + "/minilake-starter", "format": "JUPYTER", "content": content})
        except Exception as e:  # the starter is a convenience: never a reason to fail a listing
            self.log.warning("MiniLake starter notebook not placed: %s", e)

    def get(self, path, content=True, type=None, format=None, require_hash=False):
        self._seed()
        ws, info = self._resolve(path)
        if info is None:
            raise web.HTTPError(404, "No such file or directory: " + path)
        kind = info["object_type"]
        if kind == "DIRECTORY":
            if type not in (None, "directory"):
                raise web.HTTPError(400, path + " is a directory, not a " + type)
            model = self._model(path, info, "directory")
            if content:
                listed = self._call("GET", "/api/2.0/workspace/list", {"path": ws}).get("objects", [])
                entries = []
                for o in listed:
                    name = posixpath.basename(o["path"])
                    t = o.get("object_type")
                    if t == "NOTEBOOK":
                        name, sub = name + ".ipynb", "notebook"
                    elif t == "DIRECTORY":
                        sub = "directory"
                    elif t == "FILE":
                        sub = "file"
                    else:
                        continue
                    child = posixpath.join(path.strip("/"), name)
                    if self.is_hidden(child) and not self.allow_hidden:
                        continue
                    entries.append(self._model(child, o, sub))
                model.update(content=entries, format="json")
            return model
        if kind == "NOTEBOOK":
            model = self._model(path, info, "notebook")
            if content or require_hash:
                exported = self._call("GET", "/api/2.0/workspace/export", {"path": ws, "format": "JUPYTER"})
                raw = base64.b64decode(exported.get("content", ""))
                if require_hash:
                    model.update(hash=hashlib.sha256(raw).hexdigest(), hash_algorithm="sha256")
                if content:
                    nb = nbformat.reads(raw.decode("utf-8"), as_version=4)
                    self.mark_trusted_cells(nb, path)
                    model.update(content=nb, format="json", mimetype=None)
                    self.validate_notebook_model(model)
            return model
        model = self._model(path, info, "file")
        if content or require_hash:
            exported = self._call("GET", "/api/2.0/workspace/export", {"path": ws, "format": "AUTO"})
            raw = base64.b64decode(exported.get("content", ""))
            if require_hash:
                model.update(hash=hashlib.sha256(raw).hexdigest(), hash_algorithm="sha256")
            if content:
                if format != "base64":
                    try:
                        model.update(content=raw.decode("utf-8"), format="text", mimetype="text/plain")
                    except UnicodeDecodeError:
                        if format == "text":
                            raise web.HTTPError(400, path + " is not UTF-8 text")
                        format = "base64"
                if format == "base64":
                    model.update(content=base64.b64encode(raw).decode("ascii"), format="base64",
                                 mimetype="application/octet-stream")
        return model

    def save(self, model, path=""):
        path = path.strip("/")
        if "type" not in model:
            raise web.HTTPError(400, "No file type provided")
        if "content" not in model and model["type"] != "directory":
            raise web.HTTPError(400, "No file content provided")
        self.run_pre_save_hooks(model=model, path=path)
        kind = model["type"]
        if kind == "directory":
            self._call("POST", "/api/2.0/workspace/mkdirs", body={"path": self._ws(path)})
        elif kind == "notebook":
            nb = nbformat.from_dict(model["content"])
            self.check_and_sign(nb, path)
            text = nbformat.writes(nb, version=nbformat.NO_CONVERT)
            target = self._ws(path[: -len(".ipynb")] if path.endswith(".ipynb") else path)
            self._call("POST", "/api/2.0/workspace/import", body={
                "path": target, "format": "JUPYTER", "overwrite": True,
                "content": base64.b64encode(text.encode("utf-8")).decode("ascii")})
        elif kind == "file":
            raw = (base64.b64decode(model["content"]) if model.get("format") == "base64"
                   else (model["content"] or "").encode("utf-8"))
            self._call("POST", "/api/2.0/workspace/import", body={
                "path": self._ws(path), "format": "RAW", "overwrite": True,
                "content": base64.b64encode(raw).decode("ascii")})
        else:
            raise web.HTTPError(400, "Unhandled contents type: " + kind)
        out = self.get(path, content=False)
        self.run_post_save_hooks(model=out, os_path=None)
        return out

    def delete_file(self, path):
        ws, info = self._resolve(path)
        if info is None:
            raise web.HTTPError(404, "No such file or directory: " + path)
        self._call("POST", "/api/2.0/workspace/delete", body={"path": ws, "recursive": True})

    def rename_file(self, old_path, new_path):
        old_path, new_path = old_path.strip("/"), new_path.strip("/")
        if old_path == new_path:
            return
        if self._resolve(new_path)[1] is not None:
            raise web.HTTPError(409, "File already exists: " + new_path)
        self._copy_tree(old_path, new_path)
        self.delete_file(old_path)

    def _copy_tree(self, src, dst):
        model = self.get(src, content=True)
        if model["type"] == "directory":
            self.save({"type": "directory"}, dst)
            for child in model["content"]:
                self._copy_tree(child["path"], posixpath.join(dst, child["name"]))
        else:
            self.save(model, dst)
`;
