package dev.minilake.spark;

import org.apache.spark.sql.SparkSessionExtensions;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.rules.Rule;
import scala.Function1;
import scala.Function2;
import scala.runtime.BoxedUnit;

/**
 * Databricks SQL on Apache Spark, as a session extension beside Delta's
 * (`spark.sql.extensions=io.delta.sql.DeltaSparkSessionExtension,dev.minilake.spark.DatabricksSqlExtension`):
 * a parser that understands the statements Databricks adds for Unity Catalog (USE CATALOG, CREATE/DROP
 * CATALOG, SHOW CATALOGS, GRANT/REVOKE, SHOW GRANTS) and hands everything else to the parser before it
 * (Delta's, then Spark's), and that makes every Unity Catalog catalog a statement names usable in the session
 * (DatabricksSqlParser); and a check that refuses, before they run, statements changing the files of a table
 * Unity Catalog keeps read-only however they name it (ReadOnlyWrites).
 */
public final class DatabricksSqlExtension implements Function1<SparkSessionExtensions, BoxedUnit> {
  @Override
  public BoxedUnit apply(SparkSessionExtensions ext) {
    Function2<org.apache.spark.sql.SparkSession, ParserInterface, ParserInterface> builder =
        (session, delegate) -> new DatabricksSqlParser(session, delegate);
    ext.injectParser(builder);
    Function1<org.apache.spark.sql.SparkSession, Rule<LogicalPlan>> readOnly = ReadOnlyWrites::new;
    ext.injectPostHocResolutionRule(readOnly);
    return BoxedUnit.UNIT;
  }
}
