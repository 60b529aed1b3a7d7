"""Registers a collected pipeline Graph with Spark Declarative Pipelines (over Spark Connect), after the
choices only the whole graph allows: which `@table`s are materialized views (batch queries) and which are
streaming tables, expectations applied to each flow's query, auto CDC targets recomputed. Returns the
definitions the server records (dataset kinds for Unity Catalog, flows, where each was written)."""
import re

from pyspark.errors import PySparkException
import pyspark.sql.connect.proto as pb2
from pyspark.sql import functions as F
from pyspark.pipelines.add_pipeline_analysis_context import add_pipeline_analysis_context
from pyspark.pipelines.block_connect_access import block_spark_connect_execution_and_analysis
from pyspark.sql.connect.types import pyspark_types_to_proto_types
from pyspark.sql.types import StructType

from .pipeline_api import OBSERVATION_PREFIX, PipelineDefinitionError
from .pipeline_cdc import cdc_frame


# Where a flow's query names what it reads, in the text of its Spark Connect plan: a table read by name
# (spark.read.table, readStream.table, dlt.read) and a SQL query's FROM / JOIN (STREAM(x), STREAM x).
_NAMED_TABLE = re.compile(r'unparsed_identifier: "((?:[^"\\]|\\.)*)"')
_SQL_SOURCE = re.compile(r"\b(?:FROM|JOIN)\s+(?:STREAM\s*\(?\s*)?((?:`[^`]+`|[\w$]+)(?:\s*\.\s*(?:`[^`]+`|[\w$]+)){0,2})", re.I)


def _parts(identifier):
    """`a`.b.`c d` -> ["a", "b", "c d"], lower-cased (dots inside backticks are part of a name)."""
    return [p.strip().strip("`").lower() for p in re.split(r"\.(?=(?:[^`]*`[^`]*`)*[^`]*$)", identifier)]


class FlowCodeError(Exception):
    """The user's query function raised while its flow was being defined."""

    def __init__(self, flow, error):
        super().__init__(str(error))
        self.flow = flow
        self.error = error


def _streaming(rel):
    """True when a Spark Connect relation reads a stream anywhere (a streaming read, or STREAM in SQL)."""
    import re

    stack = [rel]
    while stack:
        m = stack.pop()
        for field, value in m.ListFields():
            if field.type != field.TYPE_MESSAGE:
                continue
            # a message, or a repeated field of them (protobuf 7 has no FieldDescriptor.label)
            items = [value] if hasattr(value, "ListFields") else list(value)
            for v in items:
                if not hasattr(v, "ListFields"):
                    continue
                name = v.DESCRIPTOR.full_name
                if name == "spark.connect.Read" and v.is_streaming:
                    return True
                if name == "spark.connect.SQL" and re.search(r"(?i)\bstream\s*[\(\w`]", v.query):
                    return True
                stack.append(v)
    return False


