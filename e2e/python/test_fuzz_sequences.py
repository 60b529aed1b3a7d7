"""Issue 30, robustness: seeded random request sequences per main store, checked against a small model.

test_fuzz.py sends every case alone; state bugs show in sequences (delete twice, update after delete, create
under a deleted parent, rename onto an existing name, re-create after delete). Per store, a few names, a seeded
sequence of STEPS steps from the store's operations (valid and invalid bodies), and after EVERY step:
- the answer's status is the one the model predicts (the status Databricks uses for that outcome, as each
  package documents it: UC and secrets 404 for a missing object, jobs and clusters 400 INVALID_PARAMETER_VALUE,
  a duplicate 409 or 400 RESOURCE_ALREADY_EXISTS), never a 5xx, every error `{error_code, message}`;
- an acknowledged write is in the model, a refused one changed nothing: each name's get and the store's list
  (restricted to this test's names) agree with the model, fields included.
On a mismatch the seed, the store and the sequence so far are printed. Raw `requests` throughout: the point is
the exact status and body of every answer, invalid steps included, which the SDK would turn into exceptions.
SEQ_SEED / SEQ_STEPS override the defaults."""
import os
import random
import time

import pytest
import requests

SEED = int(os.environ.get("SEQ_SEED", "30"))
STEPS = int(os.environ.get("SEQ_STEPS", "40"))
UC = "/api/2.1/unity-catalog"
BAD = {"unexpected": ["object"]}  # a wrong-typed string field: 400 INVALID_PARAMETER_VALUE, nothing written


class Mismatch(AssertionError):
    pass


class Run:
    """One store's sequence: the session, the log of steps, the checks."""

    def __init__(self, url, store, seed):
        self.url, self.store, self.seed = url, store, seed
        self.rng = random.Random(f"{seed}:{store}")
        self.s = requests.Session()
        self.s.headers["Authorization"] = "Bearer dapi-seq"
        self.log = []  # the steps (the checks' requests are not steps: only the current check's are kept)
        self.checking = []
        self.in_check = False

    def fail(self, what):
        steps = "\n".join(f"  {i + 1:3}. {x}" for i, x in enumerate(self.log))
        checks = "\n".join(f"       {x}" for x in self.checking) if self.in_check else ""
        raise Mismatch(f"{self.store} (SEQ_SEED={self.seed}): {what}\nsequence so far:\n{steps}\n"
                       f"  check after the last step:\n{checks}")

    def call(self, method, path, body=None, params=None):
        r = self.s.request(method, self.url + path, json=body, params=params, timeout=30)
        (self.checking if self.in_check else self.log).append(
            f"{method} {path} {params or ''} {body if body is not None else ''} -> {r.status_code}")
        if r.status_code >= 500:
            self.fail(f"{r.status_code}: {r.text[:300]}")
        try:
            j = r.json() if r.content else {}
        except ValueError:
            self.fail(f"{r.status_code} not JSON: {r.text[:200]!r}")
        if r.status_code >= 400 and not (isinstance(j, dict) and isinstance(j.get("error_code"), str)
                                         and isinstance(j.get("message"), str)):
            self.fail(f"{r.status_code} not Databricks-shaped: {r.text[:200]!r}")
        return r.status_code, j

    def expect(self, got, *want, code=None):
        status, j = got
        if status not in want:
            self.fail(f"expected {want}, got {status} {j}")
        if code and status >= 400 and j.get("error_code") not in code:
            self.fail(f"expected error_code in {code}, got {j}")
        return j


NOT_FOUND = ("RESOURCE_DOES_NOT_EXIST", "NOT_FOUND", "CATALOG_DOES_NOT_EXIST", "SCHEMA_DOES_NOT_EXIST",
             "VOLUME_DOES_NOT_EXIST")
