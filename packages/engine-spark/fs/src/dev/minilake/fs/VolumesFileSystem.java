package dev.minilake.fs;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.EnumSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.CreateFlag;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.apache.spark.QueryContext;
import org.apache.spark.TaskContext;
import org.apache.spark.sql.AnalysisException;
import org.apache.spark.sql.SparkSession;
import scala.Option;

/**
 * The local file system (`fs.file.impl`, so every unqualified path too) with `/Volumes/<catalog>/<schema>/
 * <volume>/...` mapped to the volume's storage location as Unity Catalog reports it
 * (`GET /api/2.1/unity-catalog/volumes/<c>.<s>.<v>` on `minilake.uc.uri`), so `spark.read.csv("/Volumes/...")`
 * reads what the Files API uploaded and a write lands where SQL and the Files API see it. Every other path
 * is the local file system, untouched. It is a LocalFileSystem (checksummed), as Hadoop's default is, since
 * Spark casts `FileSystem.getLocal` to one.
 *
 * <p>Who may touch a volume's files is Unity Catalog's to say, for the caller, as on Databricks: reading a file
 * needs READ VOLUME, writing, deleting or renaming one WRITE VOLUME, a listing or a status either
 * (`GET /_minilake/unity-catalog/volumes/<c.s.v>/access?mode=read|write|any`, which answers as the Files API
 * does). The caller is the token of the driver's active Spark session (`spark.minilake.uc.token`: a Databricks
 * Connect session's or a context's caller, a task's run identity), else this file system's own token. Hadoop
 * makes one file system for the whole Spark server, so its own token is whoever started the server; the
 * session is what says who asks. Inside a task (an executor thread, where a pooled thread may have inherited
 * anyone's active session) the caller is the token among the task's local properties: Spark SQL puts the
 * session's conf there for every job it runs (SQLExecution.withSQLConfPropagated), so a task opening a file
 * for a read asks READ VOLUME for the job's caller. The driver's own listing for a read (Spark SQL finding a
 * DataFrame's files) asks READ VOLUME too, so that refusal comes first, in Unity Catalog's words. A task
 * without a token property (a bare RDD job) is not checked. An answer is remembered for a few seconds per
 * caller, volume and mode.
 */
public class VolumesFileSystem extends LocalFileSystem {
  static final String URI_KEY = "minilake.uc.uri";
  static final String TOKEN_KEY = "minilake.uc.token";
  /** The session conf holding the session's caller's token (packages/engine-spark uc.ts, packages/connect). */
  static final String SESSION_TOKEN_KEY = "spark.minilake.uc.token";
  /** How long an allowed access is remembered (a revoked grant takes effect within it). */
  static final long ALLOWED_TTL_MS = 5000;
  /** caller token, mode and volume -> until when the access is known allowed. */
  private static final Map<String, Long> ALLOWED = new ConcurrentHashMap<>();

  public VolumesFileSystem() {
    super(new Raw());
  }

  /** The raw (unchecksummed) side, which the AbstractFileSystem binding (`VolumesFs`) uses too. */
  public static class Raw extends RawLocalFileSystem {
    private String ucUri;
    private String ucToken;
    private HttpClient http;
    /** `c/s/v` -> the volume's local directory, looked up once per application. */
    private final Map<String, String> dirs = new ConcurrentHashMap<>();
    /** What the operation on this thread does with its paths (see `as`); none: a status or a listing. */
    private static final ThreadLocal<String> MODE = new ThreadLocal<>();

    @Override
    public void initialize(URI uri, Configuration conf) throws IOException {
      super.initialize(uri, conf);
      String u = conf.get(URI_KEY);
      if (u != null && !u.isEmpty()) {
        ucUri = u.endsWith("/") ? u.substring(0, u.length() - 1) : u;
        ucToken = conf.get(TOKEN_KEY, "");
        http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
      }
    }

    private HttpResponse<String> get(String path, String token, String full) throws IOException {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(ucUri + path))
              .timeout(Duration.ofSeconds(60))
              .header("Accept", "application/json")
              .header("User-Agent", "minilake-fs/1")
              .GET();
      if (token != null && !token.isEmpty()) b.header("Authorization", "Bearer " + token);
      try {
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("Interrupted looking up volume " + full);
      }
    }

