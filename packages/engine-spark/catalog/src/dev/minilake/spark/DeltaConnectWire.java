package dev.minilake.spark;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.spark.connect.proto.DataType;
import org.apache.spark.connect.proto.Expression;
import org.apache.spark.connect.proto.Relation;
import org.sparkproject.connect.protobuf.ByteString;
import org.sparkproject.connect.protobuf.CodedInputStream;
import org.sparkproject.connect.protobuf.WireFormat;

/**
 * The messages of Delta Connect's wire (package `delta.connect`: base.proto, relations.proto,
 * commands.proto), read by hand: Delta's own server plugin and its generated Java classes are published by
 * no registry MiniLake can use, so this class names every field number it reads. The numbers come from the
 * descriptors the Python client ships (databricks-connect's delta/connect/proto/*_pb2.py, decoded with
 * descriptor_pb2), which match delta-io/delta's spark-connect/common protos. Spark's own messages embedded in
 * them (Relation, Expression, DataType) are parsed with Spark Connect's generated classes (protobuf shaded as
 * org.sparkproject.connect.protobuf), so the planner can turn them into plans.
 */
final class DeltaConnectWire {
  private DeltaConnectWire() {}

  /** The Any type URLs the client packs into Relation.extension / Command.extension. */
  static final String RELATION_TYPE = "delta.connect.DeltaRelation";
  static final String COMMAND_TYPE = "delta.connect.DeltaCommand";

  // google.protobuf.Any
  static final int ANY_TYPE_URL = 1, ANY_VALUE = 2;

  // DeltaTable (base.proto): oneof access_type { Path path = 1; string table_or_view_name = 2; }
  static final int TABLE_PATH = 1, TABLE_NAME = 2;
  // DeltaTable.Path: string path = 1; map<string, string> hadoop_conf = 2 (entries: key = 1, value = 2)
  static final int PATH_PATH = 1, PATH_HADOOP_CONF = 2;
  static final int ENTRY_KEY = 1, ENTRY_VALUE = 2;

  // DeltaRelation (relations.proto): oneof relation_type
  static final int REL_SCAN = 1, REL_HISTORY = 2, REL_DETAIL = 3, REL_CONVERT = 4, REL_RESTORE = 5,
      REL_IS_DELTA = 6, REL_DELETE = 7, REL_UPDATE = 8, REL_MERGE = 9, REL_OPTIMIZE = 10;
  // Scan / DescribeHistory / DescribeDetail / RestoreTable / OptimizeTable / the commands: DeltaTable table = 1
  static final int TABLE = 1;
  // ConvertToDelta: string identifier = 1; oneof { string partition_schema_string = 2; DataType struct = 3 }
  static final int CONVERT_IDENTIFIER = 1, CONVERT_SCHEMA_STRING = 2, CONVERT_SCHEMA_STRUCT = 3;
  // RestoreTable: oneof { int64 version = 2; string timestamp = 3 }
  static final int RESTORE_VERSION = 2, RESTORE_TIMESTAMP = 3;
  // IsDeltaTable: string path = 1
  static final int IS_DELTA_PATH = 1;
  // DeleteFromTable: Relation target = 1; Expression condition = 2
  // UpdateTable: Relation target = 1; Expression condition = 2; repeated Assignment assignments = 3
  static final int DML_TARGET = 1, DML_CONDITION = 2, UPDATE_ASSIGNMENTS = 3;
  // Assignment: Expression field = 1; Expression value = 2
  static final int ASSIGN_FIELD = 1, ASSIGN_VALUE = 2;
  // MergeIntoTable: Relation target = 1; Relation source = 2; Expression condition = 3; repeated Action
  // matched_actions = 4, not_matched_actions = 5, not_matched_by_source_actions = 6;
  // optional bool with_schema_evolution = 7
  static final int MERGE_TARGET = 1, MERGE_SOURCE = 2, MERGE_CONDITION = 3, MERGE_MATCHED = 4,
      MERGE_NOT_MATCHED = 5, MERGE_NOT_MATCHED_BY_SOURCE = 6, MERGE_SCHEMA_EVOLUTION = 7;
  // MergeIntoTable.Action: Expression condition = 1; oneof action_type { DeleteAction = 2; UpdateAction = 3;
  // UpdateStarAction = 4; InsertAction = 5; InsertStarAction = 6 } (Update/InsertAction: repeated
  // Assignment assignments = 1)
  static final int ACTION_CONDITION = 1, ACTION_DELETE = 2, ACTION_UPDATE = 3, ACTION_UPDATE_STAR = 4,
      ACTION_INSERT = 5, ACTION_INSERT_STAR = 6, ACTION_ASSIGNMENTS = 1;
  // OptimizeTable: repeated string partition_filters = 2; repeated string zorder_columns = 3
  static final int OPTIMIZE_FILTERS = 2, OPTIMIZE_ZORDER = 3;