EXISTS = ("RESOURCE_ALREADY_EXISTS", "CATALOG_ALREADY_EXISTS", "SCHEMA_ALREADY_EXISTS", "VOLUME_ALREADY_EXISTS",
          "ALREADY_EXISTS")


# --- Unity Catalog: catalogs > schemas > volumes, with renames moving children ---------------------------------

def _uc(run):
    p = f"seq{run.seed}"
    cats = [f"{p}_c1", f"{p}_c2"]
    schs = ["s1", "s2"]
    vols = ["v1", "v2"]
    model = {}  # full name -> comment (catalogs "c", schemas "c.s", volumes "c.s.v")
    rng = run.rng

    def kind(full):
        return ("catalogs", "schemas", "volumes")[full.count(".")]

    def children(full):
        return [k for k in model if k.startswith(full + ".")]

    def check():
        for c in cats:
            st, j = run.call("GET", f"{UC}/catalogs/{c}")
            run.expect((st, j), 200 if c in model else 404, code=None if c in model else NOT_FOUND)
            if c in model and (j.get("comment") or "") != model[c]:
                run.fail(f"catalog {c} comment {j.get('comment')!r}, model {model[c]!r}")
        listed = {x["name"] for x in run.expect(run.call("GET", f"{UC}/catalogs"), 200).get("catalogs") or []}
        if listed & set(cats) != {c for c in cats if c in model}:
            run.fail(f"catalog list {sorted(listed & set(cats))}, model {sorted(k for k in model if '.' not in k)}")
        for c in cats:
            if c not in model:
                continue
            got = {x["full_name"]: x.get("comment") or "" for x in run.expect(
                run.call("GET", f"{UC}/schemas", params={"catalog_name": c}), 200).get("schemas") or []}
            want = {k: v for k, v in model.items() if k.count(".") == 1 and k.startswith(c + ".")}
            if {k: v for k, v in got.items() if k.split(".")[1] in schs} != want:
                run.fail(f"schemas of {c}: {got}, model {want}")
            for s in want:
                got = {x["full_name"]: x.get("comment") or "" for x in run.expect(run.call(
                    "GET", f"{UC}/volumes", params={"catalog_name": c, "schema_name": s.split(".")[1]}),
                    200).get("volumes") or []}
                wantv = {k: v for k, v in model.items() if k.count(".") == 2 and k.startswith(s + ".")}
                if got != wantv:
                    run.fail(f"volumes of {s}: {got}, model {wantv}")
                for v in vols:
                    full = f"{s}.{v}"
                    run.expect(run.call("GET", f"{UC}/volumes/{full}"), 200 if full in model else 404)

    def create(full):
        k = kind(full)
        parts = full.split(".")
        parent = ".".join(parts[:-1])
        comment = f"c{rng.randrange(100)}"
        body = {"name": parts[-1], "comment": comment}
        if k == "schemas":
            body["catalog_name"] = parts[0]
        if k == "volumes":
            body.update(catalog_name=parts[0], schema_name=parts[1], volume_type="MANAGED")
        got = run.call("POST", f"{UC}/{k}", body)
        if parent and parent not in model:
            run.expect(got, 404, code=NOT_FOUND)
        elif full in model:
            run.expect(got, 409, code=EXISTS)
        else:
            j = run.expect(got, 200)
            if j.get("full_name", j.get("name")) != full:
                run.fail(f"created {full}, answer names {j.get('full_name')}")
            model[full] = comment

    def update(full, valid):
        k = kind(full)
        comment = f"u{rng.randrange(100)}"
        got = run.call("PATCH", f"{UC}/{k}/{full}", {"comment": comment if valid else BAD})
        if not valid:
            run.expect(got, 400, *(() if full in model else (404,)))
        elif full not in model:
            run.expect(got, 404, code=NOT_FOUND)
        else:
            run.expect(got, 200)
            model[full] = comment

    def rename(full, to):
        k = kind(full)
        parent = full.rsplit(".", 1)[0] if "." in full else ""
        new_full = f"{parent}.{to}" if parent else to
        got = run.call("PATCH", f"{UC}/{k}/{full}", {"new_name": to})
        if full not in model:
            run.expect(got, 404, code=NOT_FOUND)
        elif new_full == full:
            run.expect(got, 200, 400, 409)  # renaming onto itself: a no-op or refused, never a half-write
        elif new_full in model:
            run.expect(got, 409, 400, code=EXISTS + ("INVALID_PARAMETER_VALUE",))
        else:
            run.expect(got, 200)
            for old in [full] + children(full):
                model[new_full + old[len(full):]] = model.pop(old)

    def delete(full):
        k = kind(full)
        got = run.call("DELETE", f"{UC}/{k}/{full}", params={"force": "true"})
        if full not in model:
            run.expect(got, 404, code=NOT_FOUND)
        else:
            run.expect(got, 200)
            for x in [full] + children(full):
                model.pop(x)

    def any_name():
        c = rng.choice(cats)
        r = rng.random()
        if r < 0.3:
            return c
        s = f"{c}.{rng.choice(schs)}"
        return s if r < 0.65 else f"{s}.{rng.choice(vols)}"

    ops = [(4, lambda: create(any_name())), (2, lambda: update(any_name(), True)),
           (2, lambda: update(any_name(), False)), (1, lambda: rename(*_rn(any_name(), cats, schs, vols, rng))),
           (2, lambda: delete(any_name()))]
    return ops, check, lambda: [run.call("DELETE", f"{UC}/catalogs/{c}", params={"force": "true"}) for c in cats]


