"""The first hour on a fresh server, as a new user meets it through the real databricks-sdk: the catalogs and
the starter warehouse a new workspace has, sample data to query at once, the legacy hive_metastore, a home
folder for every new user, and the front door (/ and /mcp)."""
import urllib.error
import urllib.request

import pytest
from databricks.sdk.errors import DatabricksError, PermissionDenied
from databricks.sdk.service import catalog as uc

from conftest import unique


def sql(w, statement):
    r = w.statement_execution.execute_statement(statement=statement, warehouse_id="dev", wait_timeout="50s")
    return r


def rows(w, statement):
    r = sql(w, statement)
    assert r.status.state.value == "SUCCEEDED", r.status
    return r.result.data_array if r.result else []


def test_a_fresh_workspace_has_main_samples_hive_metastore_and_the_starter_warehouse(w):
    cats = {c.name: c for c in w.catalogs.list()}
    assert {"main", "samples", "hive_metastore"} <= set(cats)
    assert cats["samples"].catalog_type == uc.CatalogType.DELTASHARING_CATALOG
    assert w.schemas.get("main.default").name == "default"
    assert [c[0] for c in rows(w, "SHOW CATALOGS")] == ["hive_metastore", "main", "samples"]
    warehouses = list(w.warehouses.list())
    assert [x.id for x in warehouses] == ["dev"] and warehouses[0].name == "Serverless Starter Warehouse"
    # A table with no catalog named lands in main.default, as on Databricks.
    rows(w, "CREATE TABLE first_t (x INT)")
    rows(w, "INSERT INTO first_t VALUES (1)")
    assert w.tables.get("main.default.first_t").full_name == "main.default.first_t"


def test_samples_are_there_to_query_and_read_only(w):
    trips = sql(w, "SELECT * FROM samples.nyctaxi.trips ORDER BY tpep_pickup_datetime LIMIT 3")
    assert [c.name for c in trips.manifest.schema.columns] == [
        "tpep_pickup_datetime", "tpep_dropoff_datetime", "trip_distance", "fare_amount", "pickup_zip", "dropoff_zip"]
    assert trips.result.data_array[0][0].startswith("2016-01-01")
    assert rows(w, "SELECT count(*) FROM samples.nyctaxi.trips") == [["21932"]]
    # TPC-H Q1's shape: line statuses and return flags as dbgen makes them.
    q1 = rows(w, """SELECT l_returnflag, l_linestatus, count(*) FROM samples.tpch.lineitem
                    WHERE l_shipdate <= date '1998-12-01' - interval 90 days GROUP BY 1, 2 ORDER BY 1, 2""")
    assert [r[:2] for r in q1] == [["A", "F"], ["N", "F"], ["N", "O"], ["R", "F"]]
    nation_regions = rows(w, """SELECT r_name, count(*) FROM samples.tpch.nation JOIN samples.tpch.region
                                ON n_regionkey = r_regionkey GROUP BY r_name ORDER BY r_name""")
    assert nation_regions == [[r, "5"] for r in ["AFRICA", "AMERICA", "ASIA", "EUROPE", "MIDDLE EAST"]]
    failed = sql(w, "INSERT INTO samples.tpch.region VALUES (9, 'X', 'y')")
    assert failed.status.state.value == "FAILED" and "INSUFFICIENT_PERMISSIONS" in failed.status.error.message
    assert sql(w, "CREATE TABLE samples.tpch.mine (x INT)").status.state.value == "FAILED"
    assert sql(w, "DELETE FROM samples.tpch.region").status.state.value == "FAILED"
    assert rows(w, "SELECT count(*) FROM samples.tpch.region") == [["5"]]
    with pytest.raises(PermissionDenied):
        w.schemas.create(name="mine", catalog_name="samples")
    with pytest.raises(DatabricksError):
        w.catalogs.delete("samples", force=True)


