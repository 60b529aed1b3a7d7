"""Unity Catalog through the real databricks-sdk: every endpoint, paging through the SDK's own iterators
(bounded, so a stray next_page_token fails instead of looping), typed errors and the type round trip."""
import tempfile
import itertools
import os

import pytest
import requests
from databricks.sdk.errors import BadRequest, NotFound, ResourceConflict
from databricks.sdk.service import catalog as uc

from conftest import unique

TYPES = [
    ("STRING", "string", "STRING"),
    ("BIGINT", "bigint", "LONG"),
    ("LONG", "bigint", "LONG"),
    ("INT", "int", "INT"),
    ("SHORT", "smallint", "SHORT"),
    ("BYTE", "tinyint", "BYTE"),
    ("DOUBLE", "double", "DOUBLE"),
    ("FLOAT", "float", "FLOAT"),
    ("BOOLEAN", "boolean", "BOOLEAN"),
    ("DATE", "date", "DATE"),
    ("TIMESTAMP", "timestamp", "TIMESTAMP"),
    ("TIMESTAMP_NTZ", "timestamp_ntz", "TIMESTAMP_NTZ"),
    ("DECIMAL(10,2)", "decimal(10,2)", "DECIMAL"),
    ("BINARY", "binary", "BINARY"),
    ("ARRAY<INT>", "array<int>", "ARRAY"),
    ("MAP<STRING,BIGINT>", "map<string,bigint>", "MAP"),
    ("STRUCT<a:INT,b:STRING>", "struct<a:int,b:string>", "STRUCT"),
    ("INTERVAL DAY TO SECOND", "interval day to second", "INTERVAL"),
    ("VARIANT", "variant", "VARIANT"),
]


def bounded(iterator, limit=1000):
    items = list(itertools.islice(iterator, limit + 1))
    assert len(items) <= limit, "iterator did not end: a next_page_token on the last page?"
    return items


def col(name, type_text, pos):
    return uc.ColumnInfo(name=name, type_text=type_text, position=pos)


def test_catalog_lifecycle(w):
    name = unique("cat")
    c = w.catalogs.create(name=name, comment="hello", properties={"a": "b"})
    assert c.name == name and c.comment == "hello" and c.properties == {"a": "b"}
    assert w.schemas.get(f"{name}.default").name == "default"
    with pytest.raises(ResourceConflict):
        w.catalogs.create(name=name)
    with pytest.raises(NotFound):
        w.catalogs.get("nope_cat")
    with pytest.raises(BadRequest):
        w.catalogs.create(name='x"; DROP TABLE y; --')

    u = w.catalogs.update(name, comment="changed", owner="someone", properties={"k": "v"})
    assert (u.comment, u.owner, u.properties["k"]) == ("changed", "someone", "v")
    renamed = unique("cat_r")
    assert w.catalogs.update(name, new_name=renamed).name == renamed
    with pytest.raises(NotFound):
        w.catalogs.get(name)

    w.schemas.create(name="s", catalog_name=renamed)
    with pytest.raises(BadRequest):
        w.catalogs.delete(renamed)
    w.catalogs.delete(renamed, force=True)
    with pytest.raises(NotFound):
        w.catalogs.get(renamed)


def test_main_catalog_and_paging(w):
    # A fresh workspace has main (with default), hive_metastore and samples.
    assert w.schemas.get("main.default").name == "default"
    for i in range(23):
        w.schemas.create(name=f"s{i:02d}", catalog_name="main")
    names = [s.name for s in bounded(w.schemas.list(catalog_name="main", max_results=10))]
    assert len(names) == 24 and "default" in names and len(set(names)) == 24
    # one page with max_results=0 (server default), legacy "all" without it
    assert len(bounded(w.schemas.list(catalog_name="main"))) == 24
    for i in range(7):
        w.catalogs.create(name=f"pc_{i}")
    cats = [c.name for c in bounded(w.catalogs.list(max_results=3))]
    assert sorted(cats) == sorted(["hive_metastore", "main", "samples"] + [f"pc_{i}" for i in range(7)])
    with pytest.raises(BadRequest):
        list(itertools.islice(w.catalogs.list(max_results=-1), 1))


