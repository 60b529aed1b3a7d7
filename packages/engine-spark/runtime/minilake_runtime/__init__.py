"""MiniLake's task runtime: a local `spark`, `dbutils` and `display` for Databricks-style Python tasks."""
