"""The real Terraform and Databricks provider against MiniLake: the seeds' example, then a stack with one of
every common resource. Each must apply, plan empty the second time, notice out-of-band changes, import, and
destroy without leaving anything behind (checked through the API and on disk)."""
import glob
import os
import re
import time

from databricks.sdk.service.catalog import CatalogInfo  # noqa: F401  (documents the client the checks use)

HERE = os.path.dirname(__file__)
SEEDS = os.path.join(HERE, "..", "seeds", "terraform", "main.tf")
VERSIONS = 'terraform {\n  required_providers {\n    databricks = { source = "databricks/databricks" }\n  }\n}\n'


def read(path):
    with open(path) as f:
        return f.read()


def suffix():
    return f"{os.getpid()}{time.time_ns() % 10**6}"


def test_seeds_example_applies_plans_empty_and_destroys(server, api, terraform_factory):
    main = read(SEEDS).replace("http://localhost:8000", server.url)
    tf = terraform_factory({"versions.tf": VERSIONS, "main.tf": main})
    tf.init()
    tf.apply()
    assert api.get("/api/2.1/unity-catalog/schemas/sandbox.things").status_code == 200
    code, plan = tf.plan_exit()
    assert code == 0, plan
    tf.destroy()
    assert api.get("/api/2.1/unity-catalog/catalogs/sandbox").status_code == 404
    assert not [w for w in api.get("/api/2.0/sql/warehouses").json().get("warehouses", [])
                if w["name"] == "local-compute"]


def stack_files(server, me, sfx, extra=()):
    files = {"main.tf": read(os.path.join(HERE, "main.tf"))}
    for name in extra:
        files[name] = read(os.path.join(HERE, name))
    files["terraform.tfvars"] = f'host = "{server.url}"\nsuffix = "{sfx}"\nme = "{me}"\n'
    return files


def test_full_stack(server, api, w, terraform_factory):
    me = w.current_user.me().user_name
    sfx = suffix()
    cat = f"tf_{sfx}"
    tf = terraform_factory(stack_files(server, me, sfx))
    tf.init()
    tf.apply()

    # Second plan: nothing to change.
    code, plan = tf.plan_exit()
    assert code == 0, plan

    # Everything is really there.
    assert w.catalogs.get(cat).comment == "Local sandbox catalog"
    assert w.volumes.read(f"{cat}.things.landing").volume_type.value == "MANAGED"
    cols = [(c.name, c.type_text) for c in w.tables.get(f"{cat}.things.orders").columns]
    assert cols == [("id", "bigint"), ("amount", "decimal(10,2)")]
    assert any(s.name == f"tf-{sfx}" for s in w.secrets.list_scopes())
    assert [s.key for s in w.secrets.list_secrets(f"tf-{sfx}")] == ["api-token"]
    assert w.workspace.get_status(f"/Users/{me}/tf-{sfx}/explore").language.value == "PYTHON"
    job = next(j for j in w.jobs.list(name=f"tf-daily-{sfx}"))
    assert [t.task_key for t in w.jobs.get(job.job_id).settings.tasks] == ["explore", "load"]
    group = next(g for g in w.groups.list(filter=f'displayName eq "tf-engineers-{sfx}"'))
    assert [m.display for m in group.members or []] or group.members is not None

    # The catalog Terraform made is a real one: SQL writes and reads it.
    wh = next(x for x in w.warehouses.list() if x.name == f"local-compute-{sfx}")
    r = w.statement_execution.execute_statement(
        warehouse_id=wh.id, wait_timeout="30s",
        statement=f"INSERT INTO {cat}.things.orders VALUES (1, 12.50), (2, 7.25)")
    assert r.status.state.value == "SUCCEEDED", r.status
    r = w.statement_execution.execute_statement(
        warehouse_id=wh.id, wait_timeout="30s", statement=f"SELECT SUM(amount) FROM {cat}.things.orders")
    assert r.result.data_array == [["19.75"]]

    # An out-of-band change shows up in the next plan.
    w.catalogs.update(cat, comment="changed behind terraform's back")
    code, plan = tf.plan_exit()
    assert code == 2 and "changed behind terraform's back" in plan, plan
    tf.apply()
    code, plan = tf.plan_exit()
    assert code == 0, plan

    # A catalog made outside Terraform can be imported, after which the plan is empty.
    w.catalogs.create(name=f"imp_{sfx}", comment="made by the SDK")
    with open(os.path.join(tf.dir, "import.tf"), "w") as f:
        f.write(f'resource "databricks_catalog" "imported" {{\n  name    = "imp_{sfx}"\n'
                f'  comment = "made by the SDK"\n}}\n')
    tf.run("import", "-input=false", "databricks_catalog.imported", f"imp_{sfx}")
    code, plan = tf.plan_exit()
    assert code == 0, plan

    # Destroy leaves nothing behind, in the API or on disk.
    tf.destroy()
    for path in (f"/api/2.1/unity-catalog/catalogs/{cat}", f"/api/2.1/unity-catalog/catalogs/imp_{sfx}"):
        assert api.get(path).status_code == 404, path
    assert not [c for c in w.clusters.list() if c.cluster_name == f"tf-cluster-{sfx}"]
    assert not list(w.jobs.list(name=f"tf-daily-{sfx}"))
    assert not [p for p in w.instance_pools.list() if p.instance_pool_name == f"tf-pool-{sfx}"]
    assert not [p for p in w.cluster_policies.list() if p.name == f"tf-policy-{sfx}"]
    assert not [s for s in w.secrets.list_scopes() if s.name == f"tf-{sfx}"]
    assert not [x for x in w.warehouses.list() if x.name == f"local-compute-{sfx}"]
    assert not list(w.groups.list(filter=f'displayName eq "tf-engineers-{sfx}"'))
    assert api.get("/api/2.0/workspace/get-status", {"path": f"/Users/{me}/tf-{sfx}/explore"}).status_code == 404
    left = [p for p in glob.glob(os.path.join(server.data_dir, "**", "*"), recursive=True)
            if re.search(rf"(tf|imp)_{sfx}", p)]
    assert left == [], left
