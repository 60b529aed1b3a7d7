"""Issue 30, Unity Catalog privileges beyond SELECT, through the real Python SDK: with MINILAKE_AUTH=tokens
MINILAKE_ENFORCE=1 an admin and a service principal (created through SCIM, its token from token management's
on-behalf-of API, as ../shared/checks/trust does). The service principal is refused, the admin grants through
the permissions API (w.grants.update), then it is allowed: a write statement, CREATE TABLE, a volume file
upload through w.files, a REST table get and list, and what information_schema and SHOW TABLES list; and
through databricks-sql-connector (Thrift), what its metadata cursors list and whether DESCRIBE answers."""
import io

import pytest
from databricks import sql
from databricks.sdk import WorkspaceClient
from databricks.sdk.errors import PermissionDenied
from databricks.sdk.service.catalog import PermissionsChange, Privilege, VolumeType
from databricks.sdk.service.sql import StatementState

from conftest import Server, unique


@pytest.fixture(scope="module")
def enforced():
    s = Server(env={"MINILAKE_AUTH": "tokens", "MINILAKE_ENFORCE": "1", "MINILAKE_ADMIN_TOKEN": "uc-admin",
                    "MINILAKE_SERVICES": "iam,unity-catalog,sql,files,thrift"})
    yield s
    s.stop()


@pytest.fixture(scope="module")
def env(enforced):
    admin = WorkspaceClient(host=enforced.url, token="uc-admin", auth_type="pat")
    sp = admin.service_principals.create(display_name=unique("uc-bot"))
    obo = admin.token_management.create_obo_token(application_id=sp.application_id, lifetime_seconds=3600)
    bot = WorkspaceClient(host=enforced.url, token=obo.token_value, auth_type="pat")
    wh = admin.api_client.do("POST", "/api/2.0/sql/warehouses", body={"name": unique("wh"), "cluster_size": "Small"})["id"]
    admin.api_client.do("PATCH", f"/api/2.0/permissions/warehouses/{wh}", body={
        "access_control_list": [{"service_principal_name": sp.application_id, "permission_level": "CAN_USE"}]})
    cat = unique("ucp")
    admin.catalogs.create(name=cat)
    admin.schemas.create(name="s", catalog_name=cat)
    admin.volumes.create(catalog_name=cat, schema_name="s", name="v", volume_type=VolumeType.MANAGED)

    def run(client, statement):
        return client.statement_execution.execute_statement(warehouse_id=wh, statement=statement, wait_timeout="30s")

    def grant(securable_type, full_name, *privileges):
        admin.grants.update(securable_type=securable_type, full_name=full_name,
                            changes=[PermissionsChange(principal=sp.application_id, add=list(privileges))])

    for s in (f"CREATE TABLE {cat}.s.t (id BIGINT, v STRING)", f"INSERT INTO {cat}.s.t VALUES (1, 'a')"):
        assert run(admin, s).status.state == StatementState.SUCCEEDED
    return {"admin": admin, "bot": bot, "app": sp.application_id, "cat": cat, "run": run, "grant": grant,
            "url": enforced.url, "wh": wh, "bot_token": obo.token_value}


def _refused(r, missing):
    assert r.status.state == StatementState.FAILED, r
    assert "[INSUFFICIENT_PERMISSIONS]" in r.status.error.message
    assert missing in r.status.error.message, r.status.error.message


def test_rest_get_and_list_show_only_what_the_caller_may_see(env):
    bot, cat, grant = env["bot"], env["cat"], env["grant"]
    with pytest.raises(PermissionDenied, match=f"User does not have USE CATALOG on Catalog '{cat}'"):
        bot.tables.get(f"{cat}.s.t")
    assert cat not in [c.name for c in bot.catalogs.list()]
    grant("catalog", cat, Privilege.USE_CATALOG)
    grant("schema", f"{cat}.s", Privilege.USE_SCHEMA)
    with pytest.raises(PermissionDenied, match=f"User does not have SELECT on Table '{cat}.s.t'"):
        bot.tables.get(f"{cat}.s.t")
    assert [t.name for t in bot.tables.list(catalog_name=cat, schema_name="s")] == []
    grant("table", f"{cat}.s.t", Privilege.SELECT)
    assert bot.tables.get(f"{cat}.s.t").full_name == f"{cat}.s.t"
    assert [t.name for t in bot.tables.list(catalog_name=cat, schema_name="s")] == ["t"]
    assert cat in [c.name for c in bot.catalogs.list()]


def test_a_write_statement_needs_modify(env):
    bot, cat, run, grant = env["bot"], env["cat"], env["run"], env["grant"]
    grant("catalog", cat, Privilege.USE_CATALOG)
    grant("schema", f"{cat}.s", Privilege.USE_SCHEMA)
    insert = f"INSERT INTO {cat}.s.t VALUES (2, 'bot')"
    _refused(run(bot, insert), f"User does not have MODIFY on Table '{cat}.s.t'.")
    grant("table", f"{cat}.s.t", Privilege.MODIFY)
    assert run(bot, insert).status.state == StatementState.SUCCEEDED
    rows = run(env["admin"], f"SELECT id, v FROM {cat}.s.t ORDER BY id").result.data_array
    assert rows == [["1", "a"], ["2", "bot"]]


