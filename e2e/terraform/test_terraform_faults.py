"""Issue 30's faults through the real Terraform provider: `terraform apply` of a catalog and a schema succeeds
although the catalog's create answers 503 TEMPORARILY_UNAVAILABLE twice (the provider's databricks-sdk-go client
retries it), the second plan is empty (the retries made exactly one catalog), and destroy removes it."""
from minilake import unique

CATALOGS = "/api/2.1/unity-catalog/catalogs"
MAIN = """
terraform {
  required_providers {
    databricks = { source = "databricks/databricks" }
  }
}

provider "databricks" {
  host  = "%(host)s"
  token = "dapi-minilake-e2e"
}

resource "databricks_catalog" "c" {
  name    = "%(name)s"
  comment = "made through injected faults"
}

resource "databricks_schema" "s" {
  catalog_name = databricks_catalog.c.name
  name         = "raw"
}
"""


def test_apply_survives_two_503s_on_create(server, api, terraform_factory):
    name = unique("tf_faults")
    tf = terraform_factory({"main.tf": MAIN % {"host": server.url, "name": name}})
    tf.init()
    r = api.post("/_minilake/faults", {"method": "POST", "path": CATALOGS, "status": 503,
                                      "error_code": "TEMPORARILY_UNAVAILABLE", "message": "injected", "count": 2})
    assert r.status_code == 200, r.text
    fid = r.json()["id"]
    try:
        tf.apply()
        used = {f["id"]: f["used"] for f in api.get("/_minilake/faults").json()["faults"]}
        assert used == {fid: 2}
        assert api.get(f"{CATALOGS}/{name}").json()["comment"] == "made through injected faults"
        assert api.get(f"/api/2.1/unity-catalog/schemas/{name}.raw").status_code == 200
        code, plan = tf.plan_exit()
        assert code == 0, plan
        tf.destroy()
        assert api.get(f"{CATALOGS}/{name}").status_code == 404
    finally:
        api.s.delete(api.url + "/_minilake/faults", timeout=30)