def _rn(full, cats, schs, vols, rng):
    pool = (cats, schs, vols)[full.count(".")]
    return full, rng.choice(pool)


# --- Jobs --------------------------------------------------------------------------------------------------------

def _jobs(run):
    names = [f"seq{run.seed}_j1", f"seq{run.seed}_j2"]
    ids = {}  # name -> job_id of its live job (names are not unique in Jobs: one job per name here)
    gone = []  # ids deleted: get/update/delete of them is 400 INVALID_PARAMETER_VALUE "Job N does not exist."
    model = {}  # job_id -> max_concurrent_runs
    rng = run.rng

    def target():
        n = rng.choice(names)
        if n in ids:
            return ids[n]
        return rng.choice(gone) if gone else 987654321

    def create():
        n = rng.choice([x for x in names if x not in ids] or names)
        if n in ids:
            return
        mcr = rng.randrange(1, 5)
        j = run.expect(run.call("POST", "/api/2.2/jobs/create", {"name": n, "max_concurrent_runs": mcr}), 200)
        ids[n] = j["job_id"]
        model[j["job_id"]] = mcr

    def update(valid):
        jid = target()
        mcr = rng.randrange(1, 9)
        got = run.call("POST", "/api/2.2/jobs/update",
                       {"job_id": jid, "new_settings": {"max_concurrent_runs": mcr} if valid else "nope"})
        if jid not in model or not valid:
            run.expect(got, 400, code=("INVALID_PARAMETER_VALUE", "MALFORMED_REQUEST"))
        else:
            run.expect(got, 200)
            model[jid] = mcr

    def delete():
        jid = target()
        got = run.call("POST", "/api/2.2/jobs/delete", {"job_id": jid})
        if jid not in model:
            run.expect(got, 400, code=("INVALID_PARAMETER_VALUE",))
        else:
            run.expect(got, 200)
            model.pop(jid)
            gone.append(jid)
            for n, i in list(ids.items()):
                if i == jid:
                    ids.pop(n)

    def check():
        for jid in list(model) + gone[-2:]:
            st, j = run.call("GET", "/api/2.2/jobs/get", params={"job_id": jid})
            if jid in model:
                run.expect((st, j), 200)
                if j["settings"].get("max_concurrent_runs") != model[jid]:
                    run.fail(f"job {jid} max_concurrent_runs {j['settings'].get('max_concurrent_runs')}, "
                             f"model {model[jid]}")
            else:
                run.expect((st, j), 400, code=("INVALID_PARAMETER_VALUE",))
        listed = set()
        for n in names:
            j = run.expect(run.call("GET", "/api/2.2/jobs/list", params={"name": n, "limit": 100}), 200)
            listed |= {x["job_id"] for x in j.get("jobs") or []}
        if listed != set(model):
            run.fail(f"jobs listed {sorted(listed)}, model {sorted(model)}")

    ops = [(3, create), (2, lambda: update(True)), (2, lambda: update(False)), (2, delete)]
    return ops, check, lambda: [run.call("POST", "/api/2.2/jobs/delete", {"job_id": i}) for i in model]


