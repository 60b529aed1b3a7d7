import io.unitycatalog.client.ApiClient;
import io.unitycatalog.client.ApiClientBuilder;
import io.unitycatalog.client.ApiException;
import io.unitycatalog.client.api.CatalogsApi;
import io.unitycatalog.client.api.SchemasApi;
import io.unitycatalog.client.api.TablesApi;
import io.unitycatalog.client.api.TemporaryCredentialsApi;
import io.unitycatalog.client.auth.TokenProvider;
import io.unitycatalog.client.model.ColumnInfo;
import io.unitycatalog.client.model.ColumnTypeName;
import io.unitycatalog.client.model.CreateCatalog;
import io.unitycatalog.client.model.CreateSchema;
import io.unitycatalog.client.model.CreateTable;
import io.unitycatalog.client.model.DataSourceFormat;
import io.unitycatalog.client.model.GenerateTemporaryPathCredential;
import io.unitycatalog.client.model.GenerateTemporaryTableCredential;
import io.unitycatalog.client.model.PathOperation;
import io.unitycatalog.client.model.TableInfo;
import io.unitycatalog.client.model.TableOperation;
import io.unitycatalog.client.model.TableType;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The OSS Java `unitycatalog-client` against MiniLake, as a Spark connector uses it: run by
 * test/uc-java-client.e2e.test.ts as `java UcJavaClientContract <server url> <catalog> <location>`. Prints one
 * `ok <step>` line per step and exits 1 on the first mismatch. Its HttpClient asks for h2c on http://.
 */
public class UcJavaClientContract {
  static void check(boolean ok, String what) {
    if (!ok) {
      System.out.println("FAILED " + what);
      System.exit(1);
    }
    System.out.println("ok " + what);
  }

  public static void main(String[] args) throws Exception {
    String url = args[0], cat = args[1], loc = args[2];
    ApiClient client =
        ApiClientBuilder.create()
            .uri(url)
            .tokenProvider(TokenProvider.create(Map.of("type", "static", "token", "dapi-minilake-test")))
            .build();
    CatalogsApi catalogs = new CatalogsApi(client);
    SchemasApi schemas = new SchemasApi(client);
    TablesApi tables = new TablesApi(client);
    TemporaryCredentialsApi creds = new TemporaryCredentialsApi(client);

    check(catalogs.createCatalog(new CreateCatalog().name(cat).comment("java")).getName().equals(cat), "create catalog");
    check(
        catalogs.listCatalogs(null, null).getCatalogs().stream().anyMatch(c -> c.getName().equals(cat)),
        "list catalogs");
    schemas.createSchema(new CreateSchema().name("s1").catalogName(cat).properties(Map.of("k", "v")));
    List<String> names =
        schemas.listSchemas(cat, null, null).getSchemas().stream().map(s -> s.getName()).sorted().collect(Collectors.toList());
    check(names.equals(List.of("default", "s1")), "list schemas " + names);
    check("v".equals(schemas.getSchema(cat + ".s1").getProperties().get("k")), "schema properties");

    CreateTable ct =
        new CreateTable()
            .name("events")
            .catalogName(cat)
            .schemaName("s1")
            .tableType(TableType.EXTERNAL)
            .dataSourceFormat(DataSourceFormat.DELTA)
            .storageLocation(loc)
            .properties(Map.of("team", "data"))
            .columns(
                List.of(
                    new ColumnInfo().name("id").typeText("bigint").typeName(ColumnTypeName.LONG).position(0)
                        .typeJson("{\"name\":\"id\",\"type\":\"long\",\"nullable\":true,\"metadata\":{}}"),
                    new ColumnInfo().name("tags").typeText("array<string>").typeName(ColumnTypeName.ARRAY).position(1)
                        .typeJson("{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"elementType\":\"string\",\"containsNull\":true},\"nullable\":true,\"metadata\":{}}")));
    TableInfo created = tables.createTable(ct);
    check(created.getTableId() != null && created.getTableType() == TableType.EXTERNAL, "create EXTERNAL Delta table");
    TableInfo got = tables.getTable(cat + ".s1.events", null, null);
    check(got.getTableId().equals(created.getTableId()), "get table");
    check(got.getDataSourceFormat() == DataSourceFormat.DELTA, "data_source_format");
    List<String> cols =
        got.getColumns().stream().map(c -> c.getName() + ":" + c.getTypeText() + ":" + c.getTypeName()).collect(Collectors.toList());
    check(cols.equals(List.of("id:bigint:LONG", "tags:array<string>:ARRAY")), "columns " + cols);
    check("data".equals(got.getProperties().get("team")), "table properties");
    check(
        tables.listTables(cat, "s1", null, null).getTables().stream().map(TableInfo::getName).collect(Collectors.toList())
            .equals(List.of("events")),
        "list tables");
    check(
        creds.generateTemporaryTableCredentials(
                new GenerateTemporaryTableCredential().tableId(created.getTableId()).operation(TableOperation.READ))
            .getExpirationTime() > 0,
        "temporary table credentials");
    check(
        creds.generateTemporaryPathCredentials(
                new GenerateTemporaryPathCredential().url(loc + "_new").operation(PathOperation.PATH_CREATE_TABLE))
            .getExpirationTime() > 0,
        "temporary path credentials");
    tables.deleteTable(cat + ".s1.events");
    try {
      tables.getTable(cat + ".s1.events", null, null);
      check(false, "deleted table is gone");
    } catch (ApiException e) {
      check(e.getCode() == 404, "deleted table is gone (" + e.getCode() + ")");
    }
    System.out.println("ALL OK");
  }
}