  // DeltaCommand (commands.proto): oneof command_type
  static final int CMD_CLONE = 1, CMD_VACUUM = 2, CMD_UPGRADE_PROTOCOL = 3, CMD_GENERATE = 4, CMD_CREATE = 5,
      CMD_ADD_FEATURE = 6;
  // CloneTable: string target = 2; oneof { int32 version = 3; string timestamp = 4 }; bool is_shallow = 5;
  // bool replace = 6; map<string, string> properties = 7
  static final int CLONE_TARGET = 2, CLONE_VERSION = 3, CLONE_TIMESTAMP = 4, CLONE_SHALLOW = 5,
      CLONE_REPLACE = 6, CLONE_PROPERTIES = 7;
  // VacuumTable: optional double retention_hours = 2
  static final int VACUUM_RETENTION_HOURS = 2;
  // UpgradeTableProtocol: int32 reader_version = 2; int32 writer_version = 3
  static final int UPGRADE_READER = 2, UPGRADE_WRITER = 3;
  // Generate: string mode = 2
  static final int GENERATE_MODE = 2;
  // AddFeatureSupport: string feature_name = 2
  static final int FEATURE_NAME = 2;
  // CreateDeltaTable: Mode mode = 1 (1 CREATE, 2 CREATE_IF_NOT_EXISTS, 3 REPLACE, 4 CREATE_OR_REPLACE);
  // optional string table_name = 2, location = 3, comment = 4; repeated Column columns = 5;
  // repeated string partitioning_columns = 6; map<string, string> properties = 7;
  // repeated string clustering_columns = 8 (Databricks' client only)
  static final int CREATE_MODE = 1, CREATE_NAME = 2, CREATE_LOCATION = 3, CREATE_COMMENT = 4,
      CREATE_COLUMNS = 5, CREATE_PARTITIONING = 6, CREATE_PROPERTIES = 7, CREATE_CLUSTERING = 8;
  static final int MODE_CREATE = 1, MODE_CREATE_IF_NOT_EXISTS = 2, MODE_REPLACE = 3,
      MODE_CREATE_OR_REPLACE = 4;
  // CreateDeltaTable.Column: string name = 1; DataType data_type = 2; bool nullable = 3;
  // optional string generated_always_as = 4; optional string comment = 5; optional IdentityInfo = 6
  static final int COLUMN_NAME = 1, COLUMN_TYPE = 2, COLUMN_NULLABLE = 3, COLUMN_GENERATED = 4,
      COLUMN_COMMENT = 5, COLUMN_IDENTITY = 6;
  // Column.IdentityInfo: int64 start = 1; int64 step = 2; bool allow_explicit_insert = 3
  static final int IDENTITY_START = 1, IDENTITY_STEP = 2, IDENTITY_EXPLICIT_INSERT = 3;

  /**
   * Spark Connect's own limit on nested messages (spark.connect.grpc.marshallerRecursionLimit's default):
   * a Relation embedded here is as deep as the user's DataFrame.
   */
  private static final int RECURSION_LIMIT = 1024;

  /**
   * One message: its fields by number, each the list of values in wire order (varints as Long, 64-bit as
   * Long bits, 32-bit as Integer bits, length-delimited as ByteString). Proto3 takes the last of a repeated
   * scalar; a repeated field keeps all.
   */
  static final class Msg {
    private final Map<Integer, List<Object>> fields;

    private Msg(Map<Integer, List<Object>> fields) {
      this.fields = fields;
    }

