package dev.minilake.spark;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.FunctionIdentifier;
import org.apache.spark.sql.catalyst.TableIdentifier;
import org.apache.spark.sql.catalyst.analysis.UnresolvedIdentifier;
import org.apache.spark.sql.catalyst.analysis.UnresolvedNamespace;
import org.apache.spark.sql.catalyst.analysis.UnresolvedRelation;
import org.apache.spark.sql.catalyst.analysis.UnresolvedTableOrView;
import org.apache.spark.sql.catalyst.expressions.Expression;
import org.apache.spark.sql.catalyst.parser.ParameterContext;
import org.apache.spark.sql.catalyst.parser.ParseException;
import org.apache.spark.sql.catalyst.parser.ParserInterface;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.execution.command.SetCatalogCommand;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.StructType;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;
import scala.runtime.BoxedUnit;

/**
 * The parser of DatabricksSqlExtension. Statements Apache Spark does not know are recognized from their
 * leading words (the statements are short and fixed-form) and become plans: `USE CATALOG c` is Spark's own
 * SetCatalogCommand (Spark already has `SET CATALOG` and `USE SCHEMA`), the Unity Catalog statements are
 * UcCommands. Everything else goes to the parser before this one, untouched. Every plan and identifier it
 * parses is looked at for catalog names the session does not know yet (UcSession.ensureCatalog), so
 * `spark.table("new_catalog.s.t")` works for a catalog created after the session started.
 */
public final class DatabricksSqlParser implements ParserInterface {
  private final SparkSession session;
  private final ParserInterface delegate;

  public DatabricksSqlParser(SparkSession session, ParserInterface delegate) {
    this.session = session;
    this.delegate = delegate;
  }

  // ---- statements of our own ----

  @Override
  public LogicalPlan parsePlan(String sql) throws ParseException {
    LogicalPlan own = databricks(sql);
    if (own != null) return own;
    return registered(delegate.parsePlan(sql));
  }

  @Override
  public LogicalPlan parsePlanWithParameters(String sql, ParameterContext params) throws ParseException {
    LogicalPlan own = databricks(sql);
    if (own != null) return own;
    return registered(delegate.parsePlanWithParameters(sql, params));
  }

  /** The plan of a Databricks-only statement, or null when it is not one. */
  LogicalPlan databricks(String sql) {
    try {
      return statement(sql);
    } catch (SqlWords.NotThis e) {
      // Not a form we know after all: the parser before us says what is wrong with it, as Spark would.
      return null;
    }
  }

  private LogicalPlan statement(String sql) {
    List<String> t = SqlWords.tokens(sql);
    if (t.isEmpty()) return null;
    SqlWords w = new SqlWords(t);
    if (w.is("USE", "CATALOG")) {
      w.skip(2);
      String name = w.name();
      w.end();
      UcSession.ensureCatalog(session, name);
      return new SetCatalogCommand(name);
    }
    if (w.is("CREATE", "CATALOG")) {
      w.skip(2);
      boolean ifNotExists = w.accept("IF", "NOT", "EXISTS");
      String name = w.name();
      String comment = "";
      String location = "";
      while (!w.done()) {
        if (w.accept("COMMENT")) comment = w.string();
        else if (w.accept("MANAGED", "LOCATION")) location = w.string();
        else throw w.unexpected();
      }
      return UcCommand.of("CREATE_CATALOG", List.of(name, String.valueOf(ifNotExists), comment, location));
    }
    if (w.is("DROP", "CATALOG")) {
      w.skip(2);
      boolean ifExists = w.accept("IF", "EXISTS");
      String name = w.name();
      boolean cascade = w.accept("CASCADE");
      if (!cascade) w.accept("RESTRICT");
      w.end();
      return UcCommand.of("DROP_CATALOG", List.of(name, String.valueOf(ifExists), String.valueOf(cascade)));
    }
    if (w.is("SHOW", "CATALOGS")) {
      w.skip(2);
      w.accept("LIKE");
      String pattern = w.done() ? "" : w.string();
      w.end();
      return UcCommand.of("SHOW_CATALOGS", List.of(pattern), "catalog");
    }
    if (w.is("GRANT") || w.is("REVOKE")) {
      boolean grant = w.is("GRANT");
      w.skip(1);
      List<String> privileges = new ArrayList<>();
      StringBuilder p = new StringBuilder();
      while (!w.done() && !w.peekIs("ON")) {
        String x = w.next();
        if (x.equals(",")) {
          privileges.add(p.toString());
          p.setLength(0);
        } else p.append(p.length() == 0 ? "" : "_").append(x.toUpperCase(Locale.ROOT));
      }
      if (p.length() > 0) privileges.add(p.toString());
      w.expect("ON");
      String[] obj = securable(w);
      w.expect(grant ? "TO" : "FROM");
      String principal = w.name();
      w.end();
      List<String> args = new ArrayList<>(List.of(obj[0], obj[1], principal));
      for (String x : privileges) args.add(x.equals("ALL") || x.equals("ALL_PRIVILEGES") ? "ALL_PRIVILEGES" : x);
      return UcCommand.of(grant ? "GRANT" : "REVOKE", args);
    }
    if (w.is("SHOW", "GRANTS") || w.is("SHOW", "GRANT")) {
      w.skip(2);
      String principal = w.peekIs("ON") ? "" : w.name();
      w.expect("ON");
      String[] obj = securable(w);
      w.end();
      return UcCommand.of(
          "SHOW_GRANTS", List.of(obj[0], obj[1], principal), "principal", "ActionType", "ObjectType", "ObjectKey");
    }
    return null;
  }