class Registrar:
    def __init__(self, spark, gid, catalog, schema, update_id):
        self.spark = spark
        self.client = spark.client
        self.gid = gid
        self.catalog = catalog
        self.schema = schema
        self.update_id = update_id

    def full_name(self, name):
        parts = [p.strip("`") for p in name.split(".")]
        if len(parts) == 1:
            parts = [self.catalog, self.schema] + parts
        elif len(parts) == 2:
            parts = [self.catalog] + parts
        return ".".join(p for p in parts if p is not None)

    # ---- evaluating the flows --------------------------------------------------------------------------

    def _evaluate(self, flow, func):
        with add_pipeline_analysis_context(spark=self.spark, dataflow_graph_id=self.gid, flow_name=flow.name):
            with block_spark_connect_execution_and_analysis():
                try:
                    df = func()
                except (PipelineDefinitionError, PySparkException):
                    raise
                except Exception as e:  # noqa: BLE001 (the user's exception, reported with its line)
                    raise FlowCodeError(flow, e) from e
        if df is None or not hasattr(df, "_plan"):
            raise PipelineDefinitionError(
                "The query function of flow '%s' must return a DataFrame, not %s" % (flow.name, type(df).__name__),
                flow.loc,
            )
        return df

    def _with_expectations(self, flow, df, expectations):
        if not expectations:
            return df
        ok = [F.coalesce(F.expr(e["condition"]), F.lit(False)) for e in expectations]
        metrics = [F.count(F.lit(1)).alias("rows")]
        for i, cond in enumerate(ok):
            metrics.append(F.sum(F.when(cond, 0).otherwise(1)).alias("f%d" % i))
        if flow.streaming:
            # A stream's counts come back per micro-batch through the Spark Connect server's listener
            # (MiniLake's plugin), keyed by this name; they become the flow's data_quality in its events.
            # A batch flow is counted once it has written (expectation_counts).
            df = df.observe("%s:%s:%s" % (OBSERVATION_PREFIX, self.update_id, flow.name), *metrics)
        for e, cond in zip(expectations, ok):
            if e["action"] == "fail":
                msg = "[EXPECTATION_VIOLATION] Flow '%s' failed to meet the expectation '%s': %s" % (
                    flow.name,
                    e["name"],
                    e["condition"],
                )
                df = df.where(F.when(cond, F.lit(True)).otherwise(F.raise_error(F.lit(msg)).cast("boolean")))
        drops = [c for e, c in zip(expectations, ok) if e["action"] == "drop"]
        if drops:
            keep = drops[0]
            for c in drops[1:]:
                keep = keep & c
            df = df.where(keep)
        return df

    # ---- registering ---------------------------------------------------------------------------------------

    def _loc(self, loc):
        return pb2.SourceCodeLocation(file_name=loc.file, line_number=loc.line) if loc.line else pb2.SourceCodeLocation(file_name=loc.file)

    def _define_output(self, d, sdp_kind):
        details = None
        sink = None
        if sdp_kind in ("MATERIALIZED_VIEW", "TABLE"):
            schema_string = d.schema if isinstance(d.schema, str) else None
            schema_type = pyspark_types_to_proto_types(d.schema) if isinstance(d.schema, StructType) else None
            details = pb2.PipelineCommand.DefineOutput.TableDetails(
                table_properties=d.properties,
                partition_cols=d.partition_cols or [],
                clustering_columns=d.cluster_by or [],
                format=d.format,
                schema_string=schema_string,
                schema_data_type=schema_type,
            )
            out_type = pb2.OutputType.MATERIALIZED_VIEW if sdp_kind == "MATERIALIZED_VIEW" else pb2.OutputType.TABLE
        elif sdp_kind == "TEMPORARY_VIEW":
            out_type = pb2.OutputType.TEMPORARY_VIEW
        elif sdp_kind == "SINK":
            out_type = pb2.OutputType.SINK
            sink = pb2.PipelineCommand.DefineOutput.SinkDetails(options=d.options, format=d.format)
        else:
            raise PipelineDefinitionError("Unsupported dataset kind %s" % sdp_kind, d.loc)
        cmd = pb2.Command()
        cmd.pipeline_command.define_output.CopyFrom(
            pb2.PipelineCommand.DefineOutput(
                dataflow_graph_id=self.gid,
                output_name=d.name,
                output_type=out_type,
                comment=d.comment,
                table_details=details,
                sink_details=sink,
                source_code_location=self._loc(d.loc),
            )
        )
        self.client.execute_command(cmd)

    def _define_flow(self, flow, df):
        relation = df._plan.plan(self.client)
        cmd = pb2.Command()
        cmd.pipeline_command.define_flow.CopyFrom(
            pb2.PipelineCommand.DefineFlow(
                dataflow_graph_id=self.gid,
                flow_name=flow.name,
                target_dataset_name=flow.target,
                relation_flow_details=pb2.PipelineCommand.DefineFlow.WriteRelationFlowDetails(relation=relation),
                sql_conf=flow.spark_conf,
                source_code_location=self._loc(flow.loc),
            )
        )
        self.client.execute_command(cmd)

    def expectation_counts(self, flow):
        """A batch flow's expectation counts: its query (before the expectations) aggregated once more after
        the flow wrote. Streaming flows are counted as they run, by the server's listener (PipelineMetrics)."""
        exps = getattr(flow, "expectations_applied", [])
        metrics = [F.count(F.lit(1)).alias("rows")]
        for i, e in enumerate(exps):
            ok = F.coalesce(F.expr(e["condition"]), F.lit(False))
            metrics.append(F.sum(F.when(ok, 0).otherwise(1)).alias("f%d" % i))
        row = flow.df.agg(*metrics).collect()[0]
        return {k: int(v or 0) for k, v in row.asDict().items()}

    def register(self, g):
        by_target = {}
        for f in g.flows:
            key = f.target.lower()
            if key not in g.datasets:
                raise PipelineDefinitionError(
                    "Flow '%s' writes to '%s', which no source defines (create_streaming_table first)." % (f.name, f.target),
                    f.loc,
                )
            by_target.setdefault(key, []).append(f)
        # 1. every query, as the user wrote it
        for f in g.flows:
            if f.cdc is not None:
                d = g.datasets[f.target.lower()]
                if d.kind not in ("STREAMING_TABLE", "TABLE"):
                    raise PipelineDefinitionError("The target of an auto CDC flow must be a streaming table.", f.loc)
                d.cdc_target = True
                spec = f.cdc
                f.df = self._evaluate(f, lambda spec=spec: cdc_frame(self.spark.read.table(spec["source"]), spec))
                f.streaming = False
            else:
                f.df = self._evaluate(f, f.func)
                f.streaming = _streaming(f.df._plan.plan(self.client))
        # 2. what each dataset is, in Unity Catalog and in Spark
        kinds = {}
        for key in g.order:
            d = g.datasets[key]
            flows = by_target.get(key, [])
            if d.kind == "TABLE":
                uc = "STREAMING_TABLE" if any(f.streaming for f in flows) else "MATERIALIZED_VIEW"
            else:
                uc = d.kind
            if d.cdc_target:
                if len(flows) != 1:
                    raise PipelineDefinitionError("An auto CDC target takes exactly one flow: '%s'." % d.name, d.loc)
                sdp = "MATERIALIZED_VIEW"  # recomputed from the change feed (see pipeline_cdc)
            elif uc == "STREAMING_TABLE":
                sdp = "TABLE"
            elif uc == "VIEW":
                sdp = "TEMPORARY_VIEW"  # a persisted view is not published to Unity Catalog (see README)
            else:
                sdp = uc
            if d.private and sdp in ("MATERIALIZED_VIEW", "TABLE"):
                raise PipelineDefinitionError(
                    "Private (temporary) tables are not supported by MiniLake's pipelines: '%s'" % d.name, d.loc
                )
            kinds[key] = (uc, sdp)
        # 3. register: outputs, then flows with their expectations
        for key in g.order:
            self._define_output(g.datasets[key], kinds[key][1])
        for f in g.flows:
            d = g.datasets[f.target.lower()]
            exps = f.expectations + d.expectations
            f.expectations_applied = exps
            self._define_flow(f, self._with_expectations(f, f.df, exps))
        return self.definitions(g, kinds, by_target)

    def _inputs(self, g, f, names):
        """The pipeline's datasets a flow reads (Databricks' flow_definition.input_datasets), read off its plan;
        a flow whose plan cannot be read names none (the graph then shows the dataset without its edges)."""
        try:
            text = str(f.df._plan.plan(self.client)) if f.df is not None else ""
        except Exception:  # noqa: BLE001 - the edges are a picture; the update goes on without them
            return []
        found = [m.encode("utf-8").decode("unicode_escape") for m in _NAMED_TABLE.findall(text)]
        found += _SQL_SOURCE.findall(text.replace("\\n", " "))
        out = []
        for ident in found:
            parts = _parts(ident)
            key = parts[-1]
            if key not in g.datasets or key == f.target.lower() or names[key] in out:
                continue
            # A qualified name is the dataset only where the pipeline publishes it (not samples.tpch.region).
            if len(parts) == 1 or names[key].lower().endswith("." + ".".join(parts)) or names[key].lower() == ".".join(parts):
                out.append(names[key])
        return out

    def definitions(self, g, kinds, by_target):
        datasets = []
        for key in g.order:
            d = g.datasets[key]
            uc, _sdp = kinds[key]
            datasets.append(
                {
                    "name": d.name,
                    "full_name": self.full_name(d.name) if uc not in ("TEMPORARY_VIEW", "VIEW") else d.name,
                    "kind": uc,
                    "file": d.loc.file,
                    "line": d.loc.line,
                    "num_flows": len(by_target.get(key, [])),
                    "expectations": [
                        {"name": e["name"], "condition": e["condition"], "action": e["action"]} for e in d.expectations
                    ],
                }
            )
        # A dataset as events name it: published ones by their full name, views by their own.
        names = {key: d["full_name"] for key, d in zip(g.order, datasets)}
        flows = []
        for f in g.flows:
            flows.append(
                {
                    "name": f.name,
                    "full_name": self.full_name(f.name),
                    "target": self.full_name(f.target) if kinds[f.target.lower()][0] not in ("TEMPORARY_VIEW", "VIEW") else f.target,
                    "type": "CHANGE" if f.cdc is not None else ("APPEND" if f.streaming else "COMPLETE"),
                    "inputs": self._inputs(g, f, names),
                    "file": f.loc.file,
                    "line": f.loc.line,
                    "expectations": [
                        {"name": e["name"], "condition": e["condition"], "action": e["action"]}
                        for e in getattr(f, "expectations_applied", [])
                    ],
                }
            )
        return {"datasets": datasets, "flows": flows}