    static Msg parse(ByteString bytes) {
      Map<Integer, List<Object>> fields = new LinkedHashMap<>();
      try {
        CodedInputStream in = bytes.newCodedInput();
        while (true) {
          int tag = in.readTag();
          if (tag == 0) break;
          int n = WireFormat.getTagFieldNumber(tag);
          Object v;
          switch (WireFormat.getTagWireType(tag)) {
            case WireFormat.WIRETYPE_VARINT:
              v = in.readInt64();
              break;
            case WireFormat.WIRETYPE_FIXED64:
              v = in.readFixed64();
              break;
            case WireFormat.WIRETYPE_FIXED32:
              v = in.readFixed32();
              break;
            case WireFormat.WIRETYPE_LENGTH_DELIMITED:
              v = in.readBytes();
              break;
            default:
              in.skipField(tag);
              continue;
          }
          fields.computeIfAbsent(n, k -> new ArrayList<>()).add(v);
        }
      } catch (IOException e) {
        throw DeltaConnect.invalid("a Delta Connect message does not parse: " + e.getMessage());
      }
      return new Msg(fields);
    }

    boolean has(int n) {
      return fields.containsKey(n);
    }

    private Object last(int n) {
      List<Object> l = fields.get(n);
      return l == null ? null : l.get(l.size() - 1);
    }

    private <T> List<T> all(int n, Class<T> c) {
      List<Object> l = fields.getOrDefault(n, Collections.emptyList());
      List<T> out = new ArrayList<>(l.size());
      for (Object o : l) {
        if (!c.isInstance(o)) throw DeltaConnect.invalid("field " + n + " has an unexpected wire type");
        out.add(c.cast(o));
      }
      return out;
    }

    ByteString bytes(int n) {
      Object v = last(n);
      if (v != null && !(v instanceof ByteString))
        throw DeltaConnect.invalid("field " + n + " has an unexpected wire type");
      return v == null ? ByteString.EMPTY : (ByteString) v;
    }

    String string(int n) {
      return bytes(n).toStringUtf8();
    }

    /** A string field, or null when it was not sent (a `optional string` or a oneof member). */
    String optString(int n) {
      return has(n) ? string(n) : null;
    }

    List<String> strings(int n) {
      List<String> out = new ArrayList<>();
      for (ByteString b : all(n, ByteString.class)) out.add(b.toStringUtf8());
      return out;
    }

    long varint(int n) {
      Object v = last(n);
      if (v == null) return 0L;
      if (!(v instanceof Long)) throw DeltaConnect.invalid("field " + n + " has an unexpected wire type");
      return (Long) v;
    }

    boolean bool(int n) {
      return varint(n) != 0;
    }

    double dbl(int n) {
      return Double.longBitsToDouble(varint(n));
    }

    Msg msg(int n) {
      return parse(bytes(n));
    }

    List<Msg> msgs(int n) {
      List<Msg> out = new ArrayList<>();
      for (ByteString b : all(n, ByteString.class)) out.add(parse(b));
      return out;
    }

    /** A map<string, string> field (repeated entries of key = 1, value = 2). */
    Map<String, String> stringMap(int n) {
      Map<String, String> out = new HashMap<>();
      for (Msg e : msgs(n)) out.put(e.string(ENTRY_KEY), e.string(ENTRY_VALUE));
      return out;
    }

    /** The number of the oneof member that was sent among `members`, or 0. */
    int which(int... members) {
      int found = 0;
      for (int m : members) if (has(m)) found = m;
      return found;
    }
  }

  /** The value of an Any when its type URL names `type` (type.googleapis.com/<type>), else null. */
  static ByteString unpack(byte[] any, String type) {
    Msg m = Msg.parse(ByteString.copyFrom(any));
    String url = m.string(ANY_TYPE_URL);
    return url.substring(url.lastIndexOf('/') + 1).equals(type) ? m.bytes(ANY_VALUE) : null;
  }

  private static CodedInputStream input(ByteString b) {
    CodedInputStream in = b.newCodedInput();
    in.setRecursionLimit(RECURSION_LIMIT);
    in.setSizeLimit(Integer.MAX_VALUE);
    return in;
  }

  static Relation relation(ByteString b) {
    try {
      return Relation.parseFrom(input(b));
    } catch (IOException e) {
      throw DeltaConnect.invalid("an embedded Relation does not parse: " + e.getMessage());
    }
  }

  static Expression expression(ByteString b) {
    try {
      return Expression.parseFrom(input(b));
    } catch (IOException e) {
      throw DeltaConnect.invalid("an embedded Expression does not parse: " + e.getMessage());
    }
  }

  static DataType dataType(ByteString b) {
    try {
      return DataType.parseFrom(input(b));
    } catch (IOException e) {
      throw DeltaConnect.invalid("an embedded DataType does not parse: " + e.getMessage());
    }
  }
}
