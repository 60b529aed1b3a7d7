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
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * The local file system (`fs.file.impl`, so every unqualified path too) with `/Volumes/<catalog>/<schema>/
 * <volume>/...` mapped to the volume's storage location as Unity Catalog reports it
 * (`GET /api/2.1/unity-catalog/volumes/<c>.<s>.<v>` on `minilake.uc.uri`), so `spark.read.csv("/Volumes/...")`
 * reads what the Files API uploaded and a write lands where SQL and the Files API see it. Every other path
 * is the local file system, untouched. It is a LocalFileSystem (checksummed), as Hadoop's default is, since
 * Spark casts `FileSystem.getLocal` to one.
 */
public class VolumesFileSystem extends LocalFileSystem {
  static final String URI_KEY = "minilake.uc.uri";
  static final String TOKEN_KEY = "minilake.uc.token";

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

    /** The volume's `storage_location`, as Unity Catalog reports it. */
    private String storageLocation(String full, String shown) throws IOException {
      String enc = URLEncoder.encode(full, StandardCharsets.UTF_8).replace("+", "%20");
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(ucUri + "/api/2.1/unity-catalog/volumes/" + enc))
              .timeout(Duration.ofSeconds(60))
              .header("Accept", "application/json")
              .header("User-Agent", "minilake-fs/1")
              .GET();
      if (!ucToken.isEmpty()) b.header("Authorization", "Bearer " + ucToken);
      HttpResponse<String> r;
      try {
        r = http.send(b.build(), HttpResponse.BodyHandlers.ofString());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IOException("Interrupted looking up volume " + full);
      }
      if (r.statusCode() / 100 != 2) {
        throw new FileNotFoundException(shown + ": volume " + full + " is not available (" + r.statusCode() + " " + r.body() + ")");
      }
      return new ObjectMapper().readTree(r.body()).path("storage_location").asText("");
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
