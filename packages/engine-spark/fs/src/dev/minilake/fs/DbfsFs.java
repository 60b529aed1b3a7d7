package dev.minilake.fs;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.DelegateToFileSystem;

/**
 * `fs.AbstractFileSystem.dbfs.impl`: the FileContext side of dbfs:/ (Delta's log store and streaming
 * checkpoints write through FileContext), delegating to the same mapping as DbfsFileSystem.
 */
public class DbfsFs extends DelegateToFileSystem {
  public DbfsFs(URI uri, Configuration conf) throws IOException, URISyntaxException {
    super(uri, new DbfsFileSystem(), conf, "dbfs", false);
  }

  @Override
  public int getUriDefaultPort() {
    return -1;
  }
}