# --- Secret scopes and secrets -----------------------------------------------------------------------------------

def _secrets(run):
    scopes = [f"seq{run.seed}_s1", f"seq{run.seed}_s2"]
    keys = ["k1", "k2"]
    model = {}  # scope -> {key: value}
    rng = run.rng

    def create_scope():
        sc = rng.choice(scopes)
        got = run.call("POST", "/api/2.0/secrets/scopes/create", {"scope": sc})
        if sc in model:
            run.expect(got, 400, 409, code=EXISTS)
        else:
            run.expect(got, 200)
            model[sc] = {}

    def delete_scope():
        sc = rng.choice(scopes)
        got = run.call("POST", "/api/2.0/secrets/scopes/delete", {"scope": sc})
        if sc in model:
            run.expect(got, 200)
            model.pop(sc)
        else:
            run.expect(got, 404, code=NOT_FOUND)

    def put(valid):
        sc, k = rng.choice(scopes), rng.choice(keys)
        v = f"val{rng.randrange(1000)}"
        got = run.call("POST", "/api/2.0/secrets/put", {"scope": sc, "key": k, "string_value": v if valid else BAD})
        if not valid:
            run.expect(got, 400, *(() if sc in model else (404,)))
        elif sc not in model:
            run.expect(got, 404, code=NOT_FOUND)
        else:
            run.expect(got, 200)
            model[sc][k] = v

    def delete():
        sc, k = rng.choice(scopes), rng.choice(keys)
        got = run.call("POST", "/api/2.0/secrets/delete", {"scope": sc, "key": k})
        if sc in model and k in model[sc]:
            run.expect(got, 200)
            model[sc].pop(k)
        else:
            run.expect(got, 404, code=NOT_FOUND)

    def check():
        j = run.expect(run.call("GET", "/api/2.0/secrets/scopes/list"), 200)
        listed = {x["name"] for x in j.get("scopes") or []} & set(scopes)
        if listed != set(model):
            run.fail(f"scopes listed {sorted(listed)}, model {sorted(model)}")
        for sc in scopes:
            got = run.call("GET", "/api/2.0/secrets/list", params={"scope": sc})
            if sc not in model:
                run.expect(got, 404, code=NOT_FOUND)
                continue
            ks = {x["key"] for x in run.expect(got, 200).get("secrets") or []}
            if ks != set(model[sc]):
                run.fail(f"secrets of {sc}: {sorted(ks)}, model {sorted(model[sc])}")
            for k in keys:
                got = run.call("GET", "/api/2.0/secrets/get", params={"scope": sc, "key": k})
                if k in model[sc]:
                    import base64
                    val = base64.b64decode(run.expect(got, 200)["value"]).decode()
                    if val != model[sc][k]:
                        run.fail(f"secret {sc}/{k} = {val!r}, model {model[sc][k]!r}")
                else:
                    run.expect(got, 404, code=NOT_FOUND)

    ops = [(3, create_scope), (2, delete_scope), (3, lambda: put(True)), (1, lambda: put(False)), (2, delete)]
    return ops, check, lambda: [run.call("POST", "/api/2.0/secrets/scopes/delete", {"scope": s}) for s in model]


