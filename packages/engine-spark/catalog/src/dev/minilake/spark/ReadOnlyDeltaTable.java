package dev.minilake.spark;

import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.delta.DeltaTimeTravelSpec;
import org.apache.spark.sql.delta.catalog.DeltaTableV2;
import scala.Option;

/**
 * A Delta table Unity Catalog refuses writes to (the read-only samples catalog): read like any other, but
 * its write builder refuses. Spark builds a write while it plans the statement (V2Writes), before any file
 * is written, so this catches the writes that reach the table without asking for write privileges (an
 * INSERT whose query reads the same table resolves its target from the analyzer's relation cache;
 * DataFrameWriterV2's append). DELETE, UPDATE and MERGE are refused earlier, where Spark loads their target
 * with write privileges (MiniLakeCatalog.loadTable).
 */
final class ReadOnlyDeltaTable extends DeltaTableV2 {
  private static final long serialVersionUID = 1L;
  private final String refusal;

  ReadOnlyDeltaTable(
      SparkSession session,
      Path path,
      Option<CatalogTable> entry,
      Option<String> name,
      scala.collection.immutable.Map<String, String> options,
      String refusal) {
    super(session, path, entry, name, Option.<DeltaTimeTravelSpec>empty(), options);
    this.refusal = refusal;
  }

  /** Unity Catalog's reason (what a refused write says). */
  String refusal() {
    return refusal;
  }

  @Override
  public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
    throw Denied.of(refusal);
  }
}
