# Source: ../shared/seeds/001_10a33e6b98e0d4db.txt (the product description MiniLake is built from), copied verbatim; e2e/seeds/test_seeds.py runs it with only the host changed.
provider "databricks" {
  host  = "http://localhost:8000"
  token = "dev"
}

resource "databricks_catalog" "sandbox" {
  name    = "sandbox"
  comment = "Local sandbox catalog"
}

resource "databricks_schema" "things" {
  catalog_name = databricks_catalog.sandbox.name
  name         = "things"
}

resource "databricks_sql_endpoint" "compute" {
  name         = "local-compute"
  cluster_size = "Small"
}
