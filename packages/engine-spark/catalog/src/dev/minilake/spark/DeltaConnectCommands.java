package dev.minilake.spark;

import dev.minilake.spark.DeltaConnectWire.Msg;
import io.delta.tables.DeltaTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.connect.proto.DataType;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connect.common.DataTypeProtoConverter;
import org.apache.spark.sql.connect.planner.SparkConnectPlanner;
import org.apache.spark.sql.connect.plugin.CommandPlugin;
import org.sparkproject.connect.protobuf.ByteString;

/**
 * Delta Connect's commands (a Command whose `extension` is an Any of `delta.connect.DeltaCommand`,
 * DeltaConnectWire): vacuum, upgradeTableProtocol, addFeatureSupport and generate through
 * delta-spark's public DeltaTable API; clone and the create/replace table builders as the SQL statements
 * they stand for (see clone and create). The client reads no
 * result from them (it opens the table by name or path afterwards), so a command only has to run or fail.
 * Registered with `spark.connect.extensions.command.classes` (src/engine.ts); the relations are DeltaConnect.
 */
public final class DeltaConnectCommands implements CommandPlugin {
  @Override
  public boolean process(byte[] command, SparkConnectPlanner planner) {
    ByteString value = DeltaConnectWire.unpack(command, DeltaConnectWire.COMMAND_TYPE);
    if (value == null) return false;
    run(Msg.parse(value), planner.session());
    return true;
  }

  private static void run(Msg c, SparkSession spark) {
    int kind =
        c.which(
            DeltaConnectWire.CMD_CLONE,
            DeltaConnectWire.CMD_VACUUM,
            DeltaConnectWire.CMD_UPGRADE_PROTOCOL,
            DeltaConnectWire.CMD_GENERATE,
            DeltaConnectWire.CMD_CREATE,
            DeltaConnectWire.CMD_ADD_FEATURE);
    Msg m = kind == 0 ? null : c.msg(kind);
    switch (kind) {
      case DeltaConnectWire.CMD_CLONE:
        clone(spark, m);
        return;
      case DeltaConnectWire.CMD_VACUUM:
        {
          DeltaTable t = DeltaConnect.table(spark, m);
          if (m.has(DeltaConnectWire.VACUUM_RETENTION_HOURS))
            t.vacuum(m.dbl(DeltaConnectWire.VACUUM_RETENTION_HOURS));
          else t.vacuum();
          return;
        }
      case DeltaConnectWire.CMD_UPGRADE_PROTOCOL:
        DeltaConnect.table(spark, m)
            .upgradeTableProtocol(
                (int) m.varint(DeltaConnectWire.UPGRADE_READER), (int) m.varint(DeltaConnectWire.UPGRADE_WRITER));
        return;
      case DeltaConnectWire.CMD_GENERATE:
        DeltaConnect.table(spark, m).generate(m.string(DeltaConnectWire.GENERATE_MODE));
        return;
      case DeltaConnectWire.CMD_ADD_FEATURE:
        DeltaConnect.table(spark, m).addFeatureSupport(m.string(DeltaConnectWire.FEATURE_NAME));
        return;
      case DeltaConnectWire.CMD_CREATE:
        create(spark, m);
        return;
      default:
        throw DeltaConnect.invalid(
            "this DeltaTable command is not supported by MiniLake's Delta Connect (an unknown DeltaCommand: "
                + "the client is newer than the server)");
    }
  }

  /**
   * DeltaTable.clone / cloneAtVersion / cloneAtTimestamp as the statement they stand for, `CREATE [OR
   * REPLACE] TABLE target SHALLOW CLONE source [VERSION|TIMESTAMP AS OF ...] [TBLPROPERTIES (...)]`: the
   * target is a name the user wrote for Databricks (Unity Catalog's `main.s.t`), which delta-spark's
   * DeltaTable.clone would parse as at most two parts. The source is the table the client named, after
   * checking it is a Delta table. A deep clone (isShallow=False) is Databricks-only: Delta's SQL refuses it.
   */
  private static void clone(SparkSession spark, Msg m) {
    DeltaConnect.table(spark, m);
    Msg t = m.msg(DeltaConnectWire.TABLE);
    String source =
        t.has(DeltaConnectWire.TABLE_NAME)
            ? t.string(DeltaConnectWire.TABLE_NAME)
            : "delta.`" + t.msg(DeltaConnectWire.TABLE_PATH).string(DeltaConnectWire.PATH_PATH).replace("`", "``") + "`";
    StringBuilder sql = new StringBuilder(m.bool(DeltaConnectWire.CLONE_REPLACE) ? "CREATE OR REPLACE TABLE " : "CREATE TABLE ");
    sql.append(m.string(DeltaConnectWire.CLONE_TARGET))
        .append(m.bool(DeltaConnectWire.CLONE_SHALLOW) ? " SHALLOW CLONE " : " DEEP CLONE ")
        .append(source);
    if (m.has(DeltaConnectWire.CLONE_VERSION)) sql.append(" VERSION AS OF ").append(m.varint(DeltaConnectWire.CLONE_VERSION));
    else if (m.has(DeltaConnectWire.CLONE_TIMESTAMP))
      sql.append(" TIMESTAMP AS OF ").append(literal(m.string(DeltaConnectWire.CLONE_TIMESTAMP)));
    Map<String, String> props = m.stringMap(DeltaConnectWire.CLONE_PROPERTIES);
    if (!props.isEmpty()) sql.append(" TBLPROPERTIES (").append(properties(props)).append(")");
    spark.sql(sql.toString());
  }

