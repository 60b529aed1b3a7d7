"""The real Terraform provider's databricks_pipeline (with a databricks_notebook and a databricks_file as its
sources, databricks_permissions on it) against MiniLake: apply, an empty second plan, the pipeline as the SDK
reads it, an in-place change, destroy. No update runs here (the provider starts none)."""
import os
import time

MAIN = '''
terraform {
  required_providers {
    databricks = { source = "databricks/databricks" }
  }
}
variable "host" {}
variable "suffix" {}
variable "rows" { default = "10" }
provider "databricks" {
  host  = var.host
  token = "dapi-minilake-e2e"
}
data "databricks_current_user" "me" {}
resource "databricks_catalog" "c" {
  name          = "tfpl_${var.suffix}"
  force_destroy = true
}
# The folder is its own resource: a notebook and a file created at once under a missing folder race inside the
# provider (each import fails; the one that then finds the folder the other made returns its first error).
resource "databricks_directory" "d" {
  path = "${data.databricks_current_user.me.home}/tfpl_${var.suffix}"
}
resource "databricks_notebook" "nb" {
  path           = "${databricks_directory.d.path}/numbers"
  language       = "PYTHON"
  content_base64 = base64encode("# Databricks notebook source\\nfrom pyspark import pipelines as dp\\n\\n@dp.materialized_view\\ndef numbers():\\n    return spark.range(10)\\n")
}
resource "databricks_workspace_file" "sql" {
  path           = "${databricks_directory.d.path}/doubled.sql"
  content_base64 = base64encode("CREATE MATERIALIZED VIEW doubled AS SELECT id * 2 AS x FROM numbers")
}
resource "databricks_pipeline" "p" {
  name        = "tf-pipeline-${var.suffix}"
  catalog     = databricks_catalog.c.name
  schema      = "etl"
  serverless  = true
  development = true
  configuration = {
    rows = var.rows
  }
  library {
    notebook {
      path = databricks_notebook.nb.path
    }
  }
  library {
    file {
      path = databricks_workspace_file.sql.path
    }
  }
}
resource "databricks_permissions" "p" {
  pipeline_id = databricks_pipeline.p.id
  access_control {
    group_name       = "users"
    permission_level = "CAN_VIEW"
  }
}
'''


def test_pipeline_apply_plan_empty_update_and_destroy(server, w, terraform_factory):
    sfx = f"{os.getpid()}{time.time_ns() % 10**6}"
    tf = terraform_factory({"main.tf": MAIN, "terraform.tfvars": f'host = "{server.url}"\nsuffix = "{sfx}"\n'})
    tf.init()
    tf.apply()
    code, plan = tf.plan_exit()
    assert code == 0, plan

    p = next(x for x in w.pipelines.list_pipelines() if x.name == f"tf-pipeline-{sfx}")
    got = w.pipelines.get(p.pipeline_id)
    assert got.spec.catalog == f"tfpl_{sfx}" and got.spec.schema == "etl"
    assert got.spec.edition == "ADVANCED" and got.spec.channel == "CURRENT"  # the provider's defaults, echoed
    assert [lib.notebook.path for lib in got.spec.libraries if lib.notebook][0].endswith("/numbers")
    assert any(a.group_name == "users" for a in w.pipelines.get_permissions(p.pipeline_id).access_control_list)

    # An in-place change (PUT, the same pipeline), then nothing more to do.
    with open(os.path.join(tf.dir, "terraform.tfvars"), "a") as f:
        f.write('rows = "20"\n')
    tf.apply()
    assert w.pipelines.get(p.pipeline_id).spec.configuration == {"rows": "20"}
    code, plan = tf.plan_exit()
    assert code == 0, plan

    tf.destroy()
    assert not [x for x in w.pipelines.list_pipelines() if x.name == f"tf-pipeline-{sfx}"]
