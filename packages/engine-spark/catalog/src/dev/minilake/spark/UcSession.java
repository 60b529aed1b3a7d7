package dev.minilake.spark;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;

/**
 * Unity Catalog as a session sees it: the server and token its catalogs use (`spark.minilake.uc.uri`,
 * `.token`, `.caCert`, which MiniLake's Spark engine sets for every session it starts), and the catalogs
 * configured in it. A catalog created after the session started (through the REST API, or CREATE CATALOG
 * in another session) is added to the session's conf the first time a statement names it, as Databricks
 * shows every Unity Catalog catalog in every session.
 */
final class UcSession {
  static final String URI = "spark.minilake.uc.uri";
  static final String TOKEN = "spark.minilake.uc.token";
  static final String CA = "spark.minilake.uc.caCert";

  /** Names Spark keeps for itself. */
  private static final Set<String> RESERVED = Set.of("spark_catalog", "system", "session", "global_temp");
  /** Catalogs known not to exist in Unity Catalog, with when that was learned (asked again after a while). */
  private static final Map<String, Long> MISSING = new ConcurrentHashMap<>();
  private static final long MISSING_TTL_MS = 2000;

  private UcSession() {}

  private static String conf(SparkSession s, String key) {
    scala.Option<String> v = s.conf().getOption(key);
    return v.isDefined() ? v.get() : null;
  }

  static boolean configured(SparkSession s) {
    return conf(s, URI) != null;
  }

  static UcClient client(SparkSession s) {
    String uri = conf(s, URI);
    if (uri == null)
      throw new IllegalStateException(
          "This Spark session has no Unity Catalog server (" + URI + " is not set)");
    return new UcClient(uri, conf(s, TOKEN), conf(s, CA));
  }

  /**
   * Makes a Unity Catalog catalog usable in the session when it is not configured yet and exists; quietly
   * does nothing otherwise (Spark then reports the name as it would).
   */
  static void ensureCatalog(SparkSession s, String name) {
    if (name == null || name.isEmpty() || RESERVED.contains(name.toLowerCase(java.util.Locale.ROOT))) return;
    if (!configured(s) || conf(s, "spark.sql.catalog." + name) != null) return;
    if (!name.matches("[\\p{L}\\p{N}_-]+")) return;
    Long missing = MISSING.get(name);
    if (missing != null && System.currentTimeMillis() - missing < MISSING_TTL_MS) return;
    try {
      client(s).call("GET", "/catalogs/" + UcClient.enc(name), null);
    } catch (UcClient.UcException e) {
      if (e.status == 404) MISSING.put(name, System.currentTimeMillis());
      return;
    }
    MISSING.remove(name);
    register(s, name);
  }

  /** `spark.sql.catalog.<name>` and its options, in the keys of the official connector. */
  static void register(SparkSession s, String name) {
    if (!configured(s)) return;
    String prefix = "spark.sql.catalog." + name;
    s.conf().set(prefix + ".uri", conf(s, URI));
    String token = conf(s, TOKEN);
    if (token != null) s.conf().set(prefix + ".token", token);
    String ca = conf(s, CA);
    if (ca != null) s.conf().set(prefix + ".caCert", ca);
    s.conf().set(prefix, MiniLakeCatalog.class.getName());
  }

  /** A Unity Catalog refusal as the Spark error a client can catch by its class where one fits. */
  static RuntimeException sparkError(UcClient.UcException e) {
    if (e.status == 404 && "CATALOG_DOES_NOT_EXIST".equals(e.errorCode))
      return sneaky(new AnalysisException(
          "CATALOG_NOT_FOUND",
          scala.jdk.javaapi.CollectionConverters.asScala(
                  Map.of("catalogName", "`" + e.getMessage() + "`", "config", "\"spark.sql.catalog\""))
              .toMap(scala.$less$colon$less$.MODULE$.refl())));
    return new IllegalArgumentException(e.getMessage(), e);
  }

  /** Throws a checked Spark exception (AnalysisException) from code that cannot declare it (run()). */
  static RuntimeException sneaky(Throwable t) {
    UcSession.<RuntimeException>throwAs(t);
    return new IllegalStateException(t);
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> void throwAs(Throwable t) throws T {
    throw (T) t;
  }
}
