"""The task process: reads the task MiniLake wrote (MINILAKE_TASK_FILE), gives the user's code `spark`,
`dbutils` and `display`, runs the script, notebook or wheel entry point, and writes what the engine reports
(notebook exit value, task values, the error and its traceback) to the result file. The exit code is the
user's: 0, their sys.exit code, or 1 for an uncaught exception."""
import json
import os
import runpy
import sys
import traceback
import types

from .dbutils import DBUtils, NotebookExit
from .notebook import NotebookRunner

RUNTIME_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class _Redactor:
    """Replaces secret values fetched through dbutils.secrets in everything printed, as Databricks does."""

    def __init__(self):
        self.values = []

    def add(self, value):
        if value and value not in self.values:
            self.values.append(value)
            self.values.sort(key=len, reverse=True)

    def apply(self, s):
        for v in self.values:
            s = s.replace(v, "[REDACTED]")
        return s


class _RedactingStream:
    def __init__(self, stream, redactor):
        self._stream = stream
        self._redactor = redactor

    def write(self, s):
        return self._stream.write(self._redactor.apply(s) if isinstance(s, str) else s)

    def __getattr__(self, name):
        return getattr(self._stream, name)


class LazySpark:
    """`spark` is created on first use: a script that never touches it does not pay for a SparkContext (or
    a Spark Connect session), and one that builds its own with SparkSession.builder gets the same session."""

    def __init__(self, task):
        object.__setattr__(self, "_task", task)
        object.__setattr__(self, "_session", None)

    def _get(self):
        s = object.__getattribute__(self, "_session")
        if s is None:
            from pyspark.sql import SparkSession

            s = SparkSession.builder.getOrCreate()
            task = object.__getattribute__(self, "_task")
            if task.get("serverless"):
                # Spark Connect: the server's static conf is fixed, session conf is set per task.
                for k, v in (task.get("sparkConf") or {}).items():
                    try:
                        s.conf.set(k, v)
                    except Exception as e:  # noqa: BLE001
                        print("minilake: spark conf %s not applied on Spark Connect: %s" % (k, str(e).splitlines()[0]), file=sys.stderr)
            object.__setattr__(self, "_session", s)
        return s

    def created(self):
        return object.__getattribute__(self, "_session")

    def __getattr__(self, name):
        return getattr(self._get(), name)

    def __setattr__(self, name, value):
        setattr(self._get(), name, value)

    def __repr__(self):
        return repr(self._get())


def _display_factory():
    def display(obj=None, *args, **kwargs):
        try:
            from pyspark.sql import DataFrame as ClassicDF
        except Exception:  # noqa: BLE001
            ClassicDF = ()  # noqa: N806
        try:
            from pyspark.sql.connect.dataframe import DataFrame as ConnectDF
        except Exception:  # noqa: BLE001
            ConnectDF = ()  # noqa: N806
        if isinstance(obj, (ClassicDF, ConnectDF)):
            obj.show(20, truncate=False)
        elif hasattr(obj, "to_string"):
            print(obj.to_string())
        else:
            print(obj)

    return display


def _is_ours(filename):
    return filename.startswith(RUNTIME_DIR) or "runpy" in filename


def _error_of(e):
    first = next((ln for ln in str(e).splitlines() if ln.strip()), "")
    return "%s: %s" % (type(e).__name__, first) if first else type(e).__name__


def _trace_of(e):
    tb = e.__traceback__
    while tb is not None and _is_ours(tb.tb_frame.f_code.co_filename):
        tb = tb.tb_next
    return "".join(traceback.format_exception(type(e), e, tb or e.__traceback__))


def _canonical(name):
    return name.lower().replace("-", "_").replace(".", "_")


def _run_wheel(task):
    w = task["wheel"]
    pkg, ep_name = w["packageName"], w["entryPoint"]
    named = w.get("namedParameters")
    sys.argv = [pkg] + (["--%s=%s" % kv for kv in named.items()] if named else list(task.get("args") or []))
    from importlib.metadata import distributions

    # Databricks: the named entry point of the package's metadata, else the function $packageName.$entryPoint.
    # Walked per distribution: entry_points() with no argument is a dict of groups before Python 3.12.
    mine, scripts = [], []
    for dist in distributions():
        for e in dist.entry_points:
            if e.name != ep_name:
                continue
            if _canonical(dist.metadata["Name"] or "") == _canonical(pkg):
                mine.append(e)
            elif e.group == "console_scripts":
                scripts.append(e)
    chosen = (mine or scripts or [None])[0]
    if chosen is not None:
        fn = chosen.load()
    else:
        import importlib

        fn = getattr(importlib.import_module(pkg), ep_name)
    fn()


class DbtFailed(Exception):
    pass


