"""The pipeline API a Databricks source sees, over Spark Declarative Pipelines.

On Databricks `from pyspark import pipelines as dp` is the classic `dlt` module (the databricks-connect fork's
`pyspark/pipelines/__init__.py` falls back to `from dlt import *`), so both spellings get the same functions
here: `table` (a streaming table when its query streams, else a materialized view), `materialized_view`,
`temporary_view` / `view`, `create_streaming_table`, `append_flow`, `create_sink`, `expect*`,
`create_auto_cdc_flow` / `apply_changes`, `read` / `read_stream`. Definitions are collected first (a `Graph`)
and registered with Spark once every source has loaded, because some choices need the whole picture: a
`@table` is a view or a table by its query, an auto CDC target is recomputed from its change feed.
What Spark 4.1 lacks is built here from what it has: expectations are filters plus observed counts, auto CDC
is a windowed recompute of the change feed (SCD 1 and 2), Auto Loader is Spark's file stream source."""
import os
import sys
import types

from pyspark.errors import PySparkException

RUNTIME_DIR = os.path.dirname(os.path.abspath(__file__))
OBSERVATION_PREFIX = "minilake_pipeline"


class PipelineDefinitionError(Exception):
    """A definition Databricks would refuse (or MiniLake cannot run), with where the user wrote it."""

    def __init__(self, message, loc=None):
        super().__init__(message)
        self.loc = loc


class Loc:
    def __init__(self, file, line):
        self.file = file
        self.line = line


def caller_loc(extra=0):
    """The first frame outside this runtime and pyspark: the line of user code that made the call."""
    f = sys._getframe(1 + extra)
    while f is not None:
        fn = f.f_code.co_filename
        if not fn.startswith(RUNTIME_DIR) and "/pyspark/" not in fn:
            return Loc(fn, f.f_lineno)
        f = f.f_back
    return Loc("<unknown>", None)


class Dataset:
    def __init__(self, name, kind, loc, **kw):
        self.name = name
        # MATERIALIZED_VIEW | STREAMING_TABLE | TABLE (decided by its query) | TEMPORARY_VIEW | VIEW | SINK
        self.kind = kind
        self.loc = loc
        self.comment = kw.get("comment")
        self.properties = dict(kw.get("properties") or {})
        self.partition_cols = kw.get("partition_cols")
        self.cluster_by = kw.get("cluster_by")
        self.schema = kw.get("schema")
        self.format = kw.get("format")
        self.options = kw.get("options") or {}
        self.expectations = list(kw.get("expectations") or [])
        self.private = bool(kw.get("private"))
        self.cdc_target = False


class FlowDef:
    def __init__(self, name, target, func, loc, spark_conf=None, expectations=None, once=False, cdc=None):
        self.name = name
        self.target = target
        self.func = func
        self.loc = loc
        self.spark_conf = dict(spark_conf or {})
        self.expectations = list(expectations or [])
        self.once = once
        self.cdc = cdc
        self.df = None
        self.streaming = False


class Graph:
    """Everything the sources defined, in order."""

    def __init__(self):
        self.datasets = {}
        self.flows = []
        self.order = []

    def add_dataset(self, d):
        key = d.name.lower()
        prev = self.datasets.get(key)
        if prev is not None and not (prev.kind == "STREAMING_TABLE" and d.kind == "STREAMING_TABLE" and prev.cdc_target):
            raise PipelineDefinitionError("Dataset '%s' is defined more than once." % d.name, d.loc)
        self.datasets[key] = d
        self.order.append(key)

    def add_flow(self, f):
        if any(x.name.lower() == f.name.lower() for x in self.flows):
            raise PipelineDefinitionError("Flow '%s' is defined more than once." % f.name, f.loc)
        self.flows.append(f)


_graph = None


def graph():
    if _graph is None:
        raise PySparkException(errorClass="GRAPH_ELEMENT_DEFINED_OUTSIDE_OF_DECLARATIVE_PIPELINE", messageParameters={})
    return _graph


def set_graph(g):
    global _graph
    _graph = g


# ---- expectations ----------------------------------------------------------------------------------


def _add_expectation(func, name, condition, action):
    lst = getattr(func, "__minilake_expectations__", None)
    if lst is None:
        lst = []
        try:
            func.__minilake_expectations__ = lst
        except AttributeError:
            raise PipelineDefinitionError("@expect decorators go on the query function, below @table/@view") from None
    # Decorators apply bottom-up; the list keeps the order they were written in.
    lst.insert(0, {"name": name, "condition": condition, "action": action})
    return func


