# Databricks SQL objects with the real provider: current-API queries and alerts, the legacy sql_query /
# sql_alert, a legacy dashboard with a visualization widget and a text widget. e2e/terraform/test_sql_objects.py
# applies it, expects an empty second plan, and destroys it.
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

resource "databricks_sql_endpoint" "wh" {
  name             = "tf-sql-${var.suffix}"
  cluster_size     = "Small"
  max_num_clusters = 1
  auto_stop_mins   = 10
}

resource "databricks_query" "orders" {
  display_name = "tf-orders-${var.suffix}"
  warehouse_id = databricks_sql_endpoint.wh.id
  query_text   = "SELECT :min AS threshold, 42 AS total"
  description  = "made by terraform"
  tags         = ["tf"]
  parameter {
    name  = "min"
    title = "Minimum"
    text_value {
      value = "10"
    }
  }
}

resource "databricks_alert" "big" {
  display_name = "tf-big-${var.suffix}"
  query_id     = databricks_query.orders.id
  condition {
    op = "GREATER_THAN"
    operand {
      column {
        name = "total"
      }
    }
    threshold {
      value {
        double_value = 40
      }
    }
    empty_result_state = "UNKNOWN"
  }
  seconds_to_retrigger = 60
}

resource "databricks_sql_query" "legacy" {
  data_source_id = databricks_sql_endpoint.wh.data_source_id
  name           = "tf-legacy-${var.suffix}"
  query          = "SELECT 1 AS x"
  description    = "legacy query"
  tags           = ["legacy"]
  parameter {
    name  = "p"
    title = "P"
    text {
      value = "v"
    }
  }
}

resource "databricks_sql_alert" "legacy" {
  name     = "tf-legacy-alert-${var.suffix}"
  query_id = databricks_sql_query.legacy.id
  rearm    = 30
  options {
    column = "x"
    op     = ">"
    value  = "0"
    muted  = false
  }
}

resource "databricks_sql_visualization" "table" {
  query_id    = databricks_sql_query.legacy.id
  type        = "table"
  name        = "tf table"
  description = "a table"
  options     = jsonencode({ itemsPerPage = 25 })
}

resource "databricks_sql_dashboard" "dash" {
  name = "tf-dash-${var.suffix}"
  tags = ["tf"]
}

resource "databricks_sql_widget" "viz" {
  dashboard_id     = databricks_sql_dashboard.dash.id
  visualization_id = databricks_sql_visualization.table.visualization_id
  position {
    size_x = 3
    size_y = 4
    pos_x  = 0
    pos_y  = 0
  }
}

resource "databricks_sql_widget" "text" {
  dashboard_id = databricks_sql_dashboard.dash.id
  text         = "Hello from terraform"
  title        = "note"
  position {
    size_x = 3
    size_y = 2
    pos_x  = 3
    pos_y  = 0
  }
}

resource "databricks_alert_v2" "v2" {
  display_name = "tf-v2-${var.suffix}"
  warehouse_id = databricks_sql_endpoint.wh.id
  query_text   = "SELECT 42 AS total"
  evaluation = {
    comparison_operator = "GREATER_THAN"
    source = {
      name = "total"
    }
    threshold = {
      value = {
        double_value = 40
      }
    }
    empty_result_state = "UNKNOWN"
  }
  schedule = {
    quartz_cron_schedule = "0 0 * * * ?"
    timezone_id          = "UTC"
  }
}