def test_schema_lifecycle(w):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    s = w.schemas.create(name="sales", catalog_name=cat, comment="c", properties={"x": "y"})
    assert s.full_name == f"{cat}.sales" and s.properties == {"x": "y"}
    with pytest.raises(ResourceConflict):
        w.schemas.create(name="sales", catalog_name=cat)
    with pytest.raises(NotFound):
        w.schemas.create(name="x", catalog_name="nope_cat")
    with pytest.raises(NotFound):
        w.schemas.get(f"{cat}.nope")
    u = w.schemas.update(f"{cat}.sales", comment="new", new_name="sales2")
    assert u.full_name == f"{cat}.sales2" and u.comment == "new"
    w.tables.create(
        name="t", catalog_name=cat, schema_name="sales2", table_type=uc.TableType.MANAGED,
        data_source_format=uc.DataSourceFormat.DELTA, storage_location="", columns=[col("id", "BIGINT", 0)],
    )
    with pytest.raises(BadRequest):
        w.schemas.delete(f"{cat}.sales2")
    w.schemas.delete(f"{cat}.sales2", force=True)
    with pytest.raises(NotFound):
        w.schemas.get(f"{cat}.sales2")


def test_tables_and_type_round_trip(w):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    w.schemas.create(name="store", catalog_name=cat)
    columns = [col(f"c{i}", t[0], i) for i, t in enumerate(TYPES)]
    for table_type in (uc.TableType.MANAGED, uc.TableType.EXTERNAL):
        tname = f"types_{table_type.value.lower()}"
        created = w.tables.create(
            name=tname, catalog_name=cat, schema_name="store", table_type=table_type,
            data_source_format=uc.DataSourceFormat.DELTA, storage_location=f"/tmp/minilake-ext/{tname}",
            columns=columns, properties={"p": "1"},
        )
        assert len(created.table_id) == 36
        t = w.tables.get(f"{cat}.store.{tname}")
        assert t.table_id == created.table_id
        assert t.table_type == table_type
        assert [c.type_text for c in t.columns] == [x[1] for x in TYPES]
        assert [c.type_name.value for c in t.columns] == [x[2] for x in TYPES]
        assert t.columns[12].type_precision == 10 and t.columns[12].type_scale == 2
        assert t.properties == {"p": "1"}
    with pytest.raises(ResourceConflict):
        w.tables.create(
            name="types_managed", catalog_name=cat, schema_name="store", table_type=uc.TableType.MANAGED,
            data_source_format=uc.DataSourceFormat.DELTA, storage_location="", columns=columns,
        )
    with pytest.raises(NotFound):
        w.tables.get(f"{cat}.store.nope")
    with pytest.raises(NotFound):
        w.tables.get(f"{cat}.nope.t")
    with pytest.raises(BadRequest):
        w.tables.create(
            name="bad", catalog_name=cat, schema_name="store", table_type=uc.TableType.MANAGED,
            data_source_format=uc.DataSourceFormat.DELTA, storage_location="",
            columns=[col("a", "INT); DROP TABLE x; --", 0)],
        )
    assert w.tables.exists(f"{cat}.store.types_managed").table_exists
    assert not w.tables.exists(f"{cat}.store.nope").table_exists

    for i in range(12):
        w.tables.create(
            name=f"t{i:02d}", catalog_name=cat, schema_name="store", table_type=uc.TableType.MANAGED,
            data_source_format=uc.DataSourceFormat.DELTA, storage_location="", columns=[col("id", "INT", 0)],
        )
    listed = bounded(w.tables.list(catalog_name=cat, schema_name="store", max_results=5))
    assert len(listed) == 14 and all(t.columns is not None for t in listed)
    summaries = bounded(w.tables.list_summaries(catalog_name=cat, max_results=4))
    assert len(summaries) == 14
    only = bounded(w.tables.list_summaries(catalog_name=cat, table_name_pattern="types%"))
    assert sorted(s.full_name for s in only) == [f"{cat}.store.types_external", f"{cat}.store.types_managed"]

    w.tables.update(f"{cat}.store.t00", owner="bob")
    assert w.tables.get(f"{cat}.store.t00").owner == "bob"
    w.tables.delete(f"{cat}.store.t00")
    with pytest.raises(NotFound):
        w.tables.get(f"{cat}.store.t00")


