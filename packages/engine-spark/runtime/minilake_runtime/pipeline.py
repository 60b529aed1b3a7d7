"""One update of a Lakeflow Declarative Pipeline, run on Spark Declarative Pipelines over the warm Spark
Connect server (task kind `pipeline`). The server (MiniLake's pipelines service) wrote the settings and the
sources; this loads every source with `spark` and `dbutils` as globals, registers the graph, runs it, and
reports each step back as it happens (`POST /_minilake/pipelines/updates/<id>/report`): the phases, the
graph's datasets and flows (before the run, so their tables are created with the right kind), every flow's
progress as Spark reports it, and the error with the user's file and line. SIGTERM (stop, cancel) interrupts
the run on the server before the process goes."""
import os
import re
import signal
import sys
import threading
import time
import traceback
import types

from .rest import Rest
from . import pipeline_api as api
from . import pipeline_sql
from .pipeline_files import read_files_frame


class Reporter:
    def __init__(self, update_id):
        self.rest = Rest()
        self.path = "/_minilake/pipelines/updates/%s/report" % update_id

    def send(self, *events):
        for e in events:
            e.setdefault("ts", time.time())
        try:
            return self.rest.post(self.path, {"events": list(events)})
        except Exception as e:  # noqa: BLE001 (a lost report must not fail the pipeline)
            print("minilake: could not report pipeline progress: %s" % e, file=sys.stderr)
            return None


class SourceMap:
    """Local copies of workspace files back to the workspace paths users know them by."""

    def __init__(self, pairs):
        self.pairs = sorted(pairs, key=lambda p: -len(p[0]))

    def __call__(self, path):
        for local, ws in self.pairs:
            if path == local or path.startswith(local.rstrip("/") + "/"):
                return ws + path[len(local) :]
        return path


_FLOW = re.compile(r"^Flow '?(?P<flow>[^'\s]+?)'?\s+(?:is|has)\s+(?P<state>[A-Z_]+)\b")
_SKIPPED = re.compile(r"^Flow '?(?P<flow>[^'\s]+?)'?\s+SKIPPED\b")
_RUN = re.compile(r"^Run is (?P<state>[A-Z_]+)")


def parse_event(message):
    """A Spark Declarative Pipelines event message as a report item (flow progress or a log line)."""
    first, _, rest = message.partition("\n")
    m = _FLOW.match(first) or _SKIPPED.match(first)
    if m:
        state = m.groupdict().get("state") or "SKIPPED"
        item = {"type": "flow", "flow": m.group("flow"), "state": state, "message": first}
        if "more than" in first and state == "FAILED":
            item["final"] = True
        err = rest.strip()
        if err.startswith("Error:"):
            item["error"] = err[len("Error:") :].strip()
        return item
    m = _RUN.match(first)
    if m:
        return {"type": "run", "state": m.group("state"), "message": first}
    return {"type": "log", "message": message}


def _user_frames(tb, roots, source_map):
    frames = []
    for fs in traceback.extract_tb(tb):
        if any(fs.filename.startswith(r) for r in roots):
            frames.append({"file": source_map(fs.filename), "line": fs.lineno, "method": fs.name})
    return frames


def _error_item(e, roots, source_map, flow=None, loc=None):
    inner = getattr(e, "error", e)
    frames = _user_frames(inner.__traceback__, roots, source_map) if inner.__traceback__ else []
    if not frames and loc is not None and loc.line:
        frames = [{"file": source_map(loc.file), "line": loc.line, "method": flow or "<module>"}]
    msg = str(inner).strip() or type(inner).__name__
    cls = type(inner).__module__ + "." + type(inner).__name__ if type(inner).__module__ not in ("builtins",) else type(inner).__name__
    return {
        "type": "error",
        "flow": flow,
        "class": cls,
        "message": msg,
        "frames": list(reversed(frames)),
    }


