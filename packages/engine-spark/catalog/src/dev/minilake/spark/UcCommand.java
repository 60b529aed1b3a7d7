package dev.minilake.spark;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.catalyst.expressions.Attribute;
import org.apache.spark.sql.catalyst.expressions.AttributeReference;
import org.apache.spark.sql.catalyst.expressions.NamedExpression;
import org.apache.spark.sql.catalyst.plans.logical.Command;
import org.apache.spark.sql.catalyst.plans.logical.LogicalPlan;
import org.apache.spark.sql.catalyst.trees.LeafLike;
import org.apache.spark.sql.execution.command.LeafRunnableCommand;
import org.apache.spark.sql.execution.command.RunnableCommand;
import org.apache.spark.sql.execution.metric.SQLMetric;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.Metadata;
import scala.Enumeration;
import scala.collection.immutable.Seq;
import scala.jdk.javaapi.CollectionConverters;

/**
 * A Databricks SQL statement about Unity Catalog itself, run against the Unity Catalog server the session's
 * catalogs talk to: CREATE/DROP CATALOG, SHOW CATALOGS, GRANT/REVOKE, SHOW GRANTS. A Spark command like
 * Spark's own (`SetCatalogCommand`), written in Java: a leaf logical plan whose run() does the work.
 */
public final class UcCommand extends LogicalPlan implements LeafRunnableCommand {
  private static final long serialVersionUID = 1L;

  private final String op;
  private final Seq<String> args;
  private final Seq<Attribute> out;
  private Seq<Enumeration.Value> nodePatterns;

  public UcCommand(String op, Seq<String> args, Seq<Attribute> out) {
    this.op = op;
    this.args = args;
    this.out = out;
    LeafLike.$init$(this);
    Command.$init$(this);
    RunnableCommand.$init$(this);
  }

  static UcCommand of(String op, List<String> args, String... columns) {
    List<Attribute> attrs = new ArrayList<>();
    for (String c : columns)
      attrs.add(
          new AttributeReference(
              c,
              DataTypes.StringType,
              true,
              Metadata.empty(),
              NamedExpression.newExprId(),
              CollectionConverters.asScala(Collections.<String>emptyList()).toSeq()));
    return new UcCommand(op, CollectionConverters.asScala(args).toSeq(), CollectionConverters.asScala(attrs).toSeq());
  }

  // ---- the plan's shape ----

  @Override
  public Seq<Attribute> output() {
    return out;
  }

  @Override
  public Seq<LogicalPlan> children() {
    return CollectionConverters.asScala(Collections.<LogicalPlan>emptyList()).toSeq();
  }

  @Override
  public LogicalPlan withNewChildrenInternal(scala.collection.immutable.IndexedSeq<LogicalPlan> c) {
    return this;
  }

  @Override
  public scala.collection.immutable.Map<String, SQLMetric> metrics() {
    return scala.collection.immutable.Map$.MODULE$.empty();
  }

  @Override
  public Seq<Enumeration.Value> nodePatterns() {
    return nodePatterns;
  }

  @Override
  public void org$apache$spark$sql$catalyst$plans$logical$Command$_setter_$nodePatterns_$eq(Seq<Enumeration.Value> p) {
    this.nodePatterns = p;
  }

  @Override
  public String productPrefix() {
    return "UcCommand";
  }

  @Override
  public int productArity() {
    return 3;
  }

  @Override
  public Object productElement(int n) {
    switch (n) {
      case 0:
        return op;
      case 1:
        return args;
      case 2:
        return out;
      default:
        throw new IndexOutOfBoundsException(String.valueOf(n));
    }
  }

  @Override
  public boolean canEqual(Object that) {
    return that instanceof UcCommand;
  }

  @Override
  public boolean equals(Object o) {
    if (!(o instanceof UcCommand)) return false;
    UcCommand u = (UcCommand) o;
    return op.equals(u.op) && args.equals(u.args) && out.equals(u.out);
  }

  @Override
  public int hashCode() {
    return op.hashCode() * 31 + args.hashCode();
  }

  @Override
  public String simpleString(int maxFields) {
    return "UcCommand " + op + " " + String.join(" ", CollectionConverters.asJava(args));
  }

  // ---- what it does ----

  private List<String> a() {
    return CollectionConverters.asJava(args);
  }

  private static Seq<Row> rows(List<Row> rows) {
    return CollectionConverters.asScala(rows).toSeq();
  }

  private static Seq<Row> none() {
    return rows(Collections.emptyList());
  }