def test_volumes(w, server):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    v = w.volumes.create(catalog_name=cat, schema_name="default", name="raw", volume_type=uc.VolumeType.MANAGED)
    d = os.path.join(server.data_dir, "volumes", cat, "default", "raw")
    assert os.path.isdir(d) and v.storage_location == f"file://{d}"
    assert w.volumes.read(f"{cat}.default.raw").volume_id == v.volume_id
    with pytest.raises(ResourceConflict):
        w.volumes.create(catalog_name=cat, schema_name="default", name="raw", volume_type=uc.VolumeType.MANAGED)
    for i in range(5):
        w.volumes.create(catalog_name=cat, schema_name="default", name=f"v{i}", volume_type=uc.VolumeType.MANAGED)
    assert len(bounded(w.volumes.list(catalog_name=cat, schema_name="default", max_results=2))) == 6
    u = w.volumes.update(f"{cat}.default.raw", new_name="raw2", comment="c")
    assert u.name == "raw2" and u.comment == "c"
    assert os.path.isdir(os.path.join(server.data_dir, "volumes", cat, "default", "raw2"))
    w.volumes.delete(f"{cat}.default.raw2")
    assert not os.path.exists(os.path.join(server.data_dir, "volumes", cat, "default", "raw2"))
    with pytest.raises(NotFound):
        w.volumes.read(f"{cat}.default.raw2")
    with pytest.raises(BadRequest):
        w.volumes.create(catalog_name=cat, schema_name="default", name="ext", volume_type=uc.VolumeType.EXTERNAL,
                         storage_location="file:///tmp/../etc")


def test_functions(w):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    info = uc.CreateFunction(
        name="plus_one", catalog_name=cat, schema_name="default",
        input_params=uc.FunctionParameterInfos(parameters=[
            uc.FunctionParameterInfo(name="x", type_text="int", type_name=uc.ColumnTypeName.INT, position=0)]),
        data_type=uc.ColumnTypeName.INT, full_data_type="INT",
        routine_body=uc.CreateFunctionRoutineBody.SQL, routine_definition="x + 1",
        parameter_style=uc.CreateFunctionParameterStyle.S, is_deterministic=True,
        sql_data_access=uc.CreateFunctionSqlDataAccess.CONTAINS_SQL, is_null_call=False,
        security_type=uc.CreateFunctionSecurityType.DEFINER, specific_name="plus_one",
    )
    f = w.functions.create(function_info=info)
    assert f.full_name == f"{cat}.default.plus_one" and f.routine_definition == "x + 1"
    with pytest.raises(ResourceConflict):
        w.functions.create(function_info=info)
    assert [x.name for x in bounded(w.functions.list(catalog_name=cat, schema_name="default", max_results=1))] == [
        "plus_one"]
    assert w.functions.get(f"{cat}.default.plus_one").input_params.parameters[0].name == "x"
    assert w.functions.update(f"{cat}.default.plus_one", owner="bob").owner == "bob"
    w.functions.delete(f"{cat}.default.plus_one")
    with pytest.raises(NotFound):
        w.functions.get(f"{cat}.default.plus_one")


