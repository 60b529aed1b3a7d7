# The seeds' Terraform example (catalog, schema, SQL warehouse) extended with one of every resource a data
# engineer's workspace stack typically holds. e2e/terraform/test_terraform.py applies it, expects an empty
# second plan, changes things out of band, imports, and destroys it.
terraform {
  required_providers {
    databricks = { source = "databricks/databricks" }
  }
}

variable "host" {}
variable "suffix" {}
variable "me" {}

provider "databricks" {
  host  = var.host
  token = "dapi-minilake-e2e"
}

resource "databricks_catalog" "sandbox" {
  name    = "tf_${var.suffix}"
  comment = "Local sandbox catalog"
  properties = {
    owner_team = "data"
  }
}

resource "databricks_schema" "things" {
  catalog_name = databricks_catalog.sandbox.name
  name         = "things"
  comment      = "schema made by terraform"
}

resource "databricks_sql_endpoint" "compute" {
  name             = "local-compute-${var.suffix}"
  cluster_size     = "Small"
  max_num_clusters = 1
  auto_stop_mins   = 10
}

resource "databricks_volume" "landing" {
  name         = "landing"
  catalog_name = databricks_catalog.sandbox.name
  schema_name  = databricks_schema.things.name
  volume_type  = "MANAGED"
  comment      = "raw files"
}

resource "databricks_sql_table" "orders" {
  name         = "orders"
  catalog_name = databricks_catalog.sandbox.name
  schema_name  = databricks_schema.things.name
  table_type   = "MANAGED"
  warehouse_id = databricks_sql_endpoint.compute.id
  comment      = "orders table"
  column {
    name = "id"
    type = "bigint"
  }
  column {
    name    = "amount"
    type    = "decimal(10,2)"
    comment = "order total"
  }
}

resource "databricks_secret_scope" "app" {
  name = "tf-${var.suffix}"
}

resource "databricks_secret" "token" {
  scope        = databricks_secret_scope.app.name
  key          = "api-token"
  string_value = "s3cr3t"
}

resource "databricks_cluster_policy" "small" {
  name = "tf-policy-${var.suffix}"
  definition = jsonencode({
    "spark_version" = { type = "fixed", value = "15.4.x-scala2.12" }
    "autotermination_minutes" = { type = "range", maxValue = 60, defaultValue = 30 }
  })
}

resource "databricks_instance_pool" "pool" {
  instance_pool_name                    = "tf-pool-${var.suffix}"
  node_type_id                          = "i3.xlarge"
  min_idle_instances                    = 0
  idle_instance_autotermination_minutes = 10
}

resource "databricks_cluster" "single" {
  cluster_name            = "tf-cluster-${var.suffix}"
  spark_version           = "15.4.x-scala2.12"
  node_type_id            = "i3.xlarge"
  num_workers             = 0
  autotermination_minutes = 20
  spark_conf = {
    "spark.databricks.cluster.profile" = "singleNode"
    "spark.master"                     = "local[*]"
  }
  custom_tags = {
    "ResourceClass" = "SingleNode"
  }
}

resource "databricks_group" "engineers" {
  display_name = "tf-engineers-${var.suffix}"
}

resource "databricks_user" "analyst" {
  user_name    = "analyst-${var.suffix}@example.com"
  display_name = "Analyst ${var.suffix}"
}

resource "databricks_group_member" "analyst" {
  group_id  = databricks_group.engineers.id
  member_id = databricks_user.analyst.id
}

resource "databricks_grants" "catalog" {
  catalog = databricks_catalog.sandbox.name
  grant {
    principal  = databricks_group.engineers.display_name
    privileges = ["USE_CATALOG"]
  }
}

resource "databricks_grants" "schema" {
  schema = databricks_schema.things.id
  grant {
    principal  = databricks_group.engineers.display_name
    privileges = ["USE_SCHEMA", "SELECT"]
  }
}

# The folder is its own resource: a notebook and a file created at once under a folder that does not exist yet
# race inside the provider (each import fails, each checks the parent, and the one that finds it already made
# by the other returns its first error without retrying), against any workspace.
resource "databricks_directory" "tf" {
  path = "/Users/${var.me}/tf-${var.suffix}"
}

resource "databricks_notebook" "explore" {
  path           = "${databricks_directory.tf.path}/explore"
  language       = "PYTHON"
  content_base64 = base64encode("# Databricks notebook source\nprint('hello')\n")
}

resource "databricks_workspace_file" "load" {
  path           = "${databricks_directory.tf.path}/load.py"
  content_base64 = base64encode("print('load')\n")
}

resource "databricks_permissions" "cluster" {
  cluster_id = databricks_cluster.single.id
  access_control {
    group_name       = databricks_group.engineers.display_name
    permission_level = "CAN_RESTART"
  }
}

resource "databricks_permissions" "warehouse" {
  sql_endpoint_id = databricks_sql_endpoint.compute.id
  access_control {
    group_name       = databricks_group.engineers.display_name
    permission_level = "CAN_USE"
  }
}

resource "databricks_job" "daily" {
  name = "tf-daily-${var.suffix}"
  task {
    task_key            = "explore"
    existing_cluster_id = databricks_cluster.single.id
    notebook_task {
      notebook_path = databricks_notebook.explore.path
      base_parameters = {
        "day" = "today"
      }
    }
  }
  task {
    task_key = "load"
    depends_on {
      task_key = "explore"
    }
    existing_cluster_id = databricks_cluster.single.id
    spark_python_task {
      python_file = databricks_workspace_file.load.path
      parameters  = ["--full"]
    }
  }
  schedule {
    quartz_cron_expression = "0 0 6 * * ?"
    timezone_id            = "UTC"
    pause_status           = "PAUSED"
  }
}

resource "databricks_permissions" "job" {
  job_id = databricks_job.daily.id
  access_control {
    group_name       = databricks_group.engineers.display_name
    permission_level = "CAN_MANAGE_RUN"
  }
}
