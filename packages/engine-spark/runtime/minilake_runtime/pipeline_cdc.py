"""Auto CDC (`create_auto_cdc_flow`, `APPLY CHANGES INTO`) for Spark 4.1, which has none.

The target is computed from the whole change feed at every update with window functions, so it holds
exactly what Databricks' incremental merge would have built from the same events: SCD type 1 keeps the
latest row of each key (a delete removes it, a truncate empties the table before it), type 2 keeps one row
per version with `__START_AT` / `__END_AT` (the sequence values that opened and closed it; a delete closes
the current version). The source must keep its change events (an append-only table or stream, as CDC feeds
are), since nothing is merged incrementally."""
from pyspark.sql import Window
from pyspark.sql import functions as F


def _expr(e):
    return F.expr(e) if isinstance(e, str) else e


def cdc_frame(src, spec):
    """The target of an auto CDC flow over the change feed `src` (built without analysing `src`: a pipeline's
    query functions may not, so columns are handled as one struct and never listed)."""
    keys = spec["keys"]
    if not keys:
        raise ValueError("auto CDC needs at least one key")
    if spec.get("ignore_null_updates") and not spec.get("column_list"):
        raise ValueError("ignore_null_updates needs column_list here (MiniLake computes it column by column)")
    seq = _expr(spec["sequence_by"])
    deletes = _expr(spec["apply_as_deletes"]) if spec.get("apply_as_deletes") is not None else F.lit(False)
    truncates = _expr(spec["apply_as_truncates"]) if spec.get("apply_as_truncates") is not None else None
    scd = spec["stored_as_scd_type"]
    if truncates is not None and scd == 2:
        raise ValueError("APPLY AS TRUNCATE applies to SCD type 1 only")
    e = src.select(
        F.struct(F.col("*")).alias("__src"),
        seq.alias("__seq"),
        F.coalesce(deletes, F.lit(False)).alias("__del"),
        (F.coalesce(truncates, F.lit(False)) if truncates is not None else F.lit(False)).alias("__trunc"),
    ).where(F.col("__seq").isNotNull())
    if spec.get("column_list"):
        cols = [k for k in keys if k not in spec["column_list"]] + list(spec["column_list"])
        row = F.struct(*[F.col("__src.`%s`" % c).alias(c) for c in cols])
    elif spec.get("except_column_list"):
        row = F.col("__src").dropFields(*spec["except_column_list"])
    else:
        row = F.col("__src")
    kcols = [F.col("__src.`%s`" % k).alias(k) for k in keys]
    e = e.select(*kcols, row.alias("__row"), "__seq", "__del", "__trunc")
    if truncates is not None:
        # everything before the latest truncate is gone
        last = e.where("__trunc").agg(F.max("__seq").alias("__t"))
        e = e.where(~F.col("__trunc")).crossJoin(last).where(F.col("__t").isNull() | (F.col("__seq") > F.col("__t"))).drop("__t")
    k = [F.col("`%s`" % x) for x in keys]
    w = Window.partitionBy(*k).orderBy(F.col("__seq"))
    if spec.get("ignore_null_updates"):
        # a null in an update keeps the value the key had (the last non-null one before it)
        upto = w.rowsBetween(Window.unboundedPreceding, Window.currentRow)
        e = e.withColumn(
            "__row",
            F.struct(*[F.last(F.col("__row.`%s`" % c), ignorenulls=True).over(upto).alias(c) for c in spec["column_list"]]),
        )
    if scd == 1:
        latest = e.withColumn("__rn", F.row_number().over(Window.partitionBy(*k).orderBy(F.col("__seq").desc())))
        return latest.where((F.col("__rn") == 1) & ~F.col("__del")).select("__row.*")
    if spec.get("track_history_column_list"):
        tracked = F.struct(*[F.col("__row.`%s`" % c) for c in spec["track_history_column_list"]])
    elif spec.get("track_history_except_column_list"):
        tracked = F.col("__row").dropFields(*spec["track_history_except_column_list"])
    else:
        tracked = F.col("__row")
    # A new version starts at a key's first event, at and after a delete, and whenever a tracked column
    # changes; consecutive upserts that agree on every tracked column are one version.
    e = e.withColumn("__trk", tracked)
    prev_del = F.lag("__del").over(w)
    changed = ~F.col("__trk").eqNullSafe(F.lag("__trk").over(w))
    e = e.withColumn("__new", (prev_del.isNull() | prev_del | F.col("__del") | changed).cast("int"))
    e = e.withColumn("__grp", F.sum("__new").over(w.rowsBetween(Window.unboundedPreceding, Window.currentRow)))
    g = e.groupBy(*k, "__grp").agg(
        F.min("__seq").alias("__START_AT"),
        F.max_by(F.col("__row"), F.col("__seq")).alias("__v"),
        F.max(F.col("__del").cast("int")).alias("__isdel"),
    )
    g = g.withColumn("__END_AT", F.lead("__START_AT").over(Window.partitionBy(*k).orderBy("__START_AT")))
    return g.where(F.col("__isdel") == 0).select("__v.*", "__START_AT", "__END_AT")
