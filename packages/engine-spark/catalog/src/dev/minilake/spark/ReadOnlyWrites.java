package dev.minilake.spark;

import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.analysis.ResolvedTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.delta.DeltaLog;
import org.apache.spark.sql.delta.catalog.DeltaTableV2;
import org.apache.spark.sql.delta.files.TahoeFileIndex;
import org.apache.spark.sql.execution.datasources.HadoopFsRelation;
import org.apache.spark.sql.execution.datasources.LogicalRelation;
import org.apache.spark.sql.execution.datasources.v2.DataSourceV2Relation;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A look at every resolved plan (a post-hoc resolution rule of DatabricksSqlExtension; it changes nothing): a
 * statement that changes
 * the files of a table Unity Catalog keeps read-only (the samples catalog) is refused before it runs, however
 * it names the table. The catalog's own write path (MiniLakeCatalog.loadTable with write privileges,
 * ReadOnlyDeltaTable) catches writes by name through Spark's DML; what goes around it is caught here: Delta's
 * own commands (OPTIMIZE, VACUUM, RESTORE, REORG, GENERATE, its ALTERs), which load the table for reading and
 * then write its log themselves, and writes by path (`delta.`/folder``, `df.write.save(folder)`,
 * DeltaTable.forPath), which never meet the catalog: for those Unity Catalog is asked for write credentials on
 * the folder, which it refuses inside samples, as Databricks refuses writes to a read-only share.
 */
final class ReadOnlyWrites extends Rule<LogicalPlan> {
  /** Commands that write, and the field holding the plan of what they write to (their other plans are read). */
  private static final Map<String, String> TARGET_PLAN =
      Map.ofEntries(
          Map.entry("AppendData", "table"),
          Map.entry("OverwriteByExpression", "table"),
          Map.entry("OverwritePartitionsDynamic", "table"),
          Map.entry("ReplaceData", "table"),
          Map.entry("WriteDelta", "table"),
          Map.entry("DeleteFromTable", "table"),
          Map.entry("UpdateTable", "table"),
          Map.entry("MergeIntoTable", "targetTable"),
          Map.entry("DeltaDelete", "child"),
          Map.entry("DeltaUpdateTable", "child"),
          Map.entry("DeltaMergeInto", "target"),
          Map.entry("OptimizeTableCommand", "child"),
          Map.entry("VacuumTableCommand", "child"),
          Map.entry("DeltaGenerateCommand", "child"),
          Map.entry("DeltaReorgTableCommand", "target"),
          Map.entry("DeltaReorgTable", "target"));

  /**
   * Commands that write and name their target by a field that is not a plan (a table, a log, a folder); their
   * plan fields are what they read (MERGE's source), so only these other fields are looked at.
   */
  private static final Set<String> TARGET_FIELDS =
      Set.of(
          "WriteIntoDelta",
          "DeleteCommand",
          "UpdateCommand",
          "MergeIntoCommand",
          "RestoreTableCommand",
          "CreateDeltaTableCommand",
          "CloneTableCommand",
          "InsertIntoHadoopFsRelationCommand",
          "SaveIntoDataSourceCommand");

  /** Folders Unity Catalog said are writable, with when: asked again after a while, not on every plan. */
  private static final java.util.Map<String, Long> WRITABLE = new java.util.concurrent.ConcurrentHashMap<>();
  private static final long WRITABLE_TTL_MS = 10_000;

  private final SparkSession session;

  ReadOnlyWrites(SparkSession session) {
    this.session = session;
  }

  /**
   * A resolution rule rather than a check rule: Spark appends the whole plan to the message of an error a check
   * rule raises, while a refusal during resolution reads as the catalog's own (MiniLakeCatalog.loadTable's).
   */
  @Override
  public LogicalPlan apply(LogicalPlan plan) {
    walk(plan, new HashSet<>());
    return plan;
  }

