package dev.minilake.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.expressions.NamedReference;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.types.StructType;

/**
 * The datasets of a Lakeflow Declarative Pipeline update. A session MiniLake's pipelines engine opens carries
 * `spark.sql.catalog.<c>.pipelineUpdate=<update id>`; Spark Declarative Pipelines then creates each
 * materialized view and streaming table without a LOCATION, and this asks the server for it: the pipelines
 * service knows the dataset's kind from the update's graph and has Unity Catalog lay down a MATERIALIZED_VIEW
 * or STREAMING_TABLE as a Delta folder under its managed storage (dropped with the table, as on Databricks).
 */
final class PipelineTables {
  private PipelineTables() {}

  /** Spark's reserved table properties: the request carries them as fields, or they do not apply. */
  private static final java.util.Set<String> RESERVED =
      java.util.Set.of(
          TableCatalog.PROP_COMMENT, TableCatalog.PROP_LOCATION, TableCatalog.PROP_PROVIDER,
          TableCatalog.PROP_OWNER, TableCatalog.PROP_EXTERNAL, TableCatalog.PROP_IS_MANAGED_LOCATION);

  /**
   * While a pipeline's runner defines its flows (`spark.minilake.pipeline.defining=<pipeline id>` on the
   * session), the pipeline's own tables are hidden. Spark Connect's planner analyses some relations as soon
   * as they arrive (`withColumn`, `withColumnRenamed`, `drop`, ...): a dataset of the same pipeline found in
   * the catalog then would be read as an external table, and the flow would lose its dependency on it (it
   * would run before the dataset is refreshed). Not found, the name stays the graph's to resolve.
   */
  static boolean hiddenWhileDefining(JsonNode table) {
    String pipeline = table.path("pipeline_id").asText("");
    if (pipeline.isEmpty()) return false;
    String defining;
    try {
      defining = org.apache.spark.sql.internal.SQLConf.get().getConfString(DEFINING, "");
    } catch (RuntimeException e) {
      return false;
    }
    return pipeline.equals(defining);
  }

  static final String DEFINING = "spark.minilake.pipeline.defining";

  /** The Unity Catalog table (its `storage_location` holds the first Delta commit) for a pipeline dataset. */
  static JsonNode create(
      UcClient uc, String updateId, String catalog, Identifier ident, StructType schema, Transform[] partitions,
      Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    ObjectNode body =
        uc.object()
            .put("catalog_name", catalog)
            .put("schema_name", ident.namespace()[0])
            .put("name", ident.name());
    String comment = properties.get(TableCatalog.PROP_COMMENT);
    if (comment != null) body.put("comment", comment);
    ArrayNode fields = body.putArray("fields");
    for (StructField f : schema.fields()) fields.add(uc.parse(MiniLakeCatalog.fieldJson(f)));
    ArrayNode parts = body.putArray("partition_columns");
    for (Transform t : partitions)
      for (NamedReference r : t.references()) parts.add(String.join(".", r.fieldNames()));
    ObjectNode props = body.putObject("properties");
    for (Map.Entry<String, String> e : properties.entrySet())
      if (!RESERVED.contains(e.getKey())) props.put(e.getKey(), e.getValue());
    try {
      return uc.callRoot("POST", "/_minilake/pipelines/updates/" + UcClient.enc(updateId) + "/tables", body);
    } catch (UcClient.UcException e) {
      if (e.status == 409) throw new TableAlreadyExistsException(ident);
      if ("SCHEMA_DOES_NOT_EXIST".equals(e.errorCode) || "CATALOG_DOES_NOT_EXIST".equals(e.errorCode))
        throw new NoSuchNamespaceException(ident.namespace());
      throw e;
    }
  }
}
