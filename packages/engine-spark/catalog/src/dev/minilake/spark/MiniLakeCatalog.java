package dev.minilake.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.catalog.TableWritePrivilege;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.delta.catalog.DeltaCatalog;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * A Spark catalog over one Unity Catalog catalog served by MiniLake (or any server speaking the UC REST
 * API): `spark.sql.catalog.<name>=dev.minilake.spark.MiniLakeCatalog`, `.uri=http://host:port`, `.token=...`
 * (the keys of the official `io.unitycatalog.spark.UCSingleCatalog`). The Spark catalog's name is the UC
 * catalog's name. Namespaces are UC schemas; EXTERNAL Delta tables are loaded as Delta tables by their
 * location through delta-spark, so reads and writes go straight to the files; `CREATE TABLE ... USING DELTA
 * LOCATION` lays the table down with Delta and registers it in UC. A CREATE TABLE (or saveAsTable) without a
 * location makes a MANAGED Delta table in Unity Catalog's storage root (a staging table first, as the
 * official connector does). MANAGED tables kept as Delta folders load the same way; MANAGED DuckDB tables
 * (MiniLake's SQL default) live in DuckDB files, which Spark cannot read: loading one fails saying so.
 */
public class MiniLakeCatalog implements TableCatalog, SupportsNamespaces {
  private String name;
  private UcClient uc;
  private DeltaCatalog delta;
  /** Set on the sessions of a declarative pipeline's update: its tables are created by the server. */
  private String pipelineUpdate;

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    this.name = name;
    String uri = options.get("uri");
    if (uri == null || uri.isEmpty())
      throw new IllegalArgumentException(
          "spark.sql.catalog." + name + ".uri is not set (the Unity Catalog server, e.g. http://localhost:8000)");
    String token = options.get("token");
    String key = "spark.sql.catalog." + name + ".token";
    // The token as the session's conf holds it now, not as it was when the catalog was made: MiniLake's Spark
    // Connect router puts a caller's refreshed OAuth token there (packages/connect session-identity.ts).
    this.uc = new UcClient(uri, () -> sessionConf(key, token), options.get("caCert"));
    this.pipelineUpdate = options.get("pipelineUpdate");
  }

  /** `key` of the active session's conf, `fallback` outside one (a thread of Spark's own). */
  private static String sessionConf(String key, String fallback) {
    scala.Option<org.apache.spark.sql.SparkSession> s = org.apache.spark.sql.SparkSession.getActiveSession();
    if (s.isEmpty()) return fallback;
    scala.Option<String> v = s.get().conf().getOption(key);
    return v.isDefined() ? v.get() : fallback;
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public String[] defaultNamespace() {
    return new String[] {"default"};
  }

  /** delta-spark's catalog, used for tables by path; created on first use (the session exists by then). */
  private synchronized DeltaCatalog delta() {
    if (delta == null) {
      DeltaCatalog d = new DeltaCatalog();
      d.setDelegateCatalog(
          org.apache.spark.sql.classic.SparkSession.active().sessionState().catalogManager().v2SessionCatalog());
      delta = d;
    }
    return delta;
  }

  // ---- names ----

  private String schemaOf(String[] ns) throws NoSuchNamespaceException {
    if (ns.length != 1) throw new NoSuchNamespaceException(ns);
    return ns[0];
  }

  private String fullName(Identifier ident) throws NoSuchTableException {
    if (ident.namespace().length != 1) throw new NoSuchTableException(ident);
    return name + "." + ident.namespace()[0] + "." + ident.name();
  }

  private static boolean notFound(UcClient.UcException e) {
    return e.status == 404;
  }

  // ---- namespaces ----

  @Override
  public String[][] listNamespaces() {
    List<JsonNode> rows = uc.list("/schemas", "schemas", Map.of("catalog_name", name));
    String[][] out = new String[rows.size()][];
    for (int i = 0; i < rows.size(); i++) out[i] = new String[] {rows.get(i).path("name").asText()};
    return out;
  }

  @Override
  public String[][] listNamespaces(String[] ns) throws NoSuchNamespaceException {
    if (ns.length == 0) return listNamespaces();
    loadNamespaceMetadata(ns);
    return new String[0][];
  }

  @Override
  public boolean namespaceExists(String[] ns) {
    try {
      loadNamespaceMetadata(ns);
      return true;
    } catch (NoSuchNamespaceException e) {
      return false;
    }
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] ns) throws NoSuchNamespaceException {
    String schema = schemaOf(ns);
    JsonNode j;
    try {
      j = uc.call("GET", "/schemas/" + UcClient.enc(name + "." + schema), null);
    } catch (UcClient.UcException e) {
      if (notFound(e)) throw new NoSuchNamespaceException(ns);
      throw e;
    }
    Map<String, String> out = new HashMap<>();
    for (Map.Entry<String, JsonNode> f : j.path("properties").properties()) out.put(f.getKey(), f.getValue().asText());
    if (j.hasNonNull("comment")) out.put(SupportsNamespaces.PROP_COMMENT, j.get("comment").asText());
    if (j.hasNonNull("owner")) out.put(SupportsNamespaces.PROP_OWNER, j.get("owner").asText());
    return out;
  }

  @Override
  public void createNamespace(String[] ns, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    if (ns.length != 1)
      throw new IllegalArgumentException("Unity Catalog schemas are one level: " + String.join(".", ns));
    ObjectNode body = uc.object().put("catalog_name", name).put("name", ns[0]);
    ObjectNode props = body.putObject("properties");
    for (Map.Entry<String, String> e : metadata.entrySet()) {
      if (e.getKey().equals(SupportsNamespaces.PROP_COMMENT)) body.put("comment", e.getValue());
      else if (!e.getKey().equals(SupportsNamespaces.PROP_OWNER) && !e.getKey().equals(SupportsNamespaces.PROP_LOCATION))
        props.put(e.getKey(), e.getValue());
    }
    try {
      uc.call("POST", "/schemas", body);
    } catch (UcClient.UcException e) {
      if (e.status == 409) throw new NamespaceAlreadyExistsException(ns);
      throw Denied.of(e);
    }
  }

  @Override
  public void alterNamespace(String[] ns, NamespaceChange... changes) throws NoSuchNamespaceException {
    String schema = schemaOf(ns);
    ObjectNode body = uc.object();
    ObjectNode props = body.putObject("properties");
    for (NamespaceChange c : changes) {
      if (c instanceof NamespaceChange.SetProperty) {
        NamespaceChange.SetProperty p = (NamespaceChange.SetProperty) c;
        if (p.property().equals(SupportsNamespaces.PROP_COMMENT)) body.put("comment", p.value());
        else props.put(p.property(), p.value());
      } else {
        throw new UnsupportedOperationException(
            "MiniLake's Unity Catalog plugin can only set schema properties, not remove them");
      }
    }
    try {
      uc.call("PATCH", "/schemas/" + UcClient.enc(name + "." + schema), body);
    } catch (UcClient.UcException e) {
      if (notFound(e)) throw new NoSuchNamespaceException(ns);
      throw Denied.of(e);
    }
  }

  @Override
  public boolean dropNamespace(String[] ns, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    String schema = schemaOf(ns);
    try {
      uc.call(
          "DELETE", "/schemas/" + UcClient.enc(name + "." + schema) + "?force=" + cascade, null);
      return true;
    } catch (UcClient.UcException e) {
      if (notFound(e)) throw new NoSuchNamespaceException(ns);
      if (!cascade && e.status == 400 && "INVALID_STATE".equals(e.errorCode))
        throw new NonEmptyNamespaceException(ns);
      throw Denied.of(e);
    }
  }

  // ---- tables ----

  @Override
  public Identifier[] listTables(String[] ns) throws NoSuchNamespaceException {
    String schema = schemaOf(ns);
    Map<String, String> q = new LinkedHashMap<>();
    q.put("catalog_name", name);
    q.put("schema_name", schema);
    q.put("omit_columns", "true");
    List<JsonNode> rows;
    try {
      rows = uc.list("/tables", "tables", q);
    } catch (UcClient.UcException e) {
      if (notFound(e)) throw new NoSuchNamespaceException(ns);
      throw e;
    }
    Identifier[] out = new Identifier[rows.size()];
    for (int i = 0; i < rows.size(); i++)
      out[i] = Identifier.of(new String[] {schema}, rows.get(i).path("name").asText());
    return out;
  }

  private JsonNode getTable(Identifier ident) throws NoSuchTableException {
    JsonNode t;
    try {
      t = uc.call("GET", "/tables/" + UcClient.enc(fullName(ident)), null);
    } catch (UcClient.UcException e) {
      if (notFound(e)) throw new NoSuchTableException(ident);
      // A caller without USE CATALOG / USE SCHEMA / SELECT (the session's token is the caller's, see
      // packages/connect's session-identity) is refused as Databricks refuses the read.
      throw Denied.of(e);
    }
    if (PipelineTables.hiddenWhileDefining(t)) throw new NoSuchTableException(ident);
    return t;
  }

  /**
   * A Delta table's local folder, and why Unity Catalog refuses writes to it (null when it does not): what
   * `locate` finds.
   */
  private static final class Located {
    final String path;
    final String readOnly;

    Located(String path, String readOnly) {
      this.path = path;
      this.readOnly = readOnly;
    }

    /** The folder, once a write to the table is known to be allowed. */
    String forWrite() {
      if (readOnly != null) throw Denied.of(readOnly);
      return path;
    }
  }

  /** The local folder of an EXTERNAL Delta table, or a clear refusal for what Spark cannot read here. */
  private Located locate(Identifier ident, JsonNode t) throws NoSuchTableException {
    String full = fullName(ident);
    String type = t.path("table_type").asText("");
    String format = t.path("data_source_format").asText("");
    String loc = t.path("storage_location").asText("");
    // A MANAGED table kept as a Delta folder (MINILAKE_MANAGED_FORMAT=delta) reads like an EXTERNAL one; a
    // MANAGED DuckDB table reports its catalog's .duckdb file.
    boolean managedDelta =
        (type.equals("MANAGED") || type.equals("MATERIALIZED_VIEW") || type.equals("STREAMING_TABLE"))
            && format.equalsIgnoreCase("DELTA")
            && !loc.endsWith(".duckdb");
    if (type.equals("MANAGED") && !managedDelta)
      throw new UnsupportedOperationException(
          full
              + " is a MANAGED MiniLake table: its rows live in a DuckDB database file ("
              + loc
              + "), not in a Delta folder, so Spark cannot read or write it. Query it through MiniLake's SQL"
              + " API, or copy it into an EXTERNAL Delta table (CREATE TABLE ... USING DELTA LOCATION ...)");
    if (!type.equals("EXTERNAL") && !managedDelta)
      throw new UnsupportedOperationException(
          full + " is a " + type + ": MiniLake's Spark catalog reads Delta tables only");
    if (!format.equalsIgnoreCase("DELTA"))
      throw new UnsupportedOperationException(
          full + " is an EXTERNAL " + format + " table: MiniLake's Spark catalog reads Delta tables only");
    return new Located(localPath(loc), credentials(t));
  }

  /**
   * Asks for temporary credentials as the official connector does (a local folder needs none, but the ask
   * is where Unity Catalog says what one may do): READ_WRITE, and READ when that is refused, as for a table
   * of a read-only catalog (samples, a share). Returns Unity Catalog's refusal then, or null.
   */
  private String credentials(JsonNode t) {
    if (!t.hasNonNull("table_id")) return null;
    String id = t.get("table_id").asText();
    try {
      uc.call("POST", "/temporary-table-credentials", uc.object().put("table_id", id).put("operation", "READ_WRITE"));
      return null;
    } catch (UcClient.UcException e) {
      if (!e.denied()) throw e;
      try {
        uc.call("POST", "/temporary-table-credentials", uc.object().put("table_id", id).put("operation", "READ"));
      } catch (UcClient.UcException r) {
        throw Denied.of(r); // MINILAKE_ENFORCE=1: the session's caller may not read it either
      }
      return e.detail;
    }
  }

  static String localPath(String loc) {
    if (loc.startsWith("/")) return loc;
    URI u = URI.create(loc);
    if (!"file".equals(u.getScheme()))
      throw new UnsupportedOperationException(
          "Table location " + loc + " is not a local path: MiniLake's Spark catalog reads file: locations only");
    return u.getPath();
  }

  private static Identifier pathIdent(String path) {
    return Identifier.of(new String[] {"delta"}, path);
  }

  /**
   * `delta.`/folder``: Delta's table by path, which Databricks reads in whatever catalog is current (here it
   * would otherwise be looked up as a table of a schema named delta). A write to it is checked by ReadOnlyWrites.
   */
  private static boolean byPath(Identifier ident) {
    return ident.namespace().length == 1
        && ident.namespace()[0].equalsIgnoreCase("delta")
        && new org.apache.hadoop.fs.Path(ident.name()).isAbsolute();
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    if (byPath(ident)) return delta().loadTable(ident);
    Located at = locate(ident, getTable(ident));
    return load(ident, at.path, at.readOnly);
  }

  /**
   * The table a statement writes to (INSERT, UPDATE, DELETE, MERGE, and the DataFrame writers' targets):
   * Spark asks for it with the privileges it needs, so a table Unity Catalog refuses writes to (samples) is
   * refused here, before anything is written.
   */
  @Override
  public Table loadTable(Identifier ident, Set<TableWritePrivilege> writePrivileges) throws NoSuchTableException {
    if (byPath(ident)) return delta().loadTable(ident);
    Located at = locate(ident, getTable(ident));
    return load(ident, writePrivileges.isEmpty() ? at.path : at.forWrite(), at.readOnly);
  }

  private Table load(Identifier ident, String path, String readOnly) {
    return CatalogTables.withEntry(
        delta().loadPathTable(pathIdent(path)), name, ident.namespace()[0], ident.name(), path, readOnly);
  }

  @Override
  public Table loadTable(Identifier ident, long timestamp) throws NoSuchTableException {
    if (byPath(ident)) return delta().loadTable(ident, timestamp);
    return delta().loadTable(pathIdent(locate(ident, getTable(ident)).path), timestamp);
  }

  @Override
  public Table loadTable(Identifier ident, String version) throws NoSuchTableException {
    if (byPath(ident)) return delta().loadTable(ident, version);
    return delta().loadTable(pathIdent(locate(ident, getTable(ident)).path), version);
  }

  @Override
  public boolean tableExists(Identifier ident) {
    try {
      getTable(ident);
      return true;
    } catch (NoSuchTableException e) {
      return false;
    }
  }

  @Override
  @SuppressWarnings("deprecation")
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    String full;
    try {
      full = fullName(ident);
    } catch (NoSuchTableException e) {
      throw new NoSuchNamespaceException(ident.namespace());
    }
    String provider = properties.getOrDefault(TableCatalog.PROP_PROVIDER, "delta");
    if (!provider.equalsIgnoreCase("delta"))
      throw new UnsupportedOperationException(
          "MiniLake's Spark catalog creates Delta tables only (USING " + provider + " asked for " + full + ")");
    String location = properties.get(TableCatalog.PROP_LOCATION);
    if ((location == null || location.isEmpty()) && pipelineUpdate != null) {
      PipelineTables.create(uc, pipelineUpdate, name, ident, schema, partitions, properties);
      try {
        return loadTable(ident);
      } catch (NoSuchTableException e) {
        throw new IllegalStateException(ident + " vanished right after it was created", e);
      }
    }
    if (tableExists(ident)) throw new TableAlreadyExistsException(ident);
    if (!namespaceExists(ident.namespace())) throw new NoSuchNamespaceException(ident.namespace());
    Map<String, String> deltaProps = new HashMap<>(properties);
    deltaProps.remove(TableCatalog.PROP_LOCATION);
    deltaProps.remove(TableCatalog.PROP_EXTERNAL);
    deltaProps.remove(TableCatalog.PROP_IS_MANAGED_LOCATION);
    deltaProps.remove(TableCatalog.PROP_OWNER);
    // Spark Declarative Pipelines names no provider: Databricks' default table format is Delta.
    deltaProps.putIfAbsent(TableCatalog.PROP_PROVIDER, "delta");
    if (location == null || location.isEmpty()) {
      // A MANAGED table, as Databricks makes one: Unity Catalog hands out a folder under its storage root
      // (a staging table), Delta writes the table there, and the table is then registered as MANAGED.
      ObjectNode stage =
          uc.object().put("name", ident.name()).put("catalog_name", name).put("schema_name", ident.namespace()[0]);
      String staged;
      try {
        staged = uc.call("POST", "/staging-tables", stage).path("staging_location").asText();
      } catch (UcClient.UcException e) {
        throw Denied.of(e); // a read-only catalog: refused before Delta writes anything
      }
      Table created = delta().createTable(pathIdent(localPath(staged)), schema, partitions, deltaProps);
      register(ident, "MANAGED", staged, created.schema(), properties.get(TableCatalog.PROP_COMMENT), deltaProps);
      return created;
    }
    String path = localPath(location);
    ObjectNode cred = uc.object().put("url", "file://" + path).put("operation", "PATH_CREATE_TABLE");
    try {
      uc.call("POST", "/temporary-path-credentials", cred);
    } catch (UcClient.UcException e) {
      throw Denied.of(e); // a folder inside a read-only catalog's tables
    }
    boolean existed = new java.io.File(path).exists();
    boolean fresh = !new java.io.File(path, "_delta_log").exists();
    Table created = delta().createTable(pathIdent(path), schema, partitions, deltaProps);
    boolean registered = false;
    try {
      register(ident, "EXTERNAL", "file://" + path, created.schema(), properties.get(TableCatalog.PROP_COMMENT), deltaProps);
      registered = true;
    } finally {
      // Unity Catalog refused the table (a read-only catalog, a name taken meanwhile): what Delta just laid
      // down would otherwise stay behind, a table no catalog knows.
      if (!registered && !existed) deleteTree(new java.io.File(path));
      else if (!registered && fresh) deleteTree(new java.io.File(path, "_delta_log"));
    }
    return created;
  }

  /** POST /tables for the table Delta just laid down (the server reads its schema from the log). */
  private void register(
      Identifier ident, String type, String location, StructType schema, String comment, Map<String, String> props)
      throws TableAlreadyExistsException {
    ObjectNode body =
        uc.object()
            .put("name", ident.name())
            .put("catalog_name", name)
            .put("schema_name", ident.namespace()[0])
            .put("table_type", type)
            .put("data_source_format", "DELTA")
            .put("storage_location", location);
    if (comment != null) body.put("comment", comment);
    ArrayNode cols = body.putArray("columns");
    StructField[] fields = schema.fields();
    for (int i = 0; i < fields.length; i++) {
      StructField f = fields[i];
      ObjectNode c = cols.addObject();
      c.put("name", f.name());
      c.put("type_text", f.dataType().simpleString());
      c.put("type_json", fieldJson(f));
      c.put("type_name", typeName(f.dataType()));
      c.put("position", i);
      c.put("nullable", f.nullable());
      if (f.getComment().isDefined()) c.put("comment", f.getComment().get());
    }
    ObjectNode p = body.putObject("properties");
    for (Map.Entry<String, String> e : props.entrySet())
      if (!e.getKey().equals(TableCatalog.PROP_PROVIDER) && !e.getKey().equals(TableCatalog.PROP_COMMENT)) p.put(e.getKey(), e.getValue());
    try {
      uc.call("POST", "/tables", body);
    } catch (UcClient.UcException e) {
      if (e.status == 409) throw new TableAlreadyExistsException(ident);
      throw Denied.of(e);
    }
  }

  private static void deleteTree(java.io.File f) {
    java.io.File[] kids = f.listFiles();
    if (kids != null) for (java.io.File k : kids) deleteTree(k);
    f.delete();
  }

  /** Spark's StructField JSON, as UC clients expect in `type_json`. */
  static String fieldJson(StructField f) {
    try {
      return UcClient.JSON.readTree(new StructType(new StructField[] {f}).json()).path("fields").get(0).toString();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Unity Catalog's ColumnTypeName for a Spark type. */
  static String typeName(DataType t) {
    String s = t.typeName().toLowerCase(Locale.ROOT);
    if (s.startsWith("decimal")) return "DECIMAL";
    if (s.startsWith("varchar")) return "STRING";
    if (s.startsWith("char")) return "CHAR";
    if (s.startsWith("interval")) return "INTERVAL";
    switch (s) {
      case "integer":
        return "INT";
      case "long":
        return "LONG";
      case "short":
        return "SHORT";
      case "byte":
        return "BYTE";
      case "timestamp_ntz":
        return "TIMESTAMP_NTZ";
      case "void":
        return "NULL";
      default:
        return s.toUpperCase(Locale.ROOT);
    }
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    // Delta applies the change to its log (a streaming table's schema merge, properties); the server reads
    // columns from the log, so Unity Catalog reports them at once.
    String path = locate(ident, getTable(ident)).forWrite();
    delta().alterTable(pathIdent(path), changes);
    return loadTable(ident);
  }

  @Override
  public boolean dropTable(Identifier ident) {
    try {
      uc.call("DELETE", "/tables/" + UcClient.enc(fullName(ident)), null);
      return true;
    } catch (NoSuchTableException e) {
      return false;
    } catch (UcClient.UcException e) {
      if (notFound(e)) return false;
      throw Denied.of(e);
    }
  }

  @Override
  public void renameTable(Identifier from, Identifier to) {
    throw new UnsupportedOperationException("Renaming a table through MiniLake's Spark catalog is not supported");
  }

}