def _expect(action):
    def deco_factory(name, constraint):
        if not isinstance(name, str) or not isinstance(constraint, str):
            raise TypeError("expect(name, constraint): both are strings (a SQL boolean expression)")
        return lambda func: _add_expectation(func, name, constraint, action)

    return deco_factory


def _expect_all(action):
    def deco_factory(expectations):
        if not isinstance(expectations, dict):
            raise TypeError("expect_all takes a dict of {name: SQL boolean expression}")

        def deco(func):
            for n, c in reversed(list(expectations.items())):
                _add_expectation(func, n, c, action)
            return func

        return deco

    return deco_factory


expect = _expect("warn")
expect_or_drop = _expect("drop")
expect_or_fail = _expect("fail")
expect_all = _expect_all("warn")
expect_all_or_drop = _expect_all("drop")
expect_all_or_fail = _expect_all("fail")


def _dataset_expectations(expect_all=None, expect_all_or_drop=None, expect_all_or_fail=None):
    out = []
    for d, action in ((expect_all, "warn"), (expect_all_or_drop, "drop"), (expect_all_or_fail, "fail")):
        for n, c in (d or {}).items():
            out.append({"name": n, "condition": c, "action": action})
    return out


# ---- datasets and flows --------------------------------------------------------------------------------


def _decorator(kind, query_function, name, loc, **kw):
    def outer(func):
        if not callable(func):
            raise PipelineDefinitionError("@%s decorates a function that returns a DataFrame" % kind.lower(), loc)
        n = name or func.__name__
        g = graph()
        exps = list(getattr(func, "__minilake_expectations__", []))
        g.add_dataset(Dataset(n, kind, loc, **kw))
        g.add_flow(FlowDef(n, n, func, loc, kw.get("spark_conf"), exps))
        return None

    if query_function is not None:
        return outer(query_function)
    return outer


def table(
    query_function=None,
    *,
    name=None,
    comment=None,
    spark_conf=None,
    table_properties=None,
    path=None,
    partition_cols=None,
    cluster_by=None,
    schema=None,
    row_filter=None,
    temporary=False,
    private=False,
    format=None,
    **_ignored,
):
    """A materialized view when the query is a batch read, a streaming table when it streams (Databricks)."""
    loc = caller_loc()
    if path is not None:
        raise PipelineDefinitionError("table(path=...) is not supported: datasets live in Unity Catalog here", loc)
    if row_filter is not None:
        raise PipelineDefinitionError("table(row_filter=...) is not supported by MiniLake", loc)
    return _decorator(
        "TABLE", query_function, name, loc, comment=comment, spark_conf=spark_conf, properties=table_properties,
        partition_cols=partition_cols, cluster_by=cluster_by, schema=schema, private=temporary or private,
        format=format,
    )


def materialized_view(
    query_function=None, *, name=None, comment=None, spark_conf=None, table_properties=None,
    partition_cols=None, cluster_by=None, schema=None, private=False, format=None, **_ignored,
):
    loc = caller_loc()
    return _decorator(
        "MATERIALIZED_VIEW", query_function, name, loc, comment=comment, spark_conf=spark_conf,
        properties=table_properties, partition_cols=partition_cols, cluster_by=cluster_by, schema=schema,
        private=private, format=format,
    )


def temporary_view(query_function=None, *, name=None, comment=None, spark_conf=None, **_ignored):
    loc = caller_loc()
    return _decorator("TEMPORARY_VIEW", query_function, name, loc, comment=comment, spark_conf=spark_conf)


view = temporary_view


def create_streaming_table(
    name, comment=None, spark_conf=None, table_properties=None, partition_cols=None, cluster_by=None,
    path=None, schema=None, expect_all=None, expect_all_or_drop=None, expect_all_or_fail=None,
    row_filter=None, format=None, **_ignored,
):
    loc = caller_loc()
    if not isinstance(name, str):
        raise TypeError("create_streaming_table(name): name is a string")
    d = Dataset(
        name, "STREAMING_TABLE", loc, comment=comment, properties=table_properties, partition_cols=partition_cols,
        cluster_by=cluster_by, schema=schema, format=format,
        expectations=_dataset_expectations(expect_all, expect_all_or_drop, expect_all_or_fail),
    )
    graph().add_dataset(d)