# --- Workspace objects and folders -------------------------------------------------------------------------------

def _workspace(run):
    import base64
    root = f"/Users/seq{run.seed}_{os.getpid()}"
    dirs = [f"{root}/d1", f"{root}/d2", f"{root}/d1/sub"]
    files = [f"{root}/d1/f1", f"{root}/d2/f2", f"{root}/d1/sub/f3"]
    model = {}  # path -> "DIRECTORY" | content
    rng = run.rng
    run.expect(run.call("POST", "/api/2.0/workspace/mkdirs", {"path": root}), 200)

    def parent(p):
        return p.rsplit("/", 1)[0]

    def exists_dir(p):
        return p == root or model.get(p) == "DIRECTORY"

    def mkdirs():
        d = rng.choice(dirs)
        got = run.call("POST", "/api/2.0/workspace/mkdirs", {"path": d})
        if d in model and model[d] != "DIRECTORY":
            run.expect(got, 400, code=("RESOURCE_ALREADY_EXISTS", "INVALID_PARAMETER_VALUE"))
            return
        run.expect(got, 200)
        p = d
        while p != root:  # mkdirs makes the missing parents
            model[p] = "DIRECTORY"
            p = parent(p)

    def put(overwrite, valid=True):
        f = rng.choice(files)
        content = f"print({rng.randrange(1000)})"
        body = {"path": f, "format": "SOURCE", "language": "PYTHON", "overwrite": overwrite,
                "content": base64.b64encode(content.encode()).decode() if valid else BAD}
        got = run.call("POST", "/api/2.0/workspace/import", body)
        if not valid:
            run.expect(got, 400, 404)
        elif not exists_dir(parent(f)):
            run.expect(got, 404, code=NOT_FOUND)
        elif f in model and not overwrite:
            run.expect(got, 400, 409, code=EXISTS)
        else:
            run.expect(got, 200)
            model[f] = content

    def delete(recursive):
        p = rng.choice(dirs + files)
        got = run.call("POST", "/api/2.0/workspace/delete", {"path": p, "recursive": recursive})
        if p not in model:
            run.expect(got, 404, code=NOT_FOUND)
        elif model[p] == "DIRECTORY" and not recursive and any(k.startswith(p + "/") for k in model):
            run.expect(got, 400, code=("DIRECTORY_NOT_EMPTY",))
        else:
            run.expect(got, 200)
            for k in [k for k in model if k == p or k.startswith(p + "/")]:
                model.pop(k)

    def check():
        for p in dirs + files:
            got = run.call("GET", "/api/2.0/workspace/get-status", params={"path": p})
            if p not in model:
                run.expect(got, 404, code=NOT_FOUND)
                continue
            j = run.expect(got, 200)
            want = "DIRECTORY" if model[p] == "DIRECTORY" else "NOTEBOOK"
            if j.get("object_type") != want:
                run.fail(f"{p} is {j.get('object_type')}, model {want}")
            if want == "NOTEBOOK":
                e = run.expect(run.call("GET", "/api/2.0/workspace/export",
                                        params={"path": p, "format": "SOURCE"}), 200)
                text = base64.b64decode(e["content"]).decode()
                if model[p] not in text:
                    run.fail(f"{p} exports {text!r}, model {model[p]!r}")
        for d in [root] + dirs:
            got = run.call("GET", "/api/2.0/workspace/list", params={"path": d})
            if not exists_dir(d):
                run.expect(got, 404, code=NOT_FOUND)
                continue
            listed = {x["path"] for x in run.expect(got, 200).get("objects") or []}
            want = {k for k in model if parent(k) == d}
            if listed != want:
                run.fail(f"list {d}: {sorted(listed)}, model {sorted(want)}")

    ops = [(3, mkdirs), (3, lambda: put(False)), (2, lambda: put(True)), (1, lambda: put(True, False)),
           (1, lambda: delete(False)), (2, lambda: delete(True))]
    return ops, check, lambda: run.call("POST", "/api/2.0/workspace/delete", {"path": root, "recursive": True})


