package dev.minilake.spark;

import org.apache.spark.QueryContext;
import org.apache.spark.sql.AnalysisException;
import scala.Option;

/**
 * A change Unity Catalog refuses (403: a write into the read-only `samples` catalog, a missing privilege),
 * raised in Spark as Databricks reports it and in the very words MiniLake's SQL warehouse uses
 * (packages/sql statement-errors.ts): `[INSUFFICIENT_PERMISSIONS] Insufficient privileges:` and Unity
 * Catalog's sentence on the next line (as Databricks' Spark prints it, quoted in mosaicml/llm-foundry#1522). An AnalysisException, so PySpark and Spark Connect clients catch it as one; Apache Spark has
 * no INSUFFICIENT_PERMISSIONS condition of its own, so the class is named in the message only (an unknown
 * condition would break the clients' message lookup).
 */
final class Denied {
  private Denied() {}

  /**
   * Throws the refusal (callers write `throw Denied.of(...)` so the compiler sees the branch end).
   * AnalysisException is a checked exception to Java (Scala has none), and the catalog methods that raise it
   * are Spark's interfaces, which do not declare it: it is thrown unchecked, as Spark's own Scala code does.
   */
  static RuntimeException of(String ucMessage) {
    throw Denied.<RuntimeException>sneaky(analysis(ucMessage));
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> E sneaky(Throwable t) throws E {
    throw (E) t;
  }

  static AnalysisException analysis(String ucMessage) {
    return new AnalysisException(
        "[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\n" + ucMessage,
        Option.<Object>empty(),
        Option.<Object>empty(),
        Option.<Throwable>empty(),
        Option.<String>empty(),
        scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
        new QueryContext[0]);
  }

  /** `e` as the refusal it is when Unity Catalog denied the change; any other failure unchanged. */
  static RuntimeException of(UcClient.UcException e) {
    return e.denied() ? of(e.detail) : e;
  }
}