class Runner:
    def __init__(self, task, spark_lazy, injected):
        self.task = task
        self.p = task["pipeline"]
        self.spark_lazy = spark_lazy
        self.injected = injected
        self.rep = Reporter(self.p["updateId"])
        self.map = SourceMap([(l["local"], l["workspace"]) for l in self.p.get("roots", [])])
        self.roots = [l["local"] for l in self.p.get("roots", [])]
        self.stopping = threading.Event()
        self.spark = None

    # ---- stop -----------------------------------------------------------------------------------------

    def on_term(self, _sig, _frame):
        self.stopping.set()
        s = self.spark
        if s is not None:
            # The run lives in the Spark Connect server: interrupt it and release the session there, or its
            # flows would keep writing after the process is gone.
            for fn in (lambda: s.interruptAll(), lambda: s.client.release_session()):
                try:
                    fn()
                except Exception:  # noqa: BLE001
                    pass
        os._exit(143)

    # ---- loading sources --------------------------------------------------------------------------------

    def _exec_python(self, path, text=None):
        from pyspark.pipelines.add_pipeline_analysis_context import add_pipeline_analysis_context
        from pyspark.pipelines.block_session_mutations import block_session_mutations

        name = os.path.splitext(os.path.basename(path))[0]
        mod = types.ModuleType(name)
        mod.__file__ = path
        mod.__dict__.update(self.injected)
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        code = compile(text, path, "exec")
        with add_pipeline_analysis_context(spark=self.spark, dataflow_graph_id=self.gid, flow_name=None):
            with block_session_mutations():
                exec(code, mod.__dict__)  # noqa: S102 (the user's pipeline source)

    def _notebook_python(self, path):
        """A Python notebook as one module: non-Python cells blanked, so line numbers stay the file's."""
        from .notebook import parse_source

        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.split("\n")
        out = [""] * len(lines)
        for cell in parse_source(text):
            if cell.magic is None:
                for i, ln in enumerate(cell.source.split("\n")):
                    if cell.line - 1 + i < len(out):
                        out[cell.line - 1 + i] = ln
            elif cell.magic in ("pip",):
                raise api.PipelineDefinitionError("%pip in pipeline notebooks: use the pipeline's environment.dependencies", api.Loc(path, cell.line))
            elif cell.magic not in ("md", "python"):
                raise api.PipelineDefinitionError(
                    "%%%s cells are not run in a Python pipeline notebook" % cell.magic, api.Loc(path, cell.line)
                )
        self._exec_python(path, "\n".join(out))

    def _sql(self, path, text=None):
        if text is None:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        if text.lstrip().startswith("-- Databricks notebook source"):
            text = re.sub(r"(?m)^-- Databricks notebook source\s*$", "", text, count=1)
            text = re.sub(r"(?m)^-- COMMAND -{10}\s*$", ";", text)
            text = re.sub(r"(?m)^-- MAGIC.*$", "", text)
        conf = dict(self.p.get("configuration") or {})
        try:
            items = pipeline_sql.parse(text, conf)
        except pipeline_sql.SqlError as e:
            raise api.PipelineDefinitionError(str(e), api.Loc(path, e.line)) from None
        file_conf = {}
        g = api.graph()
        counter = [0]

        def view_name():
            counter[0] += 1
            return "__minilake_files_%s_%d" % (re.sub(r"\W", "_", os.path.basename(path)), counter[0])

        for it in items:
            loc = api.Loc(path, it["line"])
            kind = it["kind"]
            if kind == "set":
                file_conf[it["key"]] = it["value"]
                continue
            if kind == "use":
                raise api.PipelineDefinitionError("USE in pipeline SQL: set the pipeline's catalog and schema", loc)
            if kind == "cdc":
                spec = {k: it.get(k) for k in (
                    "keys", "sequence_by", "ignore_null_updates", "apply_as_deletes", "apply_as_truncates",
                    "column_list", "except_column_list", "stored_as_scd_type", "track_history_column_list",
                    "track_history_except_column_list")}
                spec["source"] = it["source"]
                g.add_flow(api.FlowDef(it.get("flow") or it["target"], it["target"], None, loc, dict(file_conf), cdc=spec))
                continue
            query = it.get("query")
            if query is not None:
                try:
                    query, reads = pipeline_sql.extract_file_reads(query, view_name)
                except ValueError as e:
                    raise api.PipelineDefinitionError(str(e), loc) from None
                for r in reads:
                    g.add_dataset(api.Dataset(r["name"], "TEMPORARY_VIEW", loc))
                    g.add_flow(api.FlowDef(r["name"], r["name"], self._files_func(r), loc, dict(file_conf)))
            if kind == "flow":
                g.add_flow(api.FlowDef(it["name"], it["target"], self._sql_func(query), loc, dict(file_conf), once=it["once"]))
                continue
            d = api.Dataset(
                it["name"], it["dataset_kind"], loc, comment=it.get("comment"), properties=it.get("properties"),
                partition_cols=it.get("partition_cols"), cluster_by=it.get("cluster_by"), schema=it.get("schema"),
                format=it.get("format"), private=it.get("private"),
                expectations=it["expectations"] if query is None else [],
            )
            g.add_dataset(d)
            if query is not None:
                g.add_flow(api.FlowDef(it["name"], it["name"], self._sql_func(query), loc, dict(file_conf), it["expectations"]))

    def _sql_func(self, query):
        from pyspark.sql.connect.dataframe import DataFrame
        from pyspark.sql.connect.plan import SQL

        spark = self.spark
        return lambda: DataFrame(SQL(query), spark)

    def _files_func(self, r):
        spark = self.spark
        return lambda: read_files_frame(spark, r["path"], r["format"], r["options"], r["streaming"])

    def load_sources(self):
        for src in self.p["sources"]:
            path, lang, kind = src["local"], src["language"], src["kind"]
            if lang == "PYTHON":
                if kind == "NOTEBOOK":
                    self._notebook_python(path)
                else:
                    self._exec_python(path)
            elif lang == "SQL":
                self._sql(path)
            else:
                raise api.PipelineDefinitionError(
                    "%s sources are not supported in pipelines (Python and SQL are)" % lang.title(), api.Loc(path, None)
                )

    # ---- the run ------------------------------------------------------------------------------------------

    def setup_session(self):
        spark = self.spark_lazy._get()
        self.spark = spark
        conf = dict(self.p.get("configuration") or {})
        # Databricks' default format; Structured Streaming's toTable compares it with the table's provider.
        conf.setdefault("spark.sql.sources.default", "delta")
        # Auto Loader and read_files streams infer their schema as Databricks does.
        conf.setdefault("spark.sql.streaming.schemaInference", "true")
        for k, v in conf.items():
            try:
                spark.conf.set(k, v)
            except Exception as e:  # noqa: BLE001
                print("minilake: configuration %s not applied: %s" % (k, str(e).splitlines()[0]), file=sys.stderr)
        # Tables the run creates are created by the server as this update's datasets (see PipelineTables.java).
        for k in list((self.task.get("sparkConf") or {}).keys()):
            m = re.match(r"^spark\.sql\.catalog\.([^.]+)$", k)
            if m:
                spark.conf.set("spark.sql.catalog.%s.pipelineUpdate" % m.group(1), self.p["updateId"])
        # Jobs of this run carry the update's id, so the server cancels those that start after a stop
        # (PipelineJobs.java: Spark never cancels a batch flow's write).
        spark.addTag("minilake-pipeline-update-%s" % self.p["updateId"])
        api.install(spark)
        return spark

    def cycle(self):
        from pyspark.pipelines.graph_element_registry import graph_element_registration_context
        from pyspark.pipelines.spark_connect_pipeline import create_dataflow_graph, start_run
        from .pipeline_graph import Registrar

        p = self.p
        spark = self.spark
        self.gid = create_dataflow_graph(
            spark, default_catalog=p["catalog"], default_database=p["schema"], sql_conf=p.get("configuration") or {}
        )
        g = api.Graph()
        api.set_graph(g)
        for r in reversed(p.get("pythonPath") or []):
            if r not in sys.path:
                sys.path.insert(0, r)
        # While the flows are defined the pipeline's own tables are hidden from the session (see
        # PipelineTables.hiddenWhileDefining): names of its datasets must stay the graph's.
        spark.conf.set("spark.minilake.pipeline.defining", p["id"])
        try:
            with graph_element_registration_context(_Forwarder()):
                self.load_sources()
            registrar = Registrar(spark, self.gid, p["catalog"], p["schema"], p["updateId"])
            definitions = registrar.register(g)
            counted = {
                registrar.full_name(f.name).lower(): f
                for f in g.flows
                if getattr(f, "expectations_applied", None) and not f.streaming
            }
        finally:
            api.set_graph(None)
            spark.conf.unset("spark.minilake.pipeline.defining")
        for d in definitions["datasets"]:
            d["file"] = self.map(d["file"])
        for f in definitions["flows"]:
            f["file"] = self.map(f["file"])
        # Names in the pipeline's code mean the pipeline's catalog and schema, also outside the graph
        # (expectation counts run the flows' queries again after they wrote).
        try:
            spark.catalog.setCurrentCatalog(p["catalog"])
            spark.catalog.setCurrentDatabase(p["schema"])
        except Exception as e:  # noqa: BLE001 (a missing schema fails the run, with Spark's words, later)
            print("minilake: current schema not set: %s" % str(e).splitlines()[0], file=sys.stderr)
        # Synchronous: the server knows each dataset's kind before Spark creates its table.
        self.rep.send({"type": "graph", **definitions})
        # A continuous pipeline's later cycles run while the update stays RUNNING.
        first = not getattr(self, "_cycled", False)
        self._cycled = True
        if first:
            self.rep.send({"type": "phase", "state": "SETTING_UP_TABLES"})
        it = start_run(
            spark,
            self.gid,
            full_refresh=p.get("fullRefreshSelection") or None,
            full_refresh_all=bool(p.get("fullRefresh")),
            refresh=p.get("refreshSelection") or None,
            dry=bool(p.get("validateOnly")),
            storage=p["storage"],
        )
        running = not first
        for r in it:
            if "pipeline_event_result" not in r:
                continue
            ev = r["pipeline_event_result"].event
            item = parse_event(ev.message)
            item["ts"] = ev.timestamp.ToMicroseconds() / 1e6
            if item["type"] == "flow" and not running:
                running = True
                self.rep.send({"type": "phase", "state": "RUNNING"})
            f = counted.get(str(item.get("flow", "")).lower()) if item["type"] == "flow" else None
            if f is not None and item["state"] == "COMPLETED":
                try:
                    item["metrics"] = registrar.expectation_counts(f)
                except Exception as e:  # noqa: BLE001 (the counts are reported when they can be)
                    print("minilake: expectation counts of %s: %s" % (f.name, str(e).splitlines()[0]), file=sys.stderr)
            print(ev.message, flush=True)
            self.rep.send(item)

    def run(self):
        signal.signal(signal.SIGTERM, self.on_term)
        self.rep.send({"type": "phase", "state": "INITIALIZING"})
        self.setup_session()
        continuous = bool(self.p.get("continuous"))
        interval = float(self.p.get("triggerIntervalSeconds") or 5)
        while True:
            self.cycle()
            if not continuous or self.stopping.is_set():
                return
            # Continuous: the graph runs again after the trigger interval until the pipeline is stopped.
            self.stopping.wait(interval)