def test_grants_and_inheritance(w):
    cat = unique("cat")
    w.catalogs.create(name=cat)
    w.schemas.create(name="s", catalog_name=cat)
    w.tables.create(
        name="t", catalog_name=cat, schema_name="s", table_type=uc.TableType.MANAGED,
        data_source_format=uc.DataSourceFormat.DELTA, storage_location="", columns=[col("id", "INT", 0)],
    )
    r = w.grants.update("catalog", cat, changes=[
        uc.PermissionsChange(principal="analysts", add=[uc.Privilege.USE_CATALOG, uc.Privilege.SELECT])])
    assert [(a.principal, sorted(p.value for p in a.privileges)) for a in r.privilege_assignments] == [
        ("analysts", ["SELECT", "USE_CATALOG"])]
    w.grants.update("table", f"{cat}.s.t", changes=[uc.PermissionsChange(principal="analysts", add=[uc.Privilege.MODIFY])])
    eff = w.grants.get_effective("table", f"{cat}.s.t", principal="analysts")
    privs = {p.privilege.value: p.inherited_from_name for p in eff.privilege_assignments[0].privileges}
    assert privs == {"SELECT": cat, "USE_CATALOG": cat, "MODIFY": None}
    w.grants.update("catalog", cat, changes=[uc.PermissionsChange(principal="analysts", remove=[uc.Privilege.SELECT])])
    got = w.grants.get("catalog", cat)
    assert [p.value for p in got.privilege_assignments[0].privileges] == ["USE_CATALOG"]
    with pytest.raises(NotFound):
        w.grants.get("table", f"{cat}.s.nope")


def test_metastore_and_credentials(w, url):
    summary = w.metastores.summary()
    current = w.metastores.current()
    assert current.metastore_id == summary.metastore_id
    assert [m.metastore_id for m in bounded(w.metastores.list())] == [summary.metastore_id]
    assert w.metastores.get(summary.metastore_id).name == summary.name
    with pytest.raises(NotFound):
        w.metastores.get("00000000-0000-0000-0000-000000000000")
    h = {"Authorization": "Bearer x"}
    cat = unique("tc")
    w.catalogs.create(name=cat)
    t = w.tables.create(
        name="t", catalog_name=cat, schema_name="default", table_type=uc.TableType.MANAGED,
        data_source_format=uc.DataSourceFormat.DELTA, storage_location="", columns=[col("id", "INT", 0)],
    )
    for base in ("/api/2.1/unity-catalog", "/api/2.0/unity-catalog"):
        r = requests.post(f"{url}{base}/temporary-table-credentials",
                          json={"table_id": t.table_id, "operation": "READ"}, headers=h, timeout=10)
        assert r.status_code == 200 and r.json()["expiration_time"] > 0
        r = requests.post(f"{url}{base}/temporary-table-credentials", json={"table_id": "x", "operation": "READ"},
                          headers=h, timeout=10)
        assert r.status_code == 404 and r.json()["error_code"] == "TABLE_DOES_NOT_EXIST"
        r = requests.post(f"{url}{base}/temporary-table-credentials", json={"operation": "READ"},
                          headers=h, timeout=10)
        assert r.status_code == 400 and r.json()["error_code"] == "INVALID_PARAMETER_VALUE"
        r = requests.post(f"{url}{base}/temporary-path-credentials",
                          json={"url": "file:///tmp/x", "operation": "PATH_READ"}, headers=h, timeout=10)
        assert r.status_code == 200


def _sql(w, wh, statement):
    r = w.statement_execution.execute_statement(warehouse_id=wh, statement=statement, wait_timeout="30s")
    assert r.status.state.value == "SUCCEEDED", (statement, r.status)
    return r


