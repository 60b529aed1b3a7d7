package dev.minilake.fs;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RawLocalFileSystem;

/**
 * `dbfs:/x` as the local file `<minilake.dbfs.root>/x` (the DBFS folder of MiniLake's data directory, which
 * the DBFS API serves), configured as `fs.dbfs.impl` for every task: `spark.read.parquet("dbfs:/x")` and
 * `df.write.save("dbfs:/y")` read and write the very files `dbutils.fs` and the DBFS API see. A path with
 * `..` climbing above the root is refused.
 */
public class DbfsFileSystem extends RawLocalFileSystem {
  static final String ROOT_KEY = "minilake.dbfs.root";
  private static final URI URI_ = URI.create("dbfs:///");
  private MappedPaths.Root root;

  @Override
  public void initialize(URI uri, Configuration conf) throws IOException {
    super.initialize(uri, conf);
    String r = conf.get(ROOT_KEY);
    if (r == null || r.isEmpty()) {
      throw new IOException("dbfs:/ is not configured in this Spark application (" + ROOT_KEY + " is unset)");
    }
    root = new MappedPaths.Root("/", new File(r).getAbsolutePath());
  }

  @Override
  public URI getUri() {
    return URI_;
  }

  @Override
  public String getScheme() {
    return "dbfs";
  }

  @Override
  protected Path getInitialWorkingDirectory() {
    return new Path("dbfs:/");
  }

  @Override
  public Path getHomeDirectory() {
    return new Path("dbfs:/");
  }

  @Override
  public File pathToFile(Path path) {
    checkPath(path);
    if (!path.isAbsolute()) path = new Path(getWorkingDirectory(), path);
    try {
      String rest = MappedPaths.normalize(path.toUri().getPath(), path.toString());
      return new File(root.real + rest);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private FileStatus virtual(FileStatus s) {
    MappedPaths.Root r = new MappedPaths.Root("", root.real);
    return MappedPaths.toVirtual(s, r, "dbfs");
  }

  @Override
  public FileStatus getFileStatus(Path f) throws IOException {
    return virtual(super.getFileStatus(f));
  }

  @Override
  public FileStatus getFileLinkStatus(Path f) throws IOException {
    return virtual(super.getFileLinkStatus(f));
  }

  @Override
  public FileStatus[] listStatus(Path f) throws IOException {
    FileStatus[] in = super.listStatus(f);
    FileStatus[] out = new FileStatus[in.length];
    for (int i = 0; i < in.length; i++) out[i] = virtual(in[i]);
    return out;
  }
}