create_streaming_live_table = create_streaming_table
create_target_table = create_streaming_table


def append_flow(*, target, name=None, spark_conf=None, once=False, comment=None, **_ignored):
    loc = caller_loc()

    def outer(func):
        exps = list(getattr(func, "__minilake_expectations__", []))
        graph().add_flow(FlowDef(name or func.__name__, target, func, loc, spark_conf, exps, once=once))

    return outer


def create_sink(name, format, options=None):
    loc = caller_loc()
    graph().add_dataset(Dataset(name, "SINK", loc, format=format, options=options or {}))


def create_auto_cdc_flow(
    target, source, keys, sequence_by, ignore_null_updates=False, apply_as_deletes=None,
    apply_as_truncates=None, column_list=None, except_column_list=None, stored_as_scd_type=1,
    track_history_column_list=None, track_history_except_column_list=None, name=None, flow_name=None,
    once=False, spark_conf=None,
):
    loc = caller_loc()
    if column_list is not None and except_column_list is not None:
        raise PipelineDefinitionError("Only one of column_list and except_column_list can be specified.", loc)
    scd = int(stored_as_scd_type) if stored_as_scd_type is not None else 1
    if scd not in (1, 2):
        raise PipelineDefinitionError("stored_as_scd_type is 1 or 2", loc)
    spec = {
        "source": source,
        "keys": [_col_name(k) for k in keys],
        "sequence_by": sequence_by,
        "ignore_null_updates": ignore_null_updates,
        "apply_as_deletes": apply_as_deletes,
        "apply_as_truncates": apply_as_truncates,
        "column_list": [_col_name(c) for c in column_list] if column_list else None,
        "except_column_list": [_col_name(c) for c in except_column_list] if except_column_list else None,
        "stored_as_scd_type": scd,
        "track_history_column_list": [_col_name(c) for c in track_history_column_list] if track_history_column_list else None,
        "track_history_except_column_list": (
            [_col_name(c) for c in track_history_except_column_list] if track_history_except_column_list else None
        ),
    }
    fname = name or flow_name or target
    graph().add_flow(FlowDef(fname, target, None, loc, spark_conf, cdc=spec))


apply_changes = create_auto_cdc_flow


def _refused(what, instead=""):
    def f(*_a, **_k):
        raise PipelineDefinitionError(
            "%s is not available in MiniLake's pipelines (Spark Declarative Pipelines has no local equivalent)%s"
            % (what, instead),
            caller_loc(),
        )

    return f


create_auto_cdc_from_snapshot_flow = _refused("create_auto_cdc_from_snapshot_flow")
apply_changes_from_snapshot = _refused("apply_changes_from_snapshot")
foreach_batch_sink = _refused("foreach_batch_sink")


def _col_name(c):
    if isinstance(c, str):
        return c
    # a Column made with F.col("x"): its name
    s = str(c)
    return s[s.find("'") + 1 : s.rfind("'")] if "'" in s else s


_spark = None


def read(name):
    return _spark.read.table(name)


def read_stream(name):
    return _spark.readStream.table(name)


API_NAMES = [
    "table", "materialized_view", "temporary_view", "view", "create_streaming_table", "create_streaming_live_table",
    "create_target_table", "append_flow", "create_sink", "create_auto_cdc_flow", "apply_changes",
    "create_auto_cdc_from_snapshot_flow", "apply_changes_from_snapshot", "foreach_batch_sink", "expect",
    "expect_or_drop", "expect_or_fail", "expect_all", "expect_all_or_drop", "expect_all_or_fail", "read",
    "read_stream",
]


def install(spark):
    """`pyspark.pipelines` and `dlt` both become this API (as on Databricks); Auto Loader reads work."""
    global _spark
    _spark = spark
    import pyspark.pipelines as pp

    me = sys.modules[__name__]
    for n in API_NAMES:
        setattr(pp, n, getattr(me, n))
    pp.__all__ = list(API_NAMES)
    dlt = types.ModuleType("dlt")
    dlt.__doc__ = "Databricks' classic pipeline API, served by MiniLake over Spark Declarative Pipelines."
    for n in API_NAMES:
        setattr(dlt, n, getattr(me, n))
    sys.modules["dlt"] = dlt
    from . import pipeline_files

    pipeline_files.install_auto_loader()
