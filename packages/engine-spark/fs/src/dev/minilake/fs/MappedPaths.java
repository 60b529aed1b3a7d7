package dev.minilake.fs;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.Path;

/**
 * What the two MiniLake file systems share: a virtual path (`dbfs:/x`, `/Volumes/c/s/v/x`) maps to a real
 * local path under one root, with `.` and `..` resolved first so that no virtual path reaches outside its
 * root; statuses the local file system returns (real paths) are mapped back to virtual ones, so Spark's file
 * listings (partition discovery, Delta's log) only ever see the paths the user wrote.
 */
final class MappedPaths {
  private MappedPaths() {}

  /** A mapping of one virtual prefix (a path string, no scheme) onto one real local directory. */
  static final class Root {
    final String virtual;
    final String real;

    Root(String virtual, String real) {
      this.virtual = strip(virtual);
      this.real = strip(real);
    }
  }

  static String strip(String s) {
    return s.length() > 1 && s.endsWith("/") ? s.substring(0, s.length() - 1) : s;
  }

  /**
   * `rest` (the part of a virtual path below its root, '/'-separated) normalized: empty and `.` segments
   * dropped, `..` going up, and refused when it would climb above the root.
   */
  static String normalize(String rest, String shown) throws IOException {
    List<String> out = new ArrayList<>();
    for (String seg : rest.split("/")) {
      if (seg.isEmpty() || seg.equals(".")) continue;
      if (seg.equals("..")) {
        if (out.isEmpty()) throw new FileNotFoundException(shown + ": the path leaves its root");
        out.remove(out.size() - 1);
      } else {
        out.add(seg);
      }
    }
    return out.isEmpty() ? "" : "/" + String.join("/", out);
  }

  /** A status of the real file rewritten to the virtual path (permissions are the defaults: no native stat). */
  static FileStatus toVirtual(FileStatus s, Root root, String scheme) {
    String p = s.getPath().toUri().getPath();
    String v;
    if (p.equals(root.real)) v = root.virtual;
    else if (p.startsWith(root.real + "/")) v = root.virtual + p.substring(root.real.length());
    else return s;
    Path vp = scheme == null ? new Path("file", null, v) : new Path(scheme, null, v.isEmpty() ? "/" : v);
    return new FileStatus(
        s.getLen(),
        s.isDirectory(),
        s.getReplication(),
        s.getBlockSize(),
        s.getModificationTime(),
        s.getAccessTime(),
        null,
        null,
        null,
        vp);
  }
}
