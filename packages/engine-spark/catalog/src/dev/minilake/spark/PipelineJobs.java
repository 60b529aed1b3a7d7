package dev.minilake.spark;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.Field;
import java.util.Set;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;

/**
 * Stopping a declarative pipeline's update stops its Spark jobs (registered on the Spark Connect server with
 * `spark.extraListeners`). Spark alone does not: a batch flow (a materialized view) writes in a Future that
 * its `stop()` never cancels, so a job that starts after the run was interrupted runs to its end. MiniLake's
 * runner tags its session `minilake-pipeline-update-<update id>`; a job carrying that tag whose update is
 * stopping or over is cancelled as it starts.
 *
 * <p>The tag reaches a flow's job only through the flow thread's inherited local properties, and Spark runs
 * flows on one cached thread pool shared by every run: a thread reused from an earlier update would carry that
 * update's tags (and the Spark Connect operation tag an interrupt cancels by). So the pool keeps no idle
 * thread: each flow runs on a thread made for it, inheriting its own run's tags.
 */
public final class PipelineJobs extends SparkListener {
  static final String TAG = "minilake-pipeline-update-";
  private static final int UUID_LENGTH = 36;
  /** States in which an update's jobs must not run; a 404 (the pipeline was deleted) means the same. */
  private static final Set<String> STOPPED = Set.of("STOPPING", "CANCELED", "FAILED");

  public PipelineJobs() {
    freshThreadPerFlow();
  }

  static void freshThreadPerFlow() {
    try {
      Class<?> c = Class.forName("org.apache.spark.sql.pipelines.graph.FlowExecution$");
      Object module = c.getField("MODULE$").get(null);
      for (Field f : c.getDeclaredFields()) {
        if (!ThreadPoolExecutor.class.isAssignableFrom(f.getType())) continue;
        f.setAccessible(true);
        ((ThreadPoolExecutor) f.get(module)).setKeepAliveTime(0, TimeUnit.NANOSECONDS);
      }
    } catch (ReflectiveOperationException | RuntimeException e) {
      // A Spark without declarative pipelines (or another layout of them): nothing to change.
    }
  }

  @Override
  public void onJobStart(SparkListenerJobStart event) {
    String tags = event.properties() == null ? null : event.properties().getProperty("spark.job.tags");
    if (tags == null) return;
    int at = tags.indexOf(TAG);
    if (at < 0 || at + TAG.length() + UUID_LENGTH > tags.length()) return;
    String update = tags.substring(at + TAG.length(), at + TAG.length() + UUID_LENGTH);
    if (!stopped(update)) return;
    SparkContext.getOrCreate()
        .cancelJob(event.jobId(), "The pipeline update " + update + " was stopped");
  }

  private static boolean stopped(String update) {
    UcClient c = PipelineMetrics.client();
    if (c == null) return false;
    try {
      JsonNode u = c.callRoot("GET", "/_minilake/pipelines/updates/" + UcClient.enc(update), null);
      return STOPPED.contains(u.path("state").asText());
    } catch (UcClient.UcException e) {
      return e.status == 404;
    } catch (RuntimeException e) {
      return false; // MiniLake unreachable: leave the job alone
    }
  }
}
