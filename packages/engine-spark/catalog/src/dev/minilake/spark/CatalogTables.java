package dev.minilake.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.fs.Path;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.catalog.CatalogStorageFormat;
import org.apache.spark.sql.catalyst.catalog.CatalogTable;
import org.apache.spark.sql.catalyst.catalog.CatalogTable$;
import org.apache.spark.sql.catalyst.catalog.CatalogTableType;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.delta.catalog.DeltaTableV2;
import org.apache.spark.sql.types.StructType;
import scala.Option;
import scala.jdk.javaapi.CollectionConverters;

/**
 * Delta tables that carry their catalog entry. delta-spark's table by path has none, and without one
 * Structured Streaming cannot write to it by name: `df.writeStream.toTable("c.s.t")` (what every streaming
 * table of a declarative pipeline does) falls back to the table's V1 entry and fails with
 * DELTA_INVALID_V1_TABLE_CALL. The official Unity Catalog connector gives Delta the catalog entry too.
 */
final class CatalogTables {
  private CatalogTables() {}

  static <K, V> scala.collection.immutable.Map<K, V> scalaMap(Map<K, V> m) {
    return scala.collection.immutable.Map$.MODULE$.from(CollectionConverters.asScala(m));
  }

  /** The entry Spark's session catalog would hold for an EXTERNAL Delta table at `path`. */
  static CatalogTable entry(
      String catalog, String schema, String name, String path, StructType dataSchema, List<String> partitions) {
    CatalogTable$ d = CatalogTable$.MODULE$;
    TableIdentifier id = new TableIdentifier(name, Option.apply(schema), Option.apply(catalog));
    CatalogStorageFormat storage =
        new CatalogStorageFormat(
            Option.apply(new Path(path).toUri()), Option.empty(), Option.empty(), Option.empty(), false,
            scalaMap(Map.of()));
    // Scala's default arguments, in order, for everything a Delta table's entry leaves unset.
    return new CatalogTable(
        id, CatalogTableType.EXTERNAL(), storage, dataSchema, Option.apply("delta"),
        CollectionConverters.asScala(partitions).toList(), d.$lessinit$greater$default$7(),
        d.$lessinit$greater$default$8(), d.$lessinit$greater$default$9(), d.$lessinit$greater$default$10(),
        d.$lessinit$greater$default$11(), d.$lessinit$greater$default$12(), d.$lessinit$greater$default$13(),
        d.$lessinit$greater$default$14(), d.$lessinit$greater$default$15(), d.$lessinit$greater$default$16(),
        d.$lessinit$greater$default$17(), d.$lessinit$greater$default$18(), d.$lessinit$greater$default$19(),
        d.$lessinit$greater$default$20(), d.$lessinit$greater$default$21());
  }

  /**
   * `byPath` (delta-spark's table at `path`) again, this time knowing its catalog name and entry; `readOnly`
   * (Unity Catalog's refusal, or null) makes it a table whose writes are refused.
   */
  static Table withEntry(Table byPath, String catalog, String schema, String name, String path, String readOnly) {
    List<String> partitions = new ArrayList<>();
    for (Transform t : byPath.partitioning())
      for (NamedReference r : t.references()) partitions.add(String.join(".", r.fieldNames()));
    CatalogTable entry = entry(catalog, schema, name, path, byPath.schema(), partitions);
    Option<String> full = Option.apply(catalog + "." + schema + "." + name);
    if (readOnly != null)
      return new ReadOnlyDeltaTable(
          SparkSession.active(), new Path(path), Option.apply(entry), full, scalaMap(Map.of()), readOnly);
    return DeltaTableV2.apply(
        SparkSession.active(), new Path(path), Option.apply(entry), full, scalaMap(Map.of()), Option.empty());
  }
}
