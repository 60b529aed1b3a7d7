package dev.minilake.spark;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkEnv;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.execution.QueryExecution;
import org.apache.spark.sql.streaming.StreamingQueryListener;
import org.apache.spark.sql.types.StructField;
import org.apache.spark.sql.util.QueryExecutionListener;

/**
 * Expectation counts of a declarative pipeline's flows. MiniLake's runner wraps each flow that has
 * expectations in an observation named `minilake_pipeline:<update id>:<flow>` (a row count and one failure
 * count per expectation); Spark computes it as the flow writes, and these listeners (registered on the Spark
 * Connect server with `spark.sql.queryExecutionListeners` and `spark.sql.streaming.streamingQueryListeners`)
 * send it to the server, which puts it in the flow's events. Observations of other names are left alone.
 */
public final class PipelineMetrics {
  private PipelineMetrics() {}

  static final String PREFIX = "minilake_pipeline:";

  private static volatile UcClient client;

  static UcClient client() {
    if (client == null) {
      synchronized (PipelineMetrics.class) {
        if (client == null) {
          SparkConf conf = SparkEnv.get().conf();
          String uri = conf.get("spark.hadoop.minilake.uc.uri", "");
          if (uri.isEmpty()) return null;
          client = new UcClient(uri, conf.get("spark.hadoop.minilake.uc.token", ""));
        }
      }
    }
    return client;
  }

  static void report(Map<String, Row> observed) {
    for (Map.Entry<String, Row> e : observed.entrySet()) {
      if (!e.getKey().startsWith(PREFIX)) continue;
      String rest = e.getKey().substring(PREFIX.length());
      int colon = rest.indexOf(':');
      if (colon < 0) continue;
      String update = rest.substring(0, colon);
      String flow = rest.substring(colon + 1);
      UcClient c = client();
      if (c == null) return;
      ObjectNode body = c.object().put("flow", flow);
      ObjectNode metrics = body.putObject("metrics");
      Row row = e.getValue();
      StructField[] fields = row.schema().fields();
      for (int i = 0; i < fields.length; i++)
        if (!row.isNullAt(i)) metrics.put(fields[i].name(), ((Number) row.get(i)).longValue());
      try {
        c.callRoot("POST", "/_minilake/pipelines/updates/" + UcClient.enc(update) + "/metrics", body);
      } catch (RuntimeException ignored) {
        // The update may have ended; its counts are then of no use.
      }
    }
  }

  /** Batch flows (materialized views): the write's observed metrics once it succeeds. */
  public static final class Batch implements QueryExecutionListener {
    @Override
    public void onSuccess(String funcName, QueryExecution qe, long durationNs) {
      scala.collection.immutable.Map<String, Row> m = qe.observedMetrics();
      if (!m.isEmpty()) report(scala.jdk.javaapi.CollectionConverters.asJava(m));
    }

    @Override
    public void onFailure(String funcName, QueryExecution qe, Exception exception) {}
  }

  /** Streaming flows: each micro-batch's observed metrics (the server sums them). */
  public static final class Stream extends StreamingQueryListener {
    @Override
    public void onQueryStarted(StreamingQueryListener.QueryStartedEvent event) {}

    @Override
    public void onQueryProgress(StreamingQueryListener.QueryProgressEvent event) {
      Map<String, Row> m = event.progress().observedMetrics();
      if (m != null && !m.isEmpty()) report(m);
    }

    @Override
    public void onQueryTerminated(StreamingQueryListener.QueryTerminatedEvent event) {}
  }
}
