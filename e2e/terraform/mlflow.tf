# MLflow with the real provider: an experiment in a workspace folder with permissions, a registered model in
# Unity Catalog with grants. e2e/terraform/test_mlflow.py applies it, expects an empty second plan, and
# destroys it.
terraform {
  required_providers {
    databricks = { source = "databricks/databricks" }
  }
}

variable "host" {}
variable "suffix" {}

provider "databricks" {
  host  = var.host
  token = "dapi-minilake-e2e"
}

data "databricks_current_user" "me" {}

resource "databricks_directory" "ml" {
  path = "${data.databricks_current_user.me.home}/tf-ml-${var.suffix}"
}

resource "databricks_mlflow_experiment" "exp" {
  name = "${databricks_directory.ml.path}/experiment"
}

resource "databricks_permissions" "exp" {
  experiment_id = databricks_mlflow_experiment.exp.id
  access_control {
    group_name       = "users"
    permission_level = "CAN_READ"
  }
}

resource "databricks_catalog" "c" {
  name          = "tfml_${var.suffix}"
  force_destroy = true
}

resource "databricks_schema" "s" {
  catalog_name  = databricks_catalog.c.name
  name          = "models"
  force_destroy = true
}

resource "databricks_registered_model" "m" {
  catalog_name = databricks_catalog.c.name
  schema_name  = databricks_schema.s.name
  name         = "churn"
  comment      = "made by terraform"
}

resource "databricks_grants" "m" {
  model = databricks_registered_model.m.id
  grant {
    principal  = "users"
    privileges = ["EXECUTE"]
  }
}

output "experiment_id" {
  value = databricks_mlflow_experiment.exp.id
}
