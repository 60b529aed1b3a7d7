package dev.minilake.spark;

import dev.minilake.spark.DeltaConnectWire.Msg;
import io.delta.tables.DeltaColumnBuilder;
import io.delta.tables.DeltaTable;
import io.delta.tables.DeltaTableBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.connect.proto.DataType;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connect.common.DataTypeProtoConverter;
import org.apache.spark.sql.connect.planner.SparkConnectPlanner;
import org.apache.spark.sql.connect.plugin.CommandPlugin;
import org.sparkproject.connect.protobuf.ByteString;

/**
 * Delta Connect's commands (a Command whose `extension` is an Any of `delta.connect.DeltaCommand`,
 * DeltaConnectWire): vacuum, clone, upgradeTableProtocol, addFeatureSupport, generate and the
 * create/replace table builders, each through delta-spark's public DeltaTable API. The client reads no
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

  private static void clone(SparkSession spark, Msg m) {
    DeltaTable t = DeltaConnect.table(spark, m);
    String target = m.string(DeltaConnectWire.CLONE_TARGET);
    boolean shallow = m.bool(DeltaConnectWire.CLONE_SHALLOW);
    boolean replace = m.bool(DeltaConnectWire.CLONE_REPLACE);
    HashMap<String, String> props = new HashMap<>(m.stringMap(DeltaConnectWire.CLONE_PROPERTIES));
    if (m.has(DeltaConnectWire.CLONE_VERSION))
      t.cloneAtVersion(m.varint(DeltaConnectWire.CLONE_VERSION), target, shallow, replace, props);
    else if (m.has(DeltaConnectWire.CLONE_TIMESTAMP))
      t.cloneAtTimestamp(m.string(DeltaConnectWire.CLONE_TIMESTAMP), target, shallow, replace, props);
    else t.clone(target, shallow, replace, props);
  }

  /** DeltaTable.create / createIfNotExists / replace / createOrReplace with what the builder collected. */
  private static void create(SparkSession spark, Msg m) {
    DeltaTableBuilder b;
    switch ((int) m.varint(DeltaConnectWire.CREATE_MODE)) {
      case DeltaConnectWire.MODE_CREATE:
        b = DeltaTable.create(spark);
        break;
      case DeltaConnectWire.MODE_CREATE_IF_NOT_EXISTS:
        b = DeltaTable.createIfNotExists(spark);
        break;
      case DeltaConnectWire.MODE_REPLACE:
        b = DeltaTable.replace(spark);
        break;
      case DeltaConnectWire.MODE_CREATE_OR_REPLACE:
        b = DeltaTable.createOrReplace(spark);
        break;
      default:
        throw DeltaConnect.invalid("the table builder names no mode (create, createIfNotExists, replace...)");
    }
    String name = m.optString(DeltaConnectWire.CREATE_NAME);
    String location = m.optString(DeltaConnectWire.CREATE_LOCATION);
    String comment = m.optString(DeltaConnectWire.CREATE_COMMENT);
    if (name != null) b = b.tableName(name);
    if (location != null) b = b.location(location);
    if (comment != null) b = b.comment(comment);
    for (Msg col : m.msgs(DeltaConnectWire.CREATE_COLUMNS)) b = b.addColumn(column(spark, col).build());
    List<String> parts = m.strings(DeltaConnectWire.CREATE_PARTITIONING);
    if (!parts.isEmpty()) b = b.partitionedBy(parts.toArray(new String[0]));
    List<String> clustering = m.strings(DeltaConnectWire.CREATE_CLUSTERING);
    if (!clustering.isEmpty()) b = b.clusterBy(clustering.toArray(new String[0]));
    for (Map.Entry<String, String> p : m.stringMap(DeltaConnectWire.CREATE_PROPERTIES).entrySet())
      b = b.property(p.getKey(), p.getValue());
    b.execute();
  }

  private static DeltaColumnBuilder column(SparkSession spark, Msg col) {
    DeltaColumnBuilder c =
        DeltaTable.columnBuilder(spark, col.string(DeltaConnectWire.COLUMN_NAME))
            .dataType(dataType(col.bytes(DeltaConnectWire.COLUMN_TYPE)))
            .nullable(col.bool(DeltaConnectWire.COLUMN_NULLABLE));
    String generated = col.optString(DeltaConnectWire.COLUMN_GENERATED);
    if (generated != null) c = c.generatedAlwaysAs(generated);
    String comment = col.optString(DeltaConnectWire.COLUMN_COMMENT);
    if (comment != null) c = c.comment(comment);
    if (col.has(DeltaConnectWire.COLUMN_IDENTITY)) {
      Msg id = col.msg(DeltaConnectWire.COLUMN_IDENTITY);
      long start = id.varint(DeltaConnectWire.IDENTITY_START), step = id.varint(DeltaConnectWire.IDENTITY_STEP);
      c =
          id.bool(DeltaConnectWire.IDENTITY_EXPLICIT_INSERT)
              ? c.generatedByDefaultAsIdentity(start, step)
              : c.generatedAlwaysAsIdentity(start, step);
    }
    return c;
  }

  /** A column's type: a DDL string the client left unparsed (addColumn("x", "INT")) or a typed DataType. */
  private static org.apache.spark.sql.types.DataType dataType(ByteString b) {
    DataType t = DeltaConnectWire.dataType(b);
    if (t.hasUnparsed()) return org.apache.spark.sql.types.DataType.fromDDL(t.getUnparsed().getDataTypeString());
    return DataTypeProtoConverter.toCatalystType(t);
  }
}