  @Override
  public Seq<Row> run(SparkSession session) {
    UcClient uc = UcSession.client(session);
    List<String> x = a();
    switch (op) {
      case "CREATE_CATALOG":
        return createCatalog(session, uc, x);
      case "DROP_CATALOG":
        return dropCatalog(uc, x);
      case "SHOW_CATALOGS":
        return showCatalogs(uc, x);
      case "GRANT":
      case "REVOKE":
        return grant(uc, x);
      case "SHOW_GRANTS":
        return showGrants(uc, x);
      default:
        throw new UnsupportedOperationException("Unknown Unity Catalog command " + op);
    }
  }

  /** args: name, ifNotExists, comment|"", managedLocation|"" */
  private Seq<Row> createCatalog(SparkSession session, UcClient uc, List<String> x) {
    String name = x.get(0);
    ObjectNode body = uc.object().put("name", name);
    if (!x.get(2).isEmpty()) body.put("comment", x.get(2));
    if (!x.get(3).isEmpty()) body.put("storage_root", x.get(3));
    try {
      uc.call("POST", "/catalogs", body);
    } catch (UcClient.UcException e) {
      if (!(e.status == 409 && Boolean.parseBoolean(x.get(1)))) throw UcSession.sparkError(e);
    }
    UcSession.register(session, name);
    return none();
  }

  /** args: name, ifExists, cascade */
  private Seq<Row> dropCatalog(UcClient uc, List<String> x) {
    try {
      uc.call("DELETE", "/catalogs/" + UcClient.enc(x.get(0)) + "?force=" + x.get(2), null);
    } catch (UcClient.UcException e) {
      if (!(e.status == 404 && Boolean.parseBoolean(x.get(1)))) throw UcSession.sparkError(e);
    }
    return none();
  }

  /** args: pattern|"" (Databricks' LIKE: `*` any characters, `|` alternatives, case-insensitive) */
  private Seq<Row> showCatalogs(UcClient uc, List<String> x) {
    Pattern p = x.get(0).isEmpty() ? null : likePattern(x.get(0));
    List<Row> out = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (JsonNode c : uc.list("/catalogs", "catalogs", Map.of())) names.add(c.path("name").asText());
    Collections.sort(names);
    for (String n : names) if (p == null || p.matcher(n).matches()) out.add(RowFactory.create(n));
    return rows(out);
  }

  static Pattern likePattern(String like) {
    StringBuilder sb = new StringBuilder();
    for (String alt : like.split("\\|")) {
      if (sb.length() > 0) sb.append('|');
      sb.append("(?:");
      for (char ch : alt.trim().toCharArray()) sb.append(ch == '*' ? ".*" : Pattern.quote(String.valueOf(ch)));
      sb.append(')');
    }
    return Pattern.compile(sb.toString(), Pattern.CASE_INSENSITIVE);
  }

  /** args: securableType, fullName, principal, privilege... */
  private Seq<Row> grant(UcClient uc, List<String> x) {
    ObjectNode body = uc.object();
    ObjectNode change = body.putArray("changes").addObject();
    change.put("principal", x.get(2));
    ArrayNode privs = change.putArray(op.equals("GRANT") ? "add" : "remove");
    for (String p : x.subList(3, x.size())) privs.add(p);
    try {
      uc.call("PATCH", "/permissions/" + x.get(0) + "/" + UcClient.enc(x.get(1)), body);
    } catch (UcClient.UcException e) {
      throw UcSession.sparkError(e);
    }
    return none();
  }

  /** args: securableType, fullName, principal|"" -> principal, ActionType, ObjectType, ObjectKey */
  private Seq<Row> showGrants(UcClient uc, List<String> x) {
    String path = "/permissions/" + x.get(0) + "/" + UcClient.enc(x.get(1));
    if (!x.get(2).isEmpty()) path += "?principal=" + UcClient.enc(x.get(2));
    JsonNode j;
    try {
      j = uc.call("GET", path, null);
    } catch (UcClient.UcException e) {
      throw UcSession.sparkError(e);
    }
    List<Row> out = new ArrayList<>();
    String objectType = x.get(0).toUpperCase(Locale.ROOT).replace('_', ' ');
    for (JsonNode a : j.path("privilege_assignments"))
      for (JsonNode p : a.path("privileges"))
        out.add(RowFactory.create(a.path("principal").asText(), p.asText().replace('_', ' '), objectType, x.get(1)));
    return rows(out);
  }
}
