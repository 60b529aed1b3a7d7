package dev.minilake.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Words of a SQL statement for the few fixed-form Databricks statements DatabricksSqlParser recognizes:
 * bare words, `quoted` identifiers (a doubled backquote is one), 'string' and "string" literals (with
 * backslash escapes), and the punctuation `.` `,`; comments and a trailing `;` are dropped. Identifiers and
 * strings keep a marker character in front (` or ') so a keyword is never confused with a quoted name.
 */
final class SqlWords {
  /** The statement is not the form that was expected: let Spark's parser report it. */
  static final class NotThis extends RuntimeException {
    private static final long serialVersionUID = 1L;

    NotThis() {
      super(null, null, false, false);
    }
  }

  private final List<String> t;
  private int i;

  SqlWords(List<String> tokens) {
    this.t = tokens;
  }

  static List<String> tokens(String sql) {
    List<String> out = new ArrayList<>();
    int n = sql.length();
    int i = 0;
    while (i < n) {
      char c = sql.charAt(i);
      if (Character.isWhitespace(c)) {
        i++;
      } else if (c == '-' && i + 1 < n && sql.charAt(i + 1) == '-') {
        while (i < n && sql.charAt(i) != '\n') i++;
      } else if (c == '/' && i + 1 < n && sql.charAt(i + 1) == '*') {
        int end = sql.indexOf("*/", i + 2);
        i = end < 0 ? n : end + 2;
      } else if (c == '`') {
        StringBuilder sb = new StringBuilder("`");
        i++;
        while (i < n) {
          char d = sql.charAt(i);
          if (d == '`') {
            if (i + 1 < n && sql.charAt(i + 1) == '`') {
              sb.append('`');
              i += 2;
              continue;
            }
            i++;
            break;
          }
          sb.append(d);
          i++;
        }
        out.add(sb.toString());
      } else if (c == '\'' || c == '"') {
        StringBuilder sb = new StringBuilder("'");
        i++;
        while (i < n && sql.charAt(i) != c) {
          char d = sql.charAt(i);
          if (d == '\\' && i + 1 < n) {
            sb.append(sql.charAt(i + 1));
            i += 2;
          } else {
            sb.append(d);
            i++;
          }
        }
        i++;
        out.add(sb.toString());
      } else if (Character.isLetterOrDigit(c) || c == '_') {
        int s = i;
        while (i < n && (Character.isLetterOrDigit(sql.charAt(i)) || sql.charAt(i) == '_')) i++;
        out.add(sql.substring(s, i));
      } else {
        out.add(String.valueOf(c));
        i++;
      }
    }
    while (!out.isEmpty() && out.get(out.size() - 1).equals(";")) out.remove(out.size() - 1);
    return out;
  }

  private static boolean keyword(String tok, String kw) {
    return !tok.startsWith("`") && !tok.startsWith("'") && tok.equalsIgnoreCase(kw);
  }

  boolean is(String... kws) {
    if (i + kws.length > t.size()) return false;
    for (int k = 0; k < kws.length; k++) if (!keyword(t.get(i + k), kws[k])) return false;
    return true;
  }

  boolean peekIs(String kw) {
    return i < t.size() && keyword(t.get(i), kw);
  }

  boolean accept(String... kws) {
    if (!is(kws)) return false;
    i += kws.length;
    return true;
  }

  void expect(String kw) {
    if (!accept(kw)) throw new NotThis();
  }

  void skip(int n) {
    i += n;
  }

  boolean done() {
    return i >= t.size();
  }

  void end() {
    if (!done()) throw new NotThis();
  }

  RuntimeException unexpected() {
    return new NotThis();
  }

  String next() {
    if (done()) throw new NotThis();
    String x = t.get(i++);
    return x.startsWith("`") || x.startsWith("'") ? x.substring(1) : x;
  }

  /** An identifier: a bare word or a `quoted` one. */
  String name() {
    if (done()) throw new NotThis();
    String x = t.get(i);
    if (x.startsWith("'") || !(x.startsWith("`") || Character.isLetterOrDigit(x.charAt(0)) || x.charAt(0) == '_'))
      throw new NotThis();
    i++;
    return x.startsWith("`") ? x.substring(1) : x;
  }

  /** A string literal. */
  String string() {
    if (done() || !t.get(i).startsWith("'")) throw new NotThis();
    return t.get(i++).substring(1);
  }

  static String upper(String s) {
    return s.toUpperCase(Locale.ROOT);
  }
}