    private static String enc(String full) {
      return URLEncoder.encode(full, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** The volume's `storage_location`, as Unity Catalog reports it. */
    private String storageLocation(String full, String shown) throws IOException {
      HttpResponse<String> r = get("/api/2.1/unity-catalog/volumes/" + enc(full), ucToken, full);
      if (r.statusCode() / 100 != 2) {
        throw new FileNotFoundException(shown + ": volume " + full + " is not available (" + r.statusCode() + " " + r.body() + ")");
      }
      return new ObjectMapper().readTree(r.body()).path("storage_location").asText("");
    }

    /** The caller's token: the task's job's, else the driver's active session's; null without one. */
    private static String sessionToken() {
      try {
        TaskContext task = TaskContext.get();
        if (task != null) return task.getLocalProperty(SESSION_TOKEN_KEY);
        Option<SparkSession> s = SparkSession.getActiveSession();
        if (s.isEmpty()) return null;
        Option<String> t = s.get().conf().getOption(SESSION_TOKEN_KEY);
        return t.isDefined() ? t.get() : null;
      } catch (LinkageError e) {
        return null; // Spark SQL not on the class path (a bare Hadoop client): this file system's token
      }
    }

    /**
     * Whether this status or listing is Spark SQL finding the files of a read (a DataFrame over a path: its
     * file index, or its path globbing), which a write never does: such a listing needs READ VOLUME, so a
     * caller with WRITE VOLUME alone is refused the read when it is planned, in the same words as any other
     * refusal, not by its tasks (whose refusal Spark wraps in FAILED_READ_FILE).
     */
    private static boolean planningRead() {
      return StackWalker.getInstance()
          .walk(
              frames ->
                  frames.anyMatch(
                      f ->
                          f.getClassName().startsWith(READ_INDEX)
                              || (f.getClassName().startsWith(DATA_SOURCE)
                                  && f.getMethodName().startsWith("checkAndGlobPathIfNecessary"))));
    }

    private static final String READ_INDEX = "org.apache.spark.sql.execution.datasources.InMemoryFileIndex";
    private static final String DATA_SOURCE = "org.apache.spark.sql.execution.datasources.DataSource";

    /** Refuses the operation unless the caller may do it on the volume (see the class comment). */
    private void checkAccess(String full, String shown) throws IOException {
      boolean inTask = TaskContext.get() != null;
      String token = sessionToken();
      if (token == null && inTask) return;
      if (token == null) token = ucToken;
      // Reads are planned on the driver only: a task's statuses skip the stack walk.
      String mode = MODE.get() != null ? MODE.get() : !inTask && planningRead() ? "read" : "any";
      String key = token + "\n" + mode + "\n" + full;
      Long until = ALLOWED.get(key);
      long now = System.currentTimeMillis();
      if (until != null && until > now) return;
      HttpResponse<String> r =
          get("/_minilake/unity-catalog/volumes/" + enc(full) + "/access?mode=" + mode, token, full);
      if (r.statusCode() == 403) {
        String said = new ObjectMapper().readTree(r.body()).path("message").asText(r.body());
        throw Raw.<RuntimeException>sneaky(denied(said));
      }
      if (r.statusCode() / 100 != 2) {
        throw new FileNotFoundException(shown + ": volume " + full + " is not available (" + r.statusCode() + " " + r.body() + ")");
      }
      if (ALLOWED.size() > 10_000) ALLOWED.clear();
      ALLOWED.put(key, now + ALLOWED_TTL_MS);
    }

    /**
     * Unity Catalog's refusal as Spark raises a missing privilege on Databricks (and as MiniLake's catalog
     * plugin does, Denied.java): an AnalysisException a Spark Connect client catches as one.
     */
    private static AnalysisException denied(String ucMessage) {
      return new AnalysisException(
          "[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\n" + ucMessage,
          Option.<Object>empty(),
          Option.<Object>empty(),
          Option.<Throwable>empty(),
          Option.<String>empty(),
          scala.collection.immutable.Map$.MODULE$.<String, String>empty(),
          new QueryContext[0]);
    }

    /** AnalysisException is checked to Java; Hadoop's signatures don't declare it (Spark's Scala throws it so). */
    @SuppressWarnings("unchecked")
    private static <E extends Throwable> E sneaky(Throwable t) throws E {
      throw (E) t;
    }

    private interface Op<T> {
      T run() throws IOException;
    }

    /** Runs a file system operation whose paths are read ("read") or changed ("write"). */
    private static <T> T as(String mode, Op<T> op) throws IOException {
      String was = MODE.get();
      MODE.set(mode);
      try {
        return op.run();
      } finally {
        if (was == null) MODE.remove();
        else MODE.set(was);
      }
    }

    /** The volume's root for a `/Volumes/c/s/v[/...]` path, or null for any other path. */
    private MappedPaths.Root rootOf(String p) throws IOException {
      if (!p.startsWith("/Volumes/")) return null;
      String[] seg = p.substring("/Volumes/".length()).split("/", 4);
      if (seg.length < 3 || seg[0].isEmpty() || seg[1].isEmpty() || seg[2].isEmpty()) return null;
      String key = seg[0] + "/" + seg[1] + "/" + seg[2];
      String dir = dirs.get(key);
      if (dir == null) {
        if (http == null) {
          throw new FileNotFoundException(p + ": /Volumes is not configured in this Spark application (" + URI_KEY + " is unset)");
        }
        String full = seg[0] + "." + seg[1] + "." + seg[2];
        String loc = storageLocation(full, p);
        URI l = URI.create(loc);
        if (!"file".equals(l.getScheme()) || l.getPath() == null) {
          throw new FileNotFoundException(p + ": volume " + full + " has a non-local storage location " + loc);
        }
        dir = new File(l.getPath()).getAbsolutePath();
        dirs.put(key, dir);
      }
      checkAccess(seg[0] + "." + seg[1] + "." + seg[2], p);
      return new MappedPaths.Root("/Volumes/" + key, dir);
    }

    @Override
    public File pathToFile(Path path) {
      checkPath(path);
      if (!path.isAbsolute()) path = new Path(getWorkingDirectory(), path);
      String p = path.toUri().getPath();
      try {
        MappedPaths.Root r = rootOf(p);
        if (r == null) return new File(p);
        String rest = MappedPaths.normalize(p.substring(r.virtual.length()), p);
        return new File(r.real + rest);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    private FileStatus virtual(Path query, FileStatus s) throws IOException {
      Path q = query.isAbsolute() ? query : new Path(getWorkingDirectory(), query);
      MappedPaths.Root r = rootOf(q.toUri().getPath());
      return r == null ? s : MappedPaths.toVirtual(s, r, null);
    }

    @Override
    public FSDataInputStream open(Path f, int bufferSize) throws IOException {
      return as("read", () -> super.open(f, bufferSize));
    }

    @Override
    public FSDataOutputStream append(Path f, int bufferSize, Progressable progress) throws IOException {
      return as("write", () -> super.append(f, bufferSize, progress));
    }

    @Override
    public FSDataOutputStream create(
        Path f, boolean overwrite, int bufferSize, short replication, long blockSize, Progressable progress)
        throws IOException {
      return as("write", () -> super.create(f, overwrite, bufferSize, replication, blockSize, progress));
    }

    @Override
    public FSDataOutputStream create(
        Path f,
        FsPermission permission,
        boolean overwrite,
        int bufferSize,
        short replication,
        long blockSize,
        Progressable progress)
        throws IOException {
      return as(
          "write",
          () -> super.create(f, permission, overwrite, bufferSize, replication, blockSize, progress));
    }

    @Override
    public FSDataOutputStream createNonRecursive(
        Path f,
        FsPermission permission,
        EnumSet<CreateFlag> flags,
        int bufferSize,
        short replication,
        long blockSize,
        Progressable progress)
        throws IOException {
      return as(
          "write",
          () -> super.createNonRecursive(f, permission, flags, bufferSize, replication, blockSize, progress));
    }

    @Override
    public FSDataOutputStream createNonRecursive(
        Path f,
        FsPermission permission,
        boolean overwrite,
        int bufferSize,
        short replication,
        long blockSize,
        Progressable progress)
        throws IOException {
      return as(
          "write",
          () ->
              super.createNonRecursive(f, permission, overwrite, bufferSize, replication, blockSize, progress));
    }

    @Override
    public void concat(Path trg, Path[] psrcs) throws IOException {
      as("write", () -> {
        super.concat(trg, psrcs);
        return null;
      });
    }

    @Override
    public boolean rename(Path src, Path dst) throws IOException {
      return as("write", () -> super.rename(src, dst));
    }

    @Override
    public boolean truncate(Path f, long newLength) throws IOException {
      return as("write", () -> super.truncate(f, newLength));
    }

    @Override
    public boolean delete(Path p, boolean recursive) throws IOException {
      return as("write", () -> super.delete(p, recursive));
    }

    @Override
    public boolean mkdirs(Path f) throws IOException {
      return as("write", () -> super.mkdirs(f));
    }

    @Override
    public boolean mkdirs(Path f, FsPermission permission) throws IOException {
      return as("write", () -> super.mkdirs(f, permission));
    }

    @Override
    public void setPermission(Path p, FsPermission permission) throws IOException {
      as("write", () -> {
        super.setPermission(p, permission);
        return null;
      });
    }

    @Override
    public void setTimes(Path p, long mtime, long atime) throws IOException {
      as("write", () -> {
        super.setTimes(p, mtime, atime);
        return null;
      });
    }

    @Override
    public FileStatus getFileStatus(Path f) throws IOException {
      return virtual(f, super.getFileStatus(f));
    }

    @Override
    public FileStatus getFileLinkStatus(Path f) throws IOException {
      return virtual(f, super.getFileLinkStatus(f));
    }

    @Override
    public FileStatus[] listStatus(Path f) throws IOException {
      FileStatus[] in = super.listStatus(f);
      FileStatus[] out = new FileStatus[in.length];
      for (int i = 0; i < in.length; i++) out[i] = virtual(f, in[i]);
      return out;
    }
  }
}