def test_create_table_needs_create_table_and_the_creator_owns_it(env):
    bot, cat, run, grant = env["bot"], env["cat"], env["run"], env["grant"]
    grant("catalog", cat, Privilege.USE_CATALOG)
    grant("schema", f"{cat}.s", Privilege.USE_SCHEMA)
    create = f"CREATE TABLE {cat}.s.bots (id INT)"
    _refused(run(bot, create), f"User does not have CREATE TABLE on Schema '{cat}.s'.")
    grant("schema", f"{cat}.s", Privilege.CREATE_TABLE)
    assert run(bot, create).status.state == StatementState.SUCCEEDED
    assert env["admin"].tables.get(f"{cat}.s.bots").owner == env["app"]
    # The owner drops it; the admin's table is not its to drop.
    _refused(run(bot, f"DROP TABLE {cat}.s.t"), f"User is not an owner of Table '{cat}.s.t'.")
    assert run(bot, f"DROP TABLE {cat}.s.bots").status.state == StatementState.SUCCEEDED


def test_a_volume_upload_needs_write_volume(env):
    bot, cat, grant = env["bot"], env["cat"], env["grant"]
    grant("catalog", cat, Privilege.USE_CATALOG)
    grant("schema", f"{cat}.s", Privilege.USE_SCHEMA)
    path = f"/Volumes/{cat}/s/v/hello.txt"
    with pytest.raises(PermissionDenied, match=f"User does not have WRITE VOLUME on Volume '{cat}.s.v'"):
        bot.files.upload(path, io.BytesIO(b"hello"), overwrite=True)
    grant("volume", f"{cat}.s.v", Privilege.WRITE_VOLUME)
    bot.files.upload(path, io.BytesIO(b"hello"), overwrite=True)
    with pytest.raises(PermissionDenied, match=f"User does not have READ VOLUME on Volume '{cat}.s.v'"):
        bot.files.download(path).contents.read()
    grant("volume", f"{cat}.s.v", Privilege.READ_VOLUME)
    assert bot.files.download(path).contents.read() == b"hello"
    assert env["admin"].files.download(path).contents.read() == b"hello"


def test_information_schema_shows_only_what_the_caller_may_see(env):
    """A catalog of its own, so the grants the other tests make do not reach it."""
    admin, bot, run, grant = env["admin"], env["bot"], env["run"], env["grant"]
    cat = unique("uci")
    admin.catalogs.create(name=cat)
    admin.schemas.create(name="s", catalog_name=cat)
    for s in (f"CREATE TABLE {cat}.s.t (id BIGINT)", f"CREATE TABLE {cat}.s.other (id BIGINT)"):
        assert run(admin, s).status.state == StatementState.SUCCEEDED

    def rows(client, statement):
        r = run(client, statement)
        assert r.status.state == StatementState.SUCCEEDED, r.status
        return (r.result.data_array if r.result else None) or []

    tables = (f"SELECT table_catalog, table_schema, table_name FROM system.information_schema.tables "
              f"WHERE table_catalog = '{cat}' ORDER BY table_name")
    catalogs = f"SELECT catalog_name FROM system.information_schema.catalogs WHERE catalog_name = '{cat}'"
    assert rows(bot, catalogs) == []
    assert rows(bot, tables) == []
    assert rows(bot, f"SELECT table_name, column_name FROM {cat}.information_schema.columns") == []
    assert cat not in [r[0] for r in rows(bot, "SHOW CATALOGS")]
    # The admin sees both tables.
    assert [r[2] for r in rows(admin, tables)] == ["other", "t"]

    grant("catalog", cat, Privilege.USE_CATALOG)
    grant("schema", f"{cat}.s", Privilege.USE_SCHEMA)
    grant("table", f"{cat}.s.t", Privilege.SELECT)
    assert rows(bot, catalogs) == [[cat]]
    assert rows(bot, tables) == [[cat, "s", "t"]]
    assert rows(bot, f"SELECT table_name, column_name FROM {cat}.information_schema.columns") == [["t", "id"]]
    assert [r[1] for r in rows(bot, f"SHOW TABLES IN {cat}.s")] == ["t"]


