package dev.minilake.spark;

import dev.minilake.spark.DeltaConnectWire.Msg;
import io.delta.tables.DeltaOptimizeBuilder;
import io.delta.tables.DeltaTable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.catalyst.analysis.UnresolvedStar;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.expressions.Literal;
import org.apache.spark.sql.catalyst.plans.logical.Assignment;
import org.apache.spark.sql.catalyst.plans.logical.DeleteFromTable;
import org.apache.spark.sql.catalyst.plans.logical.DeltaMergeInto$;
import org.apache.spark.sql.catalyst.plans.logical.DeltaMergeIntoClause;
import org.apache.spark.sql.catalyst.plans.logical.DeltaMergeIntoClause$;
import org.apache.spark.sql.catalyst.plans.logical.DeltaMergeIntoMatchedDeleteClause;
import org.apache.spark.sql.catalyst.plans.logical.DeltaMergeIntoMatchedUpdateClause;
import org.apache.spark.sql.catalyst.plans.logical.DeltaMergeIntoNotMatchedBySourceDeleteClause;
import org.apache.spark.sql.catalyst.plans.logical.DeltaMergeIntoNotMatchedBySourceUpdateClause;
import org.apache.spark.sql.catalyst.plans.logical.DeltaMergeIntoNotMatchedInsertClause;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.plans.logical.SubqueryAlias;
import org.apache.spark.sql.catalyst.plans.logical.UpdateTable;
import org.apache.spark.sql.classic.Dataset;
import org.apache.spark.sql.classic.SparkSession;
import org.apache.spark.sql.connect.common.DataTypeProtoConverter;
import org.apache.spark.sql.connect.planner.SparkConnectPlanner;
import org.apache.spark.sql.connect.plugin.RelationPlugin;
import org.apache.spark.sql.delta.catalog.DeltaTableV2;
import org.apache.spark.sql.delta.files.TahoeFileIndex;
import org.apache.spark.sql.execution.datasources.FileIndex;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructType;
import org.sparkproject.connect.protobuf.ByteString;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Delta Connect's relations on MiniLake's Spark Connect servers, what `from delta.tables import DeltaTable`
 * sends over Databricks Connect (the client ships in databricks-connect under delta/connect/): a
 * Relation whose `extension` is an Any of `delta.connect.DeltaRelation` (DeltaConnectWire). Registered with
 * `spark.connect.extensions.relation.classes` (src/engine.ts); the commands are DeltaConnectCommands.
 *
 * Each operation runs on delta-spark's own code: the table ones through its public DeltaTable API (scan,
 * history, detail, restore, optimize, isDeltaTable, convertToDelta); DELETE, UPDATE and MERGE as the same
 * logical plans Spark's SQL parser makes for those statements, over the target the client embeds (its scan,
 * perhaps under an alias), so their metrics come back as rows, as on Databricks, and MiniLake's own checks
 * (DatabricksSqlExtension's read-only rule) see them like the SQL statements. Results are returned as
 * executed plans: the client runs `toPandas()` on them once, so a command must not run a second time when
 * Spark Connect analyses the relation again.
 */
public final class DeltaConnect implements RelationPlugin {
  @Override
  public Optional<LogicalPlan> transform(byte[] relation, SparkConnectPlanner planner) {
    ByteString value = DeltaConnectWire.unpack(relation, DeltaConnectWire.RELATION_TYPE);
    if (value == null) return Optional.empty();
    return Optional.of(transform(Msg.parse(value), planner));
  }

  private static LogicalPlan transform(Msg r, SparkConnectPlanner planner) {
    SparkSession spark = planner.session();
    int kind =
        r.which(
            DeltaConnectWire.REL_SCAN,
            DeltaConnectWire.REL_HISTORY,
            DeltaConnectWire.REL_DETAIL,
            DeltaConnectWire.REL_CONVERT,
            DeltaConnectWire.REL_RESTORE,
            DeltaConnectWire.REL_IS_DELTA,
            DeltaConnectWire.REL_DELETE,
            DeltaConnectWire.REL_UPDATE,
            DeltaConnectWire.REL_MERGE,
            DeltaConnectWire.REL_OPTIMIZE);
    Msg m = kind == 0 ? null : r.msg(kind);
    switch (kind) {
      case DeltaConnectWire.REL_SCAN:
        return analyzed(table(spark, m).toDF());
      case DeltaConnectWire.REL_HISTORY:
        return analyzed(table(spark, m).history());
      case DeltaConnectWire.REL_DETAIL:
        return analyzed(table(spark, m).detail());
      case DeltaConnectWire.REL_CONVERT:
        return convertToDelta(spark, m);
      case DeltaConnectWire.REL_RESTORE:
        return restore(spark, m);
      case DeltaConnectWire.REL_IS_DELTA:
        return oneValue(
            spark, DeltaTable.isDeltaTable(spark, m.string(DeltaConnectWire.IS_DELTA_PATH)), DataTypes.BooleanType);
      case DeltaConnectWire.REL_DELETE:
        return executed(spark, delete(planner, m));
      case DeltaConnectWire.REL_UPDATE:
        return executed(spark, update(planner, m));
      case DeltaConnectWire.REL_MERGE:
        return executed(spark, merge(planner, m));
      case DeltaConnectWire.REL_OPTIMIZE:
        return optimize(spark, m);
      default:
        throw invalid("this DeltaTable operation is not supported by MiniLake's Delta Connect (an unknown "
            + "DeltaRelation: the client is newer than the server)");
    }
  }

  /** The table a message's `DeltaTable table = 1` names: by name through the session's catalogs, or a path. */
  static DeltaTable table(SparkSession spark, Msg owner) {
    if (!owner.has(DeltaConnectWire.TABLE)) throw invalid("the DeltaTable names no table");
    Msg t = owner.msg(DeltaConnectWire.TABLE);
    if (t.has(DeltaConnectWire.TABLE_PATH)) {
      Msg p = t.msg(DeltaConnectWire.TABLE_PATH);
      Map<String, String> conf = p.stringMap(DeltaConnectWire.PATH_HADOOP_CONF);
      String path = p.string(DeltaConnectWire.PATH_PATH);
      return conf.isEmpty() ? DeltaTable.forPath(spark, path) : DeltaTable.forPath(spark, path, conf);
    }
    if (t.has(DeltaConnectWire.TABLE_NAME)) return forName(spark, t.string(DeltaConnectWire.TABLE_NAME));
    throw invalid("the DeltaTable names neither a path nor a table");
  }

  /**
   * DeltaTable.forName as on Databricks, for Unity Catalog's three-part names: delta-spark's own forName
   * parses a two-part name and asks the session catalog only, so the name is resolved here like any table
   * (`spark.table`, through MiniLake's catalog plugin) and the Delta table it loads is opened by its folder.
   * What does not load a Delta
   * table (a view, another format) goes to delta-spark's forName, for its own error or ``delta.`path` ``.
   */
  static DeltaTable forName(SparkSession spark, String name) {
    Dataset<Row> df = spark.table(name);
    LogicalPlan p = df.queryExecution().analyzed();
    while (p instanceof SubqueryAlias) p = ((SubqueryAlias) p).child();
    // By its folder: delta-spark's history/detail/restore/vacuum/upgrade turn the table's own name into a
    // two-part TableIdentifier (IDENTIFIER_TOO_MANY_NAME_PARTS for `main.s.t`), the folder they do not.
    String folder = deltaFolder(p);
    return folder != null ? DeltaTable.forPath(spark, folder) : DeltaTable.forName(spark, name);
  }

  /**
   * The folder of the Delta table a resolved read scans, or null: Delta's analysis turns the catalog's
   * DeltaTableV2 into a V1 LogicalRelation over its log's file index for reads, so both forms are asked.
   */
  private static String deltaFolder(LogicalPlan p) {
    if (p instanceof DataSourceV2Relation && ((DataSourceV2Relation) p).table() instanceof DeltaTableV2)
      return ((DeltaTableV2) ((DataSourceV2Relation) p).table()).path().toString();
    if (p instanceof LogicalRelation && ((LogicalRelation) p).relation() instanceof HadoopFsRelation) {
      FileIndex index = ((HadoopFsRelation) ((LogicalRelation) p).relation()).location();
      if (index instanceof TahoeFileIndex) return ((TahoeFileIndex) index).path().toString();
    }
    return null;
  }

  private static LogicalPlan analyzed(org.apache.spark.sql.Dataset<Row> df) {
    return ((Dataset<Row>) df).queryExecution().analyzed();
  }

  /** A command's plan run once here; what it returned (its metrics) as rows. */
  private static LogicalPlan executed(SparkSession spark, LogicalPlan command) {
    return Dataset.ofRows(spark, command).queryExecution().commandExecuted();
  }

  private static LogicalPlan executed(org.apache.spark.sql.Dataset<Row> df) {
    return ((Dataset<Row>) df).queryExecution().commandExecuted();
  }

  private static LogicalPlan oneValue(SparkSession spark, Object v, org.apache.spark.sql.types.DataType type) {
    StructType schema = new StructType().add("value", type, false);
    List<Row> rows = List.of(RowFactory.create(v));
    return analyzed(spark.createDataFrame(rows, schema));
  }

  private static LogicalPlan restore(SparkSession spark, Msg m) {
    DeltaTable t = table(spark, m);
    if (m.has(DeltaConnectWire.RESTORE_VERSION))
      return executed(t.restoreToVersion(m.varint(DeltaConnectWire.RESTORE_VERSION)));
    if (m.has(DeltaConnectWire.RESTORE_TIMESTAMP))
      return executed(t.restoreToTimestamp(m.string(DeltaConnectWire.RESTORE_TIMESTAMP)));
    throw invalid("restore needs a version or a timestamp");
  }

  private static LogicalPlan optimize(SparkSession spark, Msg m) {
    DeltaOptimizeBuilder b = table(spark, m).optimize();
    for (String f : m.strings(DeltaConnectWire.OPTIMIZE_FILTERS)) b = b.where(f);
    List<String> zorder = m.strings(DeltaConnectWire.OPTIMIZE_ZORDER);
    return executed(
        zorder.isEmpty()
            ? b.executeCompaction()
            : b.executeZOrderBy(CollectionConverters.asScala(zorder).toSeq()));
  }

  /**
   * CONVERT TO DELTA, answering the name the client reads the converted table by (its next call is
   * DeltaTable.forName with it): a catalog table keeps its name, files at a path become delta.`path`.
   */
  private static LogicalPlan convertToDelta(SparkSession spark, Msg m) {
    String id = m.string(DeltaConnectWire.CONVERT_IDENTIFIER);
    if (m.has(DeltaConnectWire.CONVERT_SCHEMA_STRUCT)) {
      StructType schema =
          (StructType)
              DataTypeProtoConverter.toCatalystType(
                  DeltaConnectWire.dataType(m.bytes(DeltaConnectWire.CONVERT_SCHEMA_STRUCT)));
      DeltaTable.convertToDelta(spark, id, schema);
    } else if (m.has(DeltaConnectWire.CONVERT_SCHEMA_STRING)) {
      DeltaTable.convertToDelta(spark, id, m.string(DeltaConnectWire.CONVERT_SCHEMA_STRING));
    } else {
      DeltaTable.convertToDelta(spark, id);
    }
    String t = id.trim();
    boolean byPath = t.regionMatches(true, 0, "parquet.`", 0, 9) && t.endsWith("`");
    String name = byPath ? "delta." + t.substring(8) : id;
    return oneValue(spark, name, DataTypes.StringType);
  }

  private static LogicalPlan target(SparkConnectPlanner planner, Msg m, int field) {
    if (!m.has(field)) throw invalid("the operation has no target table");
    return planner.transformRelation(DeltaConnectWire.relation(m.bytes(field)));
  }

  private static Expression expr(SparkConnectPlanner planner, ByteString b) {
    return planner.transformExpression(DeltaConnectWire.expression(b));
  }

  private static Option<Expression> optExpr(SparkConnectPlanner planner, Msg m, int field) {
    return m.has(field) ? Option.apply(expr(planner, m.bytes(field))) : Option.<Expression>empty();
  }

  private static scala.collection.immutable.Seq<Assignment> assignments(
      SparkConnectPlanner planner, Msg m, int field) {
    List<Assignment> out = new ArrayList<>();
    for (Msg a : m.msgs(field))
      out.add(
          new Assignment(
              expr(planner, a.bytes(DeltaConnectWire.ASSIGN_FIELD)),
              expr(planner, a.bytes(DeltaConnectWire.ASSIGN_VALUE))));
    return seq(out);
  }

  private static <T> scala.collection.immutable.Seq<T> seq(List<T> l) {
    return CollectionConverters.asScala(l).toSeq();
  }

  private static LogicalPlan delete(SparkConnectPlanner planner, Msg m) {
    LogicalPlan target = target(planner, m, DeltaConnectWire.DML_TARGET);
    Expression cond =
        m.has(DeltaConnectWire.DML_CONDITION)
            ? expr(planner, m.bytes(DeltaConnectWire.DML_CONDITION))
            : Literal.TrueLiteral();
    return new DeleteFromTable(target, cond);
  }

  private static LogicalPlan update(SparkConnectPlanner planner, Msg m) {
    LogicalPlan target = target(planner, m, DeltaConnectWire.DML_TARGET);
    return new UpdateTable(
        target,
        assignments(planner, m, DeltaConnectWire.UPDATE_ASSIGNMENTS),
        optExpr(planner, m, DeltaConnectWire.DML_CONDITION));
  }

  /** The clauses in the client's order within each kind, as MERGE INTO's grammar has them. */
  private static LogicalPlan merge(SparkConnectPlanner planner, Msg m) {
    LogicalPlan target = target(planner, m, DeltaConnectWire.MERGE_TARGET);
    LogicalPlan source = target(planner, m, DeltaConnectWire.MERGE_SOURCE);
    if (!m.has(DeltaConnectWire.MERGE_CONDITION)) throw invalid("merge needs a condition");
    Expression cond = expr(planner, m.bytes(DeltaConnectWire.MERGE_CONDITION));
    List<DeltaMergeIntoClause> clauses = new ArrayList<>();
    for (Msg a : m.msgs(DeltaConnectWire.MERGE_MATCHED)) {
      Option<Expression> c = optExpr(planner, a, DeltaConnectWire.ACTION_CONDITION);
      switch (action(a)) {
        case DeltaConnectWire.ACTION_DELETE:
          clauses.add(new DeltaMergeIntoMatchedDeleteClause(c));
          break;
        case DeltaConnectWire.ACTION_UPDATE:
          clauses.add(new DeltaMergeIntoMatchedUpdateClause(c, actions(planner, a, DeltaConnectWire.ACTION_UPDATE)));
          break;
        case DeltaConnectWire.ACTION_UPDATE_STAR:
          clauses.add(new DeltaMergeIntoMatchedUpdateClause(c, star()));
          break;
        default:
          throw invalid("whenMatched takes update, updateAll or delete");
      }
    }
    for (Msg a : m.msgs(DeltaConnectWire.MERGE_NOT_MATCHED)) {
      Option<Expression> c = optExpr(planner, a, DeltaConnectWire.ACTION_CONDITION);
      switch (action(a)) {
        case DeltaConnectWire.ACTION_INSERT:
          clauses.add(
              new DeltaMergeIntoNotMatchedInsertClause(c, actions(planner, a, DeltaConnectWire.ACTION_INSERT)));
          break;
        case DeltaConnectWire.ACTION_INSERT_STAR:
          clauses.add(new DeltaMergeIntoNotMatchedInsertClause(c, star()));
          break;
        default:
          throw invalid("whenNotMatched takes insert or insertAll");
      }
    }
    for (Msg a : m.msgs(DeltaConnectWire.MERGE_NOT_MATCHED_BY_SOURCE)) {
      Option<Expression> c = optExpr(planner, a, DeltaConnectWire.ACTION_CONDITION);
      switch (action(a)) {
        case DeltaConnectWire.ACTION_DELETE:
          clauses.add(new DeltaMergeIntoNotMatchedBySourceDeleteClause(c));
          break;
        case DeltaConnectWire.ACTION_UPDATE:
          clauses.add(
              new DeltaMergeIntoNotMatchedBySourceUpdateClause(
                  c, actions(planner, a, DeltaConnectWire.ACTION_UPDATE)));
          break;
        default:
          throw invalid("whenNotMatchedBySource takes update or delete");
      }
    }
    return DeltaMergeInto$.MODULE$.apply(
        target, source, cond, seq(clauses), m.bool(DeltaConnectWire.MERGE_SCHEMA_EVOLUTION));
  }

  private static int action(Msg a) {
    return a.which(
        DeltaConnectWire.ACTION_DELETE,
        DeltaConnectWire.ACTION_UPDATE,
        DeltaConnectWire.ACTION_UPDATE_STAR,
        DeltaConnectWire.ACTION_INSERT,
        DeltaConnectWire.ACTION_INSERT_STAR);
  }

  /** An update/insert action's assignments as MERGE's actions (none at all means every column, `*`). */
  private static scala.collection.immutable.Seq<Expression> actions(SparkConnectPlanner planner, Msg a, int kind) {
    return DeltaMergeIntoClause$.MODULE$
        .toActions(assignments(planner, a.msg(kind), DeltaConnectWire.ACTION_ASSIGNMENTS))
        .toSeq();
  }

  private static scala.collection.immutable.Seq<Expression> star() {
    return seq(List.<Expression>of(new UnresolvedStar(Option.empty())));
  }

  /**
   * A request MiniLake cannot serve, as an AnalysisException with the reason (what a Spark Connect client
   * raises as one), never a silent success. Thrown unchecked, as Spark's Scala code does (see Denied).
   */
  static RuntimeException invalid(String message) {
    throw DeltaConnect.<RuntimeException>sneaky(
        new AnalysisException(
            message,
            Option.<Object>empty(),
            Option.<Object>empty(),
            Option.<Throwable>empty(),
            Option.<String>empty(),
            scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
            new QueryContext[0]));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E sneaky(Throwable t) throws E {
    throw (E) t;
  }
}