  private void walk(LogicalPlan node, Set<String> checked) {
    String kind = node.getClass().getSimpleName();
    String field = TARGET_PLAN.get(kind);
    if (field != null) {
      Object target = call(node, field);
      if (target instanceof LogicalPlan p) checkPlan(p, checked);
    } else if (TARGET_FIELDS.contains(kind) || isDeltaAlter(kind)) {
      scala.collection.Iterator<Object> fields = node.productIterator();
      while (fields.hasNext()) checkValue(fields.next(), checked);
    }
    for (LogicalPlan child : CollectionConverters.asJava(node.children())) walk(child, checked);
  }

  /** Delta's ALTER TABLE commands (AlterTableSetPropertiesDeltaCommand, AlterTableAddColumnsDeltaCommand...). */
  private static boolean isDeltaAlter(String kind) {
    return kind.startsWith("AlterTable") && kind.endsWith("DeltaCommand");
  }

  /** The table a target plan resolves to: the first one met, as the target is the relation itself. */
  private void checkPlan(LogicalPlan p, Set<String> checked) {
    if (p instanceof ResolvedTable t) {
      checkValue(t.table(), checked);
      return;
    }
    if (p instanceof DataSourceV2Relation r) {
      checkValue(r.table(), checked);
      return;
    }
    if (p instanceof LogicalRelation r) {
      checkValue(r.relation(), checked);
      return;
    }
    for (LogicalPlan child : CollectionConverters.asJava(p.children())) checkPlan(child, checked);
  }

  private void checkValue(Object v, Set<String> checked) {
    if (v instanceof scala.Option<?> o) {
      if (o.isDefined()) checkValue(o.get(), checked);
    } else if (v instanceof ReadOnlyDeltaTable t) {
      throw Denied.of(t.refusal());
    } else if (v instanceof DeltaTableV2 t) {
      checkFolder(t.path(), checked);
    } else if (v instanceof DeltaLog l) {
      checkFolder(l.dataPath(), checked);
    } else if (v instanceof TahoeFileIndex i) {
      checkFolder(i.path(), checked);
    } else if (v instanceof HadoopFsRelation r) {
      for (Path p : CollectionConverters.asJava(r.location().rootPaths())) checkFolder(p, checked);
    } else if (v instanceof CatalogTable t) {
      if (t.storage().locationUri().isDefined()) checkFolder(new Path(t.storage().locationUri().get()), checked);
    } else if (v instanceof Path p) {
      checkFolder(p, checked);
    } else if (v instanceof scala.collection.Map<?, ?> m) {
      // SaveIntoDataSourceCommand's options: the folder `save(path)` writes to.
      @SuppressWarnings("unchecked")
      scala.Option<Object> path = ((scala.collection.Map<Object, Object>) m).get("path");
      if (path.isDefined() && path.get() instanceof String s && !s.isEmpty()) checkFolder(new Path(s), checked);
    }
  }

  /**
   * Asks Unity Catalog for write credentials on a local folder, as the official connector does before it
   * writes by path: a folder of a read-only catalog is refused. Folders outside local files (dbfs:, /Volumes
   * through MiniLake's file systems) are Unity Catalog's own to check; without a Unity Catalog server in the
   * session, or when it cannot be reached, the write goes on as Spark would have done.
   */
  private void checkFolder(Path p, Set<String> checked) {
    java.net.URI u = p.toUri();
    if (u.getScheme() != null && !u.getScheme().equals("file")) return;
    String folder = u.getPath();
    if (folder == null || !folder.startsWith("/") || !checked.add(folder)) return;
    if (!UcSession.configured(session)) return;
    Long seen = WRITABLE.get(folder);
    if (seen != null && System.currentTimeMillis() - seen < WRITABLE_TTL_MS) return;
    UcClient uc = UcSession.client(session);
    try {
      uc.call(
          "POST",
          "/temporary-path-credentials",
          uc.object().put("url", "file://" + folder).put("operation", "PATH_READ_WRITE"));
      WRITABLE.put(folder, System.currentTimeMillis());
    } catch (UcClient.UcException e) {
      if (e.denied()) throw Denied.of(e.detail);
    }
  }

  private static Object call(Object target, String method) {
    try {
      return target.getClass().getMethod(method).invoke(target);
    } catch (ReflectiveOperationException e) {
      return null; // another Spark or Delta version's shape: nothing to check here
    }
  }
}