# --- SQL warehouses ----------------------------------------------------------------------------------------------

def _warehouses(run):
    names = [f"seq{run.seed}_w1", f"seq{run.seed}_w2"]
    ids = {}  # name -> id
    gone = []  # deleted: GET answers state DELETED, edit 400 INVALID_STATE, delete 404
    model = {}  # id -> (name, auto_stop_mins)
    rng = run.rng

    def target():
        n = rng.choice(names)
        return ids.get(n) or (rng.choice(gone) if gone else "0123456789abcdef")

    def create():
        n = rng.choice(names)
        if n in ids:
            return
        a = rng.randrange(10, 60)
        j = run.expect(run.call("POST", "/api/2.0/sql/warehouses", {"name": n, "cluster_size": "2X-Small",
                                                                     "max_num_clusters": 1, "auto_stop_mins": a}),
                       200)
        ids[n] = j["id"]
        model[j["id"]] = (n, a)

    def edit(valid):
        wid = target()
        a = rng.randrange(10, 60)
        got = run.call("POST", f"/api/2.0/sql/warehouses/{wid}/edit", {"auto_stop_mins": a if valid else BAD})
        if not valid:
            run.expect(got, 400, *(() if wid in model else (404,)))
        elif wid in gone:  # a deleted warehouse "can no longer be used"
            run.expect(got, 400, code=("INVALID_STATE",))
        elif wid not in model:
            run.expect(got, 404, code=NOT_FOUND)
        else:
            run.expect(got, 200)
            model[wid] = (model[wid][0], a)

    def delete():
        wid = target()
        got = run.call("DELETE", f"/api/2.0/sql/warehouses/{wid}")
        if wid not in model:
            run.expect(got, 404, code=NOT_FOUND)
        else:
            run.expect(got, 200)
            n = model.pop(wid)[0]
            ids.pop(n)
            gone.append(wid)

    def check():
        for wid in list(model) + gone[-2:]:
            got = run.call("GET", f"/api/2.0/sql/warehouses/{wid}")
            if wid not in model:
                # Databricks keeps answering GET for a deleted warehouse (state DELETED); it is not listed.
                if run.expect(got, 200).get("state") != "DELETED":
                    run.fail(f"deleted warehouse {wid} answers state {got[1].get('state')}")
                continue
            j = run.expect(got, 200)
            if (j.get("name"), j.get("auto_stop_mins")) != model[wid]:
                run.fail(f"warehouse {wid} is {(j.get('name'), j.get('auto_stop_mins'))}, model {model[wid]}")
        j = run.expect(run.call("GET", "/api/2.0/sql/warehouses"), 200)
        listed = {x["id"] for x in j.get("warehouses") or [] if x.get("name") in names}
        if listed != set(model):
            run.fail(f"warehouses listed {sorted(listed)}, model {sorted(model)}")

    ops = [(3, create), (2, lambda: edit(True)), (1, lambda: edit(False)), (2, delete)]
    return ops, check, lambda: [run.call("DELETE", f"/api/2.0/sql/warehouses/{i}") for i in model]


# --- Clusters ----------------------------------------------------------------------------------------------------

