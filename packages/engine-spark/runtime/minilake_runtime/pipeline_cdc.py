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
    keys = spec["keys"]
    if not keys:
        raise ValueError("auto CDC needs at least one key")
    seq = _expr(spec["sequence_by"])
    deletes = _expr(spec["apply_as_deletes"]) if spec.get("apply_as_deletes") is not None else F.lit(False)
    truncates = _expr(spec["apply_as_truncates"]) if spec.get("apply_as_truncates") is not None else None
    scd = spec["stored_as_scd_type"]
    if truncates is not None and scd == 2:
        raise ValueError("APPLY AS TRUNCATE applies to SCD type 1 only")
    cols = list(src.columns)
    if spec.get("column_list"):
        data = list(spec["column_list"])
    else:
        drop = {c.lower() for c in (spec.get("except_column_list") or [])}
        data = [c for c in cols if c.lower() not in drop]
    missing = [k for k in keys if k not in data]
    data = missing + data
    e = src.select(
        *[F.col("`%s`" % c) for c in data],
        seq.alias("__seq"),
        F.coalesce(deletes, F.lit(False)).alias("__del"),
        *([F.coalesce(truncates, F.lit(False)).alias("__trunc")] if truncates is not None else []),
    ).where(F.col("__seq").isNotNull())
    kcols = [F.col("`%s`" % k) for k in keys]
    if truncates is not None:
        last_trunc = e.where("__trunc").agg(F.max("__seq").alias("__t"))
        e = e.where(~F.col("__trunc")).crossJoin(last_trunc).where(F.col("__t").isNull() | (F.col("__seq") > F.col("__t")))
        e = e.drop("__t", "__trunc")
    w = Window.partitionBy(*kcols).orderBy(F.col("__seq"))
    values = [c for c in data if c not in keys]
    if spec.get("ignore_null_updates"):
        # a null in an update keeps the value the key had (the last non-null one before it)
        upto = w.rowsBetween(Window.unboundedPreceding, Window.currentRow)
        e = e.select(
            *kcols, *[F.last(F.col("`%s`" % c), ignorenulls=True).over(upto).alias(c) for c in values], "__seq", "__del"
        )
    if scd == 1:
        latest = e.withColumn("__rn", F.row_number().over(Window.partitionBy(*kcols).orderBy(F.col("__seq").desc())))
        return latest.where((F.col("__rn") == 1) & ~F.col("__del")).select(*[F.col("`%s`" % c) for c in data])
    if spec.get("track_history_column_list"):
        tracked = list(spec["track_history_column_list"])
    else:
        skip = {c.lower() for c in (spec.get("track_history_except_column_list") or [])}
        tracked = [c for c in values if c.lower() not in skip]
    # A new version starts at the first event of a key, after a delete, at a delete, and whenever a tracked
    # column changes; consecutive upserts that agree on every tracked column are one version.
    changed = F.lit(False)
    for c in tracked:
        changed = changed | ~F.col("`%s`" % c).eqNullSafe(F.lag(F.col("`%s`" % c)).over(w))
    prev_del = F.lag("__del").over(w)
    start = prev_del.isNull() | prev_del | F.col("__del") | changed
    e = e.withColumn("__new", start.cast("int"))
    e = e.withColumn("__grp", F.sum("__new").over(w.rowsBetween(Window.unboundedPreceding, Window.currentRow)))
    g = e.groupBy(*kcols, "__grp").agg(
        F.min("__seq").alias("__START_AT"),
        F.max_by(F.struct(*[F.col("`%s`" % c) for c in values]), F.col("__seq")).alias("__v"),
        F.max(F.col("__del").cast("int")).alias("__isdel"),
    )
    wg = Window.partitionBy(*kcols).orderBy("__START_AT")
    g = g.withColumn("__END_AT", F.lead("__START_AT").over(wg))
    return g.where(F.col("__isdel") == 0).select(
        *kcols, *[F.col("__v.`%s`" % c).alias(c) for c in values], "__START_AT", "__END_AT"
    )