def test_quickstart_and_sql_agreement(w):
    """The seeds' quickstart: catalog -> schema -> table through the API, INSERT and SELECT through SQL; then
    objects made or dropped through SQL show up in (or leave) the API at once, and API functions run in SQL."""
    wh = w.warehouses.create(name=unique("wh"), cluster_size="Small").id
    w.schemas.create(name="shop", catalog_name="main")
    w.tables.create(
        name="orders", catalog_name="main", schema_name="shop", table_type=uc.TableType.MANAGED,
        data_source_format=uc.DataSourceFormat.DELTA, storage_location="",
        columns=[col("id", "BIGINT", 0), col("customer", "STRING", 1), col("amount", "DECIMAL(10,2)", 2)],
    )
    _sql(w, wh, "INSERT INTO main.shop.orders VALUES (1, 'ada', 12.50), (2, 'bob', 7.25)")
    r = _sql(w, wh, "SELECT customer, amount FROM main.shop.orders ORDER BY id")
    assert r.result.data_array == [["ada", "12.50"], ["bob", "7.25"]]

    _sql(w, wh, "CREATE TABLE main.shop.viasql AS SELECT 1 AS x, 'a' AS y")
    t = w.tables.get("main.shop.viasql")
    assert [(c.name, c.type_text) for c in t.columns] == [("x", "int"), ("y", "string")]
    assert "viasql" in [x.name for x in bounded(w.tables.list(catalog_name="main", schema_name="shop"))]
    _sql(w, wh, "DROP TABLE main.shop.viasql")

    # every listed type, created through the API, read back through SQL
    w.tables.create(
        name="types", catalog_name="main", schema_name="shop", table_type=uc.TableType.MANAGED,
        data_source_format=uc.DataSourceFormat.DELTA, storage_location="",
        columns=[col(f"c{i}", t[0], i) for i, t in enumerate(TYPES)],
    )
    r = _sql(w, wh, "SELECT * FROM main.shop.types")
    assert [c.type_text.lower() for c in r.manifest.schema.columns] == [t[1] for t in TYPES]
    with pytest.raises(NotFound):
        w.tables.get("main.shop.viasql")

    # (a catalog whose engine alias is its own name: function qualifiers in SQL are not yet mapped for `main`)
    w.catalogs.create(name="fncat")
    w.functions.create(function_info=uc.CreateFunction(
        name="double_it", catalog_name="fncat", schema_name="default",
        input_params=uc.FunctionParameterInfos(parameters=[
            uc.FunctionParameterInfo(name="x", type_text="bigint", type_name=uc.ColumnTypeName.LONG, position=0)]),
        data_type=uc.ColumnTypeName.LONG, full_data_type="BIGINT",
        routine_body=uc.CreateFunctionRoutineBody.SQL, routine_definition="x * 2",
        parameter_style=uc.CreateFunctionParameterStyle.S, is_deterministic=True,
        sql_data_access=uc.CreateFunctionSqlDataAccess.CONTAINS_SQL, is_null_call=False,
        security_type=uc.CreateFunctionSecurityType.DEFINER, specific_name="double_it",
    ))
    r = _sql(w, wh, "SELECT fncat.default.double_it(21) AS v")
    assert r.result.data_array == [["42"]]


def test_audit_validations(w, url):
    cat = unique("aud")
    w.catalogs.create(name=cat)
    # External volumes may not sit above MiniLake's data folder.
    for loc in ("file:///", "file://" + tempfile.gettempdir(), "/"):
        with pytest.raises(BadRequest):
            w.volumes.create(catalog_name=cat, schema_name="default", name="v", volume_type=uc.VolumeType.EXTERNAL,
                             storage_location=loc)
    # Grants: unknown privileges are refused.
    r = requests.patch(f"{url}/api/2.1/unity-catalog/permissions/catalog/{cat}",
                       json={"changes": [{"principal": "a", "add": ["BOGUS_PRIV"]}]},
                       headers={"Authorization": "Bearer x"}, timeout=10)
    assert r.status_code == 400 and r.json()["error_code"] == "INVALID_PARAMETER_VALUE"
    # Reserved catalog names.
    with pytest.raises(BadRequest):
        w.catalogs.create(name="system")
    # Schema storage_root is kept.
    s = w.schemas.create(name="rooted", catalog_name=cat, storage_root="s3://bucket/r")
    assert w.schemas.get(s.full_name).storage_root == "s3://bucket/r"
    # MANAGED tables carry a file: storage_location.
    t = w.tables.create(
        name="m", catalog_name=cat, schema_name="default", table_type=uc.TableType.MANAGED,
        data_source_format=uc.DataSourceFormat.DELTA, storage_location="", columns=[col("id", "INT", 0)],
    )
    assert w.tables.get(t.full_name).storage_location.startswith("file://")
