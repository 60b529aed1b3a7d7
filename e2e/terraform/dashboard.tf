# An AI/BI dashboard the way Terraform users keep one: the .lvdash.json beside the configuration, in a folder
# the stack makes, on a warehouse it makes. e2e/terraform/test_dashboard.py applies it, expects an empty
# second plan, changes the file and applies again, then destroys it.
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

resource "databricks_sql_endpoint" "bi" {
  name             = "tf-bi-${var.suffix}"
  cluster_size     = "2X-Small"
  max_num_clusters = 1
}

resource "databricks_directory" "dashboards" {
  path = "/Users/${var.me}/tf-dashboards-${var.suffix}"
}

resource "databricks_dashboard" "sales" {
  display_name      = "Sales ${var.suffix}"
  parent_path       = databricks_directory.dashboards.path
  warehouse_id      = databricks_sql_endpoint.bi.id
  file_path         = "${path.module}/sales.lvdash.json"
  embed_credentials = false
}

output "dashboard_id" {
  value = databricks_dashboard.sales.id
}
