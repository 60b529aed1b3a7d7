"""Issue 30's proof through the real Terraform provider: with MINILAKE_AUTH=tokens MINILAKE_ENFORCE=1 a workdir
authenticated as a service principal (provider `client_id` + `client_secret`, OAuth M2M with a secret from the
service principal secrets API) reads a table and a job and creates a schema; its apply fails with Databricks'
error until the admin's workdir applies `databricks_grants` (USE_CATALOG, CREATE_SCHEMA, USE_SCHEMA, SELECT) and
`databricks_permissions` (CAN_MANAGE_RUN on the job), then succeeds; both second plans are empty, and destroy
takes the service principal's schema and then the grants away."""
import json

import pytest

from minilake import unique
from tools_fixtures import ENFORCED, TOKEN, ServicePrincipal, admin_objects, server_fixture

server = server_fixture(ENFORCED)

PROVIDER = """
terraform {
  required_providers {
    databricks = { source = "databricks/databricks" }
  }
}
"""

ADMIN = PROVIDER + """
provider "databricks" {
  host  = "%(host)s"
  token = "%(token)s"
}

resource "databricks_grants" "catalog" {
  catalog = "%(cat)s"
  grant {
    principal  = "%(app)s"
    privileges = ["USE_CATALOG", "CREATE_SCHEMA"]
  }
}

resource "databricks_grants" "schema" {
  schema = "%(cat)s.s"
  grant {
    principal  = "%(app)s"
    privileges = ["USE_SCHEMA"]
  }
}

resource "databricks_grants" "table" {
  table = "%(cat)s.s.t"
  grant {
    principal  = "%(app)s"
    privileges = ["SELECT"]
  }
}

resource "databricks_permissions" "job" {
  job_id = "%(job)s"
  access_control {
    service_principal_name = "%(app)s"
    permission_level       = "CAN_MANAGE_RUN"
  }
}
"""

BOT = PROVIDER + """
provider "databricks" {
  host          = "%(host)s"
  client_id     = "%(app)s"
  client_secret = "%(secret)s"
}

data "databricks_current_user" "me" {}

data "databricks_table" "t" {
  name = "%(cat)s.s.t"
}

data "databricks_job" "j" {
  job_id = "%(job)s"
}

resource "databricks_schema" "bot" {
  catalog_name = "%(cat)s"
  name         = "made_by_bot"
}

output "me" {
  value = data.databricks_current_user.me.user_name
}

output "columns" {
  value = [for c in data.databricks_table.t.table_info[0].columns : c.name]
}

output "job_name" {
  value = data.databricks_job.j.job_settings[0].settings[0].name
}
"""


@pytest.fixture(scope="module")
def setup(server):
    """What the admin owns: catalog <cat> with table s.t and a job; a service principal with no grant."""
    objects = admin_objects(server, "trust_tf")
    return {**objects, "sp": ServicePrincipal(objects["w"], unique("trust-tf-bot"))}


def test_grants_and_permissions_let_the_service_principal_apply(server, api, setup, terraform_factory):
    w, cat, job, sp = setup["w"], setup["cat"], setup["job"], setup["sp"]
    values = {"host": server.url, "token": TOKEN, "cat": cat, "job": job, "app": sp.application_id,
              "secret": sp.secret}
    # The bot's workdir has no token: only the provider's client_id/client_secret authenticate it.
    bot = terraform_factory({"main.tf": BOT % values}, env={"DATABRICKS_TOKEN": None})
    admin = terraform_factory({"main.tf": ADMIN % values})
    bot.init()
    admin.init()

    # Before any grant: the plan already fails reading the table and the job, with Databricks' messages.
    p = bot.run("apply", "-auto-approve", "-input=false", check=False)
    assert p.returncode != 0
    assert f"User does not have USE CATALOG on Catalog '{cat}'" in p.stderr, p.stdout[-2000:] + p.stderr
    assert f"does not have View or Admin or Manage Run or Owner permissions on job {job}" in p.stderr, p.stderr
    assert api.get(f"/api/2.1/unity-catalog/schemas/{cat}.made_by_bot").status_code == 404

    admin.apply()
    code, plan = admin.plan_exit()
    assert code == 0, plan
    grants = api.get(f"/api/2.1/unity-catalog/permissions/catalog/{cat}").json()
    assert {"principal": sp.application_id, "privileges": ["CREATE_SCHEMA", "USE_CATALOG"]} in [
        {**a, "privileges": sorted(a["privileges"])} for a in grants["privilege_assignments"]]
    levels = {a.get("service_principal_name"): a["all_permissions"][0]["permission_level"]
              for a in api.get(f"/api/2.0/permissions/jobs/{job}").json()["access_control_list"]}
    assert levels[sp.application_id] == "CAN_MANAGE_RUN"

    bot.apply()
    out = {k: v["value"] for k, v in json.loads(bot.run("output", "-json").stdout).items()}
    assert out == {"me": sp.application_id, "columns": ["id", "v"], "job_name": setup["job_name"]}
    schema = api.get(f"/api/2.1/unity-catalog/schemas/{cat}.made_by_bot").json()
    assert schema["owner"] == sp.application_id
    code, plan = bot.plan_exit()
    assert code == 0, plan

    # The bot destroys what it made; the admin's destroy takes the grants and the job permission away.
    bot.destroy()
    assert api.get(f"/api/2.1/unity-catalog/schemas/{cat}.made_by_bot").status_code == 404
    admin.destroy()
    for securable, name in (("catalog", cat), ("schema", f"{cat}.s"), ("table", f"{cat}.s.t")):
        assignments = api.get(f"/api/2.1/unity-catalog/permissions/{securable}/{name}").json()
        assert sp.application_id not in [a["principal"] for a in assignments.get("privilege_assignments", [])]
    acl = api.get(f"/api/2.0/permissions/jobs/{job}").json()["access_control_list"]
    assert sp.application_id not in [a.get("service_principal_name") for a in acl]
    # Refused again.
    p = bot.run("plan", "-input=false", check=False)
    assert p.returncode != 0 and f"User does not have USE CATALOG on Catalog '{cat}'" in p.stderr, p.stderr
    assert w.catalogs.get(cat).name == cat