  /** `CATALOG c`, `SCHEMA c.s`, `TABLE c.s.t` (or a bare table name), `VOLUME`, `FUNCTION`: type and full name. */
  private String[] securable(SqlWords w) {
    String type = "table";
    if (w.accept("CATALOG")) type = "catalog";
    else if (w.accept("SCHEMA") || w.accept("DATABASE")) type = "schema";
    else if (w.accept("TABLE") || w.accept("VIEW")) type = "table";
    else if (w.accept("VOLUME")) type = "volume";
    else if (w.accept("FUNCTION")) type = "function";
    else if (w.accept("EXTERNAL", "LOCATION")) type = "external_location";
    else if (w.accept("STORAGE", "CREDENTIAL")) type = "storage_credential";
    else if (w.accept("METASTORE")) type = "metastore";
    List<String> parts = new ArrayList<>();
    parts.add(w.name());
    while (w.accept(".")) parts.add(w.name());
    // Names below a catalog are completed with the session's current catalog and schema.
    int want = type.equals("schema") ? 2 : type.equals("catalog") ? 1 : 3;
    if (!type.equals("metastore") && !type.startsWith("external") && !type.startsWith("storage")) {
      if (parts.size() < want && want >= 2) {
        List<String> cur = new ArrayList<>();
        cur.add(session.sessionState().catalogManager().currentCatalog().name());
        for (String n : session.sessionState().catalogManager().currentNamespace()) cur.add(n);
        while (parts.size() < want && cur.size() >= want - parts.size())
          parts.add(0, cur.get(want - parts.size() - 1));
      }
    }
    return new String[] {type, String.join(".", parts)};
  }

  // ---- catalogs named by what Spark parses ----

  private LogicalPlan registered(LogicalPlan plan) {
    if (!UcSession.configured(session)) return plan;
    plan.foreach(
        node -> {
          Seq<String> parts = null;
          int min = 2;
          if (node instanceof UnresolvedRelation) {
            parts = ((UnresolvedRelation) node).multipartIdentifier();
            min = 3;
          } else if (node instanceof UnresolvedIdentifier) {
            parts = ((UnresolvedIdentifier) node).nameParts();
          } else if (node instanceof UnresolvedTableOrView) {
            parts = ((UnresolvedTableOrView) node).multipartIdentifier();
            min = 3;
          } else if (node instanceof SetCatalogCommand) {
            UcSession.ensureCatalog(session, ((SetCatalogCommand) node).catalogName());
          } else if (node instanceof UnresolvedNamespace) {
            parts = ((UnresolvedNamespace) node).multipartIdentifier();
            min = 1;
          }
          if (parts != null && parts.size() >= min) UcSession.ensureCatalog(session, parts.head());
          return BoxedUnit.UNIT;
        });
    return plan;
  }

  @Override
  public Seq<String> parseMultipartIdentifier(String sqlText) throws ParseException {
    Seq<String> parts = delegate.parseMultipartIdentifier(sqlText);
    if (parts.size() >= 3) UcSession.ensureCatalog(session, parts.head());
    return parts;
  }

  // ---- everything else, as the parser before this one does it ----

  @Override
  public Expression parseExpression(String sqlText) throws ParseException {
    return delegate.parseExpression(sqlText);
  }

  @Override
  public TableIdentifier parseTableIdentifier(String sqlText) throws ParseException {
    return delegate.parseTableIdentifier(sqlText);
  }

  @Override
  public FunctionIdentifier parseFunctionIdentifier(String sqlText) throws ParseException {
    return delegate.parseFunctionIdentifier(sqlText);
  }

  @Override
  public LogicalPlan parseQuery(String sqlText) throws ParseException {
    return registered(delegate.parseQuery(sqlText));
  }

  @Override
  public StructType parseRoutineParam(String sqlText) throws ParseException {
    return delegate.parseRoutineParam(sqlText);
  }

  @Override
  public StructType parseTableSchema(String sqlText) throws ParseException {
    return delegate.parseTableSchema(sqlText);
  }

  @Override
  public DataType parseDataType(String sqlText) throws ParseException {
    return delegate.parseDataType(sqlText);
  }

  static List<String> javaList(Seq<String> s) {
    return CollectionConverters.asJava(s);
  }
}