def test_thrift_metadata_and_describe_show_only_what_the_caller_may_see(env):
    """databricks-sql-connector as the service principal (its on-behalf-of token): the metadata cursors list
    nothing of a catalog it has no grant on and DESCRIBE (TABLE, CATALOG, SCHEMA) is refused; after USE CATALOG,
    USE SCHEMA and SELECT it sees exactly the granted table. A catalog of its own, so the grants the other tests
    make do not reach it."""
    admin, run, grant = env["admin"], env["run"], env["grant"]
    cat = unique("uct")
    admin.catalogs.create(name=cat)
    admin.schemas.create(name="s", catalog_name=cat)
    for s in (f"CREATE TABLE {cat}.s.t (id BIGINT, v STRING)", f"CREATE TABLE {cat}.s.other (secret STRING)"):
        assert run(admin, s).status.state == StatementState.SUCCEEDED
    path = f"/sql/1.0/warehouses/{env['wh']}"

    def connect():
        return sql.connect(server_hostname=env["url"].split("//", 1)[1], http_path=path,
                           access_token=env["bot_token"], _connection_uri=env["url"] + path,
                           enable_telemetry=False)

    def listed(c):
        c.tables(catalog_name=cat)
        tables = [(r.TABLE_SCHEM, r.TABLE_NAME) for r in c.fetchall()]
        c.columns(catalog_name=cat)
        columns = [(r.TABLE_NAME, r.COLUMN_NAME) for r in c.fetchall()]
        c.schemas(catalog_name=cat)
        schemas = [r.TABLE_SCHEM for r in c.fetchall()]
        c.catalogs()
        return tables, columns, schemas, cat in [r.TABLE_CAT for r in c.fetchall()]

    with connect() as conn, conn.cursor() as c:
        assert listed(c) == ([], [], [], False)
        for q in (f"DESCRIBE TABLE {cat}.s.t", f"DESCRIBE CATALOG {cat}", f"DESCRIBE SCHEMA {cat}.s"):
            with pytest.raises(sql.Error, match=rf"(?s)\[INSUFFICIENT_PERMISSIONS\].*USE CATALOG on Catalog '{cat}'"):
                c.execute(q)

    grant("catalog", cat, Privilege.USE_CATALOG)
    grant("schema", f"{cat}.s", Privilege.USE_SCHEMA)
    grant("table", f"{cat}.s.t", Privilege.SELECT)
    with connect() as conn, conn.cursor() as c:
        tables, columns, schemas, sees_catalog = listed(c)
        assert tables == [("s", "t")]
        assert columns == [("t", "id"), ("t", "v")]
        assert "s" in schemas and sees_catalog
        c.execute(f"DESCRIBE TABLE {cat}.s.t")
        assert [r[0] for r in c.fetchall()] == ["id", "v"]
        c.execute(f"DESCRIBE SCHEMA {cat}.s")
        assert [tuple(r) for r in c.fetchall()][:2] == [("Catalog Name", cat), ("Namespace Name", "s")]
        with pytest.raises(sql.Error, match=rf"User does not have SELECT on Table '{cat}.s.other'"):
            c.execute(f"DESCRIBE TABLE {cat}.s.other")


def test_describe_and_show_of_a_catalog_and_a_schema(env):
    """DESCRIBE CATALOG / SCHEMA of a namespace the caller may not see is refused as the REST GET is; SHOW
    SCHEMAS IN / SHOW TABLES IN list only what it may see. A catalog of its own, untouched by other grants."""
    admin, bot, run, grant = env["admin"], env["bot"], env["run"], env["grant"]
    cat = unique("ucd")
    admin.catalogs.create(name=cat)
    admin.schemas.create(name="s", catalog_name=cat)
    for s in (f"CREATE TABLE {cat}.s.t (id BIGINT)", f"CREATE TABLE {cat}.s.hidden (id BIGINT)"):
        assert run(admin, s).status.state == StatementState.SUCCEEDED

    def rows(statement):
        r = run(bot, statement)
        assert r.status.state == StatementState.SUCCEEDED, r.status
        return (r.result.data_array if r.result else None) or []

    for q in (f"DESCRIBE CATALOG {cat}", f"DESCRIBE SCHEMA EXTENDED {cat}.s"):
        _refused(run(bot, q), f"User does not have USE CATALOG on Catalog '{cat}'.")
    assert rows(f"SHOW SCHEMAS IN {cat}") == []
    assert rows(f"SHOW TABLES IN {cat}.s") == []

    grant("catalog", cat, Privilege.USE_CATALOG)
    assert rows(f"DESCRIBE CATALOG {cat}")[0] == ["Catalog Name", cat]
    _refused(run(bot, f"DESCRIBE SCHEMA {cat}.s"), f"User does not have USE SCHEMA on Schema '{cat}.s'.")
    grant("schema", f"{cat}.s", Privilege.USE_SCHEMA)
    assert rows(f"DESCRIBE SCHEMA {cat}.s")[:2] == [["Catalog Name", cat], ["Namespace Name", "s"]]
    assert rows(f"SHOW SCHEMAS IN {cat}") == [["s"]]
    assert rows(f"SHOW TABLES IN {cat}.s") == []
    grant("table", f"{cat}.s.t", Privilege.SELECT)
    assert [r[1] for r in rows(f"SHOW TABLES IN {cat}.s")] == ["t"]