  private static String properties(Map<String, String> props) {
    List<String> kv = new ArrayList<>();
    for (Map.Entry<String, String> p : new TreeMap<>(props).entrySet())
      kv.add(literal(p.getKey()) + " = " + literal(p.getValue()));
    return String.join(", ", kv);
  }

  /**
   * DeltaTable.create / createIfNotExists / replace / createOrReplace with what the builder collected, as the
   * CREATE/REPLACE TABLE statement it stands for: delta-spark's own DeltaTableBuilder parses a two-part name
   * and goes to the session catalog only, while Databricks' builder takes Unity Catalog's `main.s.t`; the
   * statement goes through the catalogs like SQL (a MANAGED table in Unity Catalog's storage root). The name is
   * the user's, already in SQL's form (what DeltaTable.forName takes).
   */
  private static void create(SparkSession spark, Msg m) {
    String verb;
    switch ((int) m.varint(DeltaConnectWire.CREATE_MODE)) {
      case DeltaConnectWire.MODE_CREATE:
        verb = "CREATE TABLE ";
        break;
      case DeltaConnectWire.MODE_CREATE_IF_NOT_EXISTS:
        verb = "CREATE TABLE IF NOT EXISTS ";
        break;
      case DeltaConnectWire.MODE_REPLACE:
        verb = "REPLACE TABLE ";
        break;
      case DeltaConnectWire.MODE_CREATE_OR_REPLACE:
        verb = "CREATE OR REPLACE TABLE ";
        break;
      default:
        throw DeltaConnect.invalid("the table builder names no mode (create, createIfNotExists, replace...)");
    }
    String name = m.optString(DeltaConnectWire.CREATE_NAME);
    String location = m.optString(DeltaConnectWire.CREATE_LOCATION);
    String comment = m.optString(DeltaConnectWire.CREATE_COMMENT);
    if (name == null && location == null) throw DeltaConnect.invalid("the table builder needs a tableName or a location");
    StringBuilder sql = new StringBuilder(verb);
    sql.append(name != null ? name : "delta.`" + location.replace("`", "``") + "`");
    List<String> cols = new ArrayList<>();
    for (Msg col : m.msgs(DeltaConnectWire.CREATE_COLUMNS)) cols.add(column(col));
    if (!cols.isEmpty()) sql.append(" (").append(String.join(", ", cols)).append(")");
    sql.append(" USING delta");
    List<String> parts = m.strings(DeltaConnectWire.CREATE_PARTITIONING);
    if (!parts.isEmpty()) sql.append(" PARTITIONED BY (").append(idents(parts)).append(")");
    List<String> clustering = m.strings(DeltaConnectWire.CREATE_CLUSTERING);
    if (!clustering.isEmpty()) sql.append(" CLUSTER BY (").append(idents(clustering)).append(")");
    if (comment != null) sql.append(" COMMENT ").append(literal(comment));
    if (name != null && location != null) sql.append(" LOCATION ").append(literal(location));
    Map<String, String> props = m.stringMap(DeltaConnectWire.CREATE_PROPERTIES);
    if (!props.isEmpty()) sql.append(" TBLPROPERTIES (").append(properties(props)).append(")");
    spark.sql(sql.toString());
  }

  private static String column(Msg col) {
    StringBuilder c = new StringBuilder(ident(col.string(DeltaConnectWire.COLUMN_NAME)));
    c.append(' ').append(dataType(col.bytes(DeltaConnectWire.COLUMN_TYPE)).sql());
    if (!col.bool(DeltaConnectWire.COLUMN_NULLABLE)) c.append(" NOT NULL");
    String generated = col.optString(DeltaConnectWire.COLUMN_GENERATED);
    if (generated != null) c.append(" GENERATED ALWAYS AS (").append(generated).append(")");
    if (col.has(DeltaConnectWire.COLUMN_IDENTITY)) {
      Msg id = col.msg(DeltaConnectWire.COLUMN_IDENTITY);
      c.append(id.bool(DeltaConnectWire.IDENTITY_EXPLICIT_INSERT) ? " GENERATED BY DEFAULT" : " GENERATED ALWAYS")
          .append(" AS IDENTITY (START WITH ")
          .append(id.varint(DeltaConnectWire.IDENTITY_START))
          .append(" INCREMENT BY ")
          .append(id.varint(DeltaConnectWire.IDENTITY_STEP))
          .append(")");
    }
    String comment = col.optString(DeltaConnectWire.COLUMN_COMMENT);
    if (comment != null) c.append(" COMMENT ").append(literal(comment));
    return c.toString();
  }

  private static String ident(String s) {
    return "`" + s.replace("`", "``") + "`";
  }

  private static String idents(List<String> names) {
    List<String> out = new ArrayList<>();
    for (String n : names) out.add(ident(n));
    return String.join(", ", out);
  }

  private static String literal(String s) {
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'";
  }

  /** A column's type: a DDL string the client left unparsed (addColumn("x", "INT")) or a typed DataType. */
  private static org.apache.spark.sql.types.DataType dataType(ByteString b) {
    DataType t = DeltaConnectWire.dataType(b);
    if (t.hasUnparsed()) return org.apache.spark.sql.types.DataType.fromDDL(t.getUnparsed().getDataTypeString());
    return DataTypeProtoConverter.toCatalystType(t);
  }
}
