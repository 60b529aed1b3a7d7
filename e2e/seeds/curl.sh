# Source: ../shared/seeds/001_10a33e6b98e0d4db.txt (the product description MiniLake is built from), copied verbatim; e2e/seeds/test_seeds.py runs it with only the host changed.
# Check of de service up is
curl http://localhost:8000/_minilake/health

# Catalog aanmaken via de API
curl -X POST http://localhost:8000/api/2.1/unity-catalog/catalogs \
     -H 'Content-Type: application/json' \
     -d '{"name": "sales"}'

# SQL uitvoeren en rijen terugkrijgen
curl -X POST http://localhost:8000/api/2.0/sql/statements \
     -H 'Content-Type: application/json' \
     -d '{"warehouse_id": "dev", "statement": "SELECT 42 AS answer"}'

# Workspace opschonen voor de volgende test
curl -X POST http://localhost:8000/_minilake/reset
