package dev.minilake.fs;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.ChecksumFs;
import org.apache.hadoop.fs.DelegateToFileSystem;

/**
 * `fs.AbstractFileSystem.file.impl`: the FileContext side of the local file system with `/Volumes` mapped
 * (Delta's log store commits through FileContext), checksummed as Hadoop's own LocalFs is.
 */
public class VolumesFs extends ChecksumFs {
  public VolumesFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(new Raw(uri, conf));
  }

  /** The raw side, as Hadoop's RawLocalFs is to LocalFs. */
  public static class Raw extends DelegateToFileSystem {
    public Raw(URI uri, Configuration conf) throws IOException, URISyntaxException {
      super(uri, new VolumesFileSystem.Raw(), conf, "file", false);
    }

    @Override
    public int getUriDefaultPort() {
      return -1;
    }
  }
}