def _clusters(run):
    names = [f"seq{run.seed}_k1", f"seq{run.seed}_k2"]
    ids = {}  # name -> cluster_id
    gone = []  # permanently deleted: every endpoint answers 400 INVALID_PARAMETER_VALUE "Cluster <id> does not exist"
    model = {}  # cluster_id -> (cluster_name, num_workers); terminated clusters stay (listed, gettable, editable)
    rng = run.rng
    spec = {"spark_version": "15.4.x-scala2.12", "node_type_id": "i3.xlarge", "autotermination_minutes": 60}

    def target():
        n = rng.choice(names)
        return ids.get(n) or (rng.choice(gone) if gone else "0000-000000-missing0")

    def create():
        n = rng.choice(names)
        if n in ids:
            return
        k = rng.randrange(0, 4)
        j = run.expect(run.call("POST", "/api/2.1/clusters/create", {**spec, "cluster_name": n, "num_workers": k}),
                       200)
        ids[n] = j["cluster_id"]
        model[j["cluster_id"]] = (n, k)

    def edit(valid):
        cid = target()
        k = rng.randrange(0, 4)
        name = model[cid][0] if cid in model else "x"
        got = run.call("POST", "/api/2.1/clusters/edit",
                       {**spec, "cluster_id": cid, "cluster_name": name, "num_workers": k if valid else BAD})
        if cid not in model or not valid:
            run.expect(got, 400, code=("INVALID_PARAMETER_VALUE", "MALFORMED_REQUEST"))
        elif run.expect(got, 200, 400, code=("INVALID_STATE",)) is not None and got[0] == 200:
            # States move on the clock (MINILAKE_CLUSTER_*_DELAY): an edit while the cluster is between
            # states (Terminating, ...) is 400 INVALID_STATE, as Databricks answers it, and changes nothing.
            model[cid] = (name, k)

    def terminate():
        cid = target()
        got = run.call("POST", "/api/2.1/clusters/delete", {"cluster_id": cid})
        run.expect(got, 200 if cid in model else 400)

    def permanent_delete():
        cid = target()
        got = run.call("POST", "/api/2.1/clusters/permanent-delete", {"cluster_id": cid})
        if cid not in model:
            run.expect(got, 400, code=("INVALID_PARAMETER_VALUE",))
        else:
            run.expect(got, 200)
            ids.pop(model.pop(cid)[0])
            gone.append(cid)

    def check():
        for cid in list(model) + gone[-2:]:
            got = run.call("GET", "/api/2.1/clusters/get", params={"cluster_id": cid})
            if cid not in model:
                run.expect(got, 400, code=("INVALID_PARAMETER_VALUE",))
                continue
            j = run.expect(got, 200)
            if (j.get("cluster_name"), j.get("num_workers", 0)) != model[cid]:
                run.fail(f"cluster {cid} is {(j.get('cluster_name'), j.get('num_workers'))}, model {model[cid]}")
        j = run.expect(run.call("GET", "/api/2.1/clusters/list"), 200)
        listed = {x["cluster_id"] for x in j.get("clusters") or [] if x.get("cluster_name") in names}
        if listed != set(model):
            run.fail(f"clusters listed {sorted(listed)}, model {sorted(model)}")

    ops = [(3, create), (2, lambda: edit(True)), (1, lambda: edit(False)), (2, terminate), (2, permanent_delete)]
    return ops, check, lambda: [run.call("POST", "/api/2.1/clusters/permanent-delete", {"cluster_id": i})
                                for i in model]


STORES = {"clusters": _clusters, "unity_catalog": _uc, "jobs": _jobs, "secrets": _secrets, "workspace": _workspace,
          "warehouses": _warehouses}


@pytest.mark.parametrize("store", sorted(STORES))
def test_sequence(store, url):
    run = Run(url, store, SEED)
    ops, check, cleanup = STORES[store](run)
    weights = [w for w, _ in ops]
    t0 = time.monotonic()

    def checked():
        run.in_check, run.checking = True, []
        check()
        run.in_check = False

    checked()
    for _ in range(STEPS):
        run.rng.choices(ops, weights)[0][1]()
        checked()
    cleanup()
    # Jobs, clusters and warehouses skip a create of a name in use (their names are not unique keys).
    print(f"\nsequence {store}: {STEPS} steps, {len(run.log)} requests besides the checks, "
          f"{time.monotonic() - t0:.1f}s")