def test_samples_refuse_every_change_through_unity_catalogs_api(w, tmp_path):
    """What Spark (MiniLake's plugin, the official connector) asks of Unity Catalog to write: all refused in
    samples, in the words the SQL warehouse uses; reading (READ credentials) still granted."""
    read_only = "the samples catalog is read-only"
    region = w.tables.get("samples.tpch.region")
    with pytest.raises(PermissionDenied, match=read_only):
        w.schemas.create(name=unique("mine"), catalog_name="samples")
    with pytest.raises(PermissionDenied, match=read_only):
        w.tables.create(name=unique("mine"), catalog_name="samples", schema_name="tpch",
                        table_type=uc.TableType.EXTERNAL, data_source_format=uc.DataSourceFormat.DELTA,
                        storage_location=f"file://{tmp_path}/mine",
                        columns=[uc.ColumnInfo(name="a", type_name=uc.ColumnTypeName.INT, type_text="int",
                                               type_json='{"name":"a","type":"integer","nullable":true,"metadata":{}}',
                                               position=0)])
    with pytest.raises(PermissionDenied, match=read_only):
        w.tables.delete("samples.tpch.region")
    with pytest.raises(PermissionDenied, match=read_only):
        w.schemas.delete("samples.tpch", force=True)
    with pytest.raises(PermissionDenied, match="MODIFY on Table 'samples.tpch.region'"):
        w.temporary_table_credentials.generate_temporary_table_credentials(
            table_id=region.table_id, operation=uc.TableOperation.READ_WRITE)
    with pytest.raises(PermissionDenied, match=read_only):
        w.temporary_path_credentials.generate_temporary_path_credentials(
            url=region.storage_location, operation=uc.PathOperation.PATH_READ_WRITE)
    w.temporary_table_credentials.generate_temporary_table_credentials(
        table_id=region.table_id, operation=uc.TableOperation.READ)
    assert sorted(t.name for t in w.tables.list(catalog_name="samples", schema_name="tpch")) == [
        "customer", "lineitem", "nation", "orders", "part", "partsupp", "region", "supplier"]
    assert rows(w, "SELECT count(*) FROM samples.tpch.region") == [["5"]]


def test_hive_metastore_takes_schemas_and_tables_but_no_volumes(w):
    rows(w, "CREATE SCHEMA IF NOT EXISTS hive_metastore.legacy")
    rows(w, "CREATE TABLE hive_metastore.legacy.t (x INT)")
    rows(w, "INSERT INTO hive_metastore.legacy.t VALUES (7)")
    assert rows(w, "SELECT x FROM hive_metastore.legacy.t") == [["7"]]
    assert "legacy" in [s.name for s in w.schemas.list(catalog_name="hive_metastore")]
    with pytest.raises(DatabricksError):
        w.volumes.create(catalog_name="hive_metastore", schema_name="legacy", name="v",
                         volume_type=uc.VolumeType.MANAGED)
    with pytest.raises(DatabricksError):
        w.grants.get(securable_type="schema", full_name="hive_metastore.legacy")


def test_a_new_user_gets_a_home_folder(w):
    name = f"{unique('newcomer')}@example.com"
    w.users.create(user_name=name)
    home = w.workspace.get_status(f"/Users/{name}")
    assert home.object_type.value == "DIRECTORY"
    assert f"/Users/{name}" in [o.path for o in w.workspace.list("/Users")]


def test_the_front_door(url):
    class NoRedirect(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, *args, **kwargs):
            return None

    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.build_opener(NoRedirect).open(f"{url}/")
    assert e.value.code == 302 and e.value.headers["Location"].endswith("/ui/")
    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(f"{url}/mcp")
    assert "MINILAKE_MCP=1" in e.value.read().decode()


def test_a_snapshot_restore_brings_query_history_back(w, url):
    import requests

    rows(w, "SELECT 4242 AS before_snapshot")
    name = unique("fh")
    assert requests.post(f"{url}/_minilake/snapshots", json={"name": name}, timeout=60).ok
    rows(w, "SELECT 4343 AS after_snapshot")
    assert requests.post(f"{url}/_minilake/snapshots/{name}/restore", timeout=60).ok
    texts = [q.query_text for q in w.query_history.list(max_results=100).res]
    assert any("before_snapshot" in t for t in texts)
    assert not any("after_snapshot" in t for t in texts)