def _run_dbt(task):
    """dbt_task: each command in order in the project folder, with the venv's dbt (dbt-databricks installed
    as the task's library); the first that fails fails the task, as on Databricks."""
    import subprocess

    d = task["dbt"]
    exe = os.path.join(os.path.dirname(sys.executable), "dbt")
    if not os.path.exists(exe):
        raise DbtFailed("dbt is not installed in the task's environment: add dbt-databricks to its libraries")
    env = dict(os.environ, DBT_PROFILES_DIR=d["profilesDir"], DBT_SEND_ANONYMOUS_USAGE_STATS="false",
               DO_NOT_TRACK="1")
    for words in d["commands"]:
        print("+ " + " ".join(words), flush=True)
        sys.stdout.flush()
        # The script through this Python: the venv was built elsewhere and moved, so its shebang line is stale.
        r = subprocess.run([sys.executable, exe] + list(words[1:]), cwd=d["projectDir"], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(r.stdout)
        sys.stdout.flush()
        if r.returncode != 0:
            raise DbtFailed("%s failed with exit code %d" % (" ".join(words), r.returncode))


def main():
    with open(os.environ["MINILAKE_TASK_FILE"], encoding="utf-8") as f:
        task = json.load(f)
    result_file = task["resultFile"]
    state = {"notebookResult": None, "taskValues": {}, "error": None, "errorTrace": None}

    def save():
        tmp = result_file + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump(state, f)
        os.replace(tmp, result_file)

    redactor = _Redactor()
    sys.stdout = _RedactingStream(sys.stdout, redactor)
    sys.stderr = _RedactingStream(sys.stderr, redactor)

    def on_task_values(values):
        state["taskValues"] = values
        save()

    dbutils = DBUtils(task, redactor.add, on_task_values)
    spark = LazySpark(task)
    display = _display_factory()
    shim = types.ModuleType("pyspark.dbutils")

    class _DBUtilsShim:
        """`from pyspark.dbutils import DBUtils; DBUtils(spark)`, as on a Databricks cluster."""

        def __new__(cls, *args, **kwargs):
            return dbutils

    shim.DBUtils = _DBUtilsShim
    sys.modules["pyspark.dbutils"] = shim
    # `from databricks.sdk.runtime import spark, dbutils` (what the CLI's templates' wheels do) asks DBR's
    # `dbruntime` for the notebook namespace; this one answers with the task's.
    runtime = types.ModuleType("dbruntime")

    class UserNamespaceInitializer:
        @classmethod
        def getOrCreate(cls):
            return cls()

        def get_namespace_globals(self):
            return injected

    runtime.UserNamespaceInitializer = UserNamespaceInitializer
    sys.modules["dbruntime"] = runtime
    injected = {
        "spark": spark,
        "dbutils": dbutils,
        "display": display,
        "displayHTML": print,
        "getArgument": dbutils.widgets.getArgument,
    }
    kind, file = task["kind"], task["file"]
    code = 0
    try:
        if kind == "python":
            sys.argv = [file] + list(task.get("args") or [])
            sys.path.insert(0, os.path.dirname(file))
            runpy.run_path(file, init_globals=injected, run_name="__main__")
        elif kind == "notebook":
            sys.argv = [file] + list(task.get("args") or [])
            sys.path.insert(0, os.path.dirname(file))
            # A notebook runs in its own folder, as on Databricks (relative imports and paths from there).
            os.chdir(os.path.dirname(file))
            mod = types.ModuleType("__main__")
            mod.__dict__.update(injected)
            mod.__file__ = file
            sys.modules["__main__"] = mod
            NotebookRunner(mod.__dict__, spark, dbutils, display, task["workDir"]).run_file(file)
        elif kind == "wheel":
            sys.modules["__main__"].__dict__.update(injected)
            _run_wheel(task)
        elif kind == "dbt":
            _run_dbt(task)
        elif kind == "pipeline":
            from .pipeline import run_pipeline

            run_pipeline(task, spark, injected)
        else:
            raise ValueError("Unknown task kind %r" % kind)
    except NotebookExit as e:
        state["notebookResult"] = e.value
    except SystemExit as e:
        if e.code is None or e.code == 0:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except BaseException as e:  # noqa: BLE001 (the task's failure is reported, never re-raised)
        state["error"] = _error_of(e)
        state["errorTrace"] = _trace_of(e)
        sys.stderr.write(state["errorTrace"])
        code = 1
    state["taskValues"] = dbutils.jobs.taskValues.all()
    save()
    s = spark.created()
    if s is not None and task.get("serverless"):
        try:
            s.stop()  # releases the session on the shared Spark Connect server
        except Exception:  # noqa: BLE001
            pass
    sys.stdout.flush()
    sys.stderr.flush()
    sys.exit(code)