class _Forwarder:
    """pyspark's own registry interface, for code that calls pyspark.pipelines.api directly."""

    def register_output(self, output):
        from pyspark.pipelines.output import MaterializedView, StreamingTable, TemporaryView, Sink

        kind = (
            "MATERIALIZED_VIEW" if isinstance(output, MaterializedView)
            else "STREAMING_TABLE" if isinstance(output, StreamingTable)
            else "TEMPORARY_VIEW" if isinstance(output, TemporaryView)
            else "SINK" if isinstance(output, Sink) else None
        )
        loc = api.Loc(output.source_code_location.filename, output.source_code_location.line_number)
        kw = {"comment": output.comment}
        if kind in ("MATERIALIZED_VIEW", "STREAMING_TABLE"):
            kw.update(properties=output.table_properties, partition_cols=output.partition_cols,
                      cluster_by=output.cluster_by, schema=output.schema, format=output.format)
        if kind == "SINK":
            kw.update(format=output.format, options=output.options)
        api.graph().add_dataset(api.Dataset(output.name, kind, loc, **kw))

    def register_flow(self, flow):
        loc = api.Loc(flow.source_code_location.filename, flow.source_code_location.line_number)
        api.graph().add_flow(api.FlowDef(flow.name, flow.target, flow.func, loc, flow.spark_conf))

    def register_sql(self, sql_text, file_path):
        raise api.PipelineDefinitionError("register_sql is not used by MiniLake's runner")


def run_pipeline(task, spark_lazy, injected):
    """Runs the update; raises with a report already sent when it fails."""
    runner = Runner(task, spark_lazy, injected)
    try:
        runner.run()
    except api.PipelineDefinitionError as e:
        item = _error_item(e, runner.roots, runner.map, loc=e.loc)
        if e.loc is not None and e.loc.line:
            item["frames"] = [{"file": runner.map(e.loc.file), "line": e.loc.line, "method": "<module>"}] + item["frames"]
        runner.rep.send(item)
        raise
    except Exception as e:  # noqa: BLE001
        from .pipeline_graph import FlowCodeError

        if isinstance(e, FlowCodeError):
            item = _error_item(e, runner.roots, runner.map, flow=e.flow.name, loc=e.flow.loc)
            item["message"] = "Failed to resolve flow: '%s'. %s: %s" % (e.flow.name, type(e.error).__name__, e.error)
        else:
            item = _error_item(e, runner.roots, runner.map)
        runner.rep.send(item)
        raise
