"""One execution context of /api/1.2 command execution: a Python REPL whose `spark` is a Spark Connect session
on its cluster's driver (SPARK_REMOTE), with `dbutils` and `display` as in a notebook. Requests come as JSON
lines on stdin ({"id", "language", "command"}); each answer is one JSON line on fd 3 with the result as
Databricks renders it: `text` (what the command printed, then the value of a final expression), `table`
(`display(df)`, or a SQL command's result: rows with a JSON schema), or `error` (`summary`, and the
traceback as `cause`). A command is interrupted by SIGINT (commands/cancel)."""
import ast
import io
import json
import os
import signal
import sys
import traceback

MAX_ROWS = 1000  # Databricks shows the first 1000 rows of a table result and says it truncated.

_ctl = os.fdopen(3, "w", buffering=1)
_busy = False


def _interrupt(signum, frame):
    # Only a running command is interrupted; an idle REPL ignores a late cancel.
    if _busy:
        raise KeyboardInterrupt()


signal.signal(signal.SIGINT, _interrupt)


def _watch_server():
    # The context ends with the MiniLake server that started it (as the supervisor does for tasks).
    import threading
    import time

    server = int(os.environ.pop("MINILAKE_SERVER_PID", "0") or 0)

    def watch():
        while True:
            time.sleep(1)
            try:
                os.kill(server, 0)
            except ProcessLookupError:
                os._exit(1)
            except PermissionError:
                pass

    if server:
        threading.Thread(target=watch, daemon=True).start()


_watch_server()


def _spark():
    from pyspark.sql import SparkSession

    return SparkSession.builder.remote(os.environ["SPARK_REMOTE"]).getOrCreate()


class _Display:
    """display(df) makes the command's result a table; anything else is printed."""

    def __init__(self):
        self.table = None

    def __call__(self, obj=None, *args, **kwargs):
        if obj is not None and hasattr(obj, "schema") and hasattr(obj, "limit"):
            self.table = obj
        elif obj is not None:
            print(obj)


def _schema_json(schema):
    return [
        {"name": f.name, "type": json.dumps(f.dataType.jsonValue()), "metadata": json.dumps(f.metadata or {})}
        for f in schema.fields
    ]


def _cell(v):
    # Values as JSON would carry them; what JSON cannot (dates, decimals, bytes) as text.
    if v is None or isinstance(v, (bool, int, float, str)):
        return v
    if isinstance(v, (list, tuple)):
        return [_cell(x) for x in v]
    if isinstance(v, dict):
        return {str(k): _cell(x) for k, x in v.items()}
    if hasattr(v, "asDict"):
        return {k: _cell(x) for k, x in v.asDict().items()}
    if isinstance(v, (bytes, bytearray)):
        import base64

        return base64.b64encode(bytes(v)).decode()
    return str(v)


def _table(df):
    rows = df.limit(MAX_ROWS + 1).collect()
    return {
        "resultType": "table",
        "data": [[_cell(x) for x in r] for r in rows[:MAX_ROWS]],
        "schema": _schema_json(df.schema),
        "truncated": len(rows) > MAX_ROWS,
        "isJsonSchema": True,
    }


def _error(e, source_name):
    tb = traceback.TracebackException.from_exception(e)
    # The REPL's own frames are not the user's: only frames of the command itself (and what it called).
    frames = [f for f in tb.stack if not f.filename.endswith("minilake_repl.py")]
    tb.stack = traceback.StackSummary.from_list(frames)
    summary = "".join(traceback.format_exception_only(type(e), e)).strip()
    return {"resultType": "error", "summary": summary, "cause": "".join(tb.format())}


class Repl:
    def __init__(self):
        from minilake_runtime.dbutils import DBUtils

        self.display = _Display()
        self.spark = _spark()
        self.ns = {
            "__name__": "__main__",
            "spark": self.spark,
            "display": self.display,
            "displayHTML": lambda html: print(html),
            "dbutils": DBUtils({}, lambda value: None, lambda values: None),
        }
        self.count = 0

    def python(self, command):
        self.count += 1
        name = f"<command-{self.count}>"
        tree = ast.parse(command, filename=name, mode="exec")
        last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        out = io.StringIO()
        old = sys.stdout, sys.stderr
        sys.stdout = sys.stderr = out
        self.display.table = None
        value = None
        try:
            exec(compile(tree, name, "exec"), self.ns)
            if last is not None:
                value = eval(compile(ast.Expression(last.value), name, "eval"), self.ns)
        finally:
            sys.stdout, sys.stderr = old
        if self.display.table is not None:
            return _table(self.display.table)
        text = out.getvalue()
        if value is not None:
            text += repr(value)
        return {"resultType": "text", "data": text}

    def sql(self, command):
        df = None
        for stmt in _statements(command):
            df = self.spark.sql(stmt)
        if df is None:
            return {"resultType": "text", "data": ""}
        return _table(df)


def _statements(text):
    """SQL statements split on `;` outside quotes and comments."""
    out, cur, i, n = [], [], 0, len(text)
    quote = None
    while i < n:
        c = text[i]
        if quote:
            cur.append(c)
            if c == "\\" and i + 1 < n:
                cur.append(text[i + 1])
                i += 1
            elif c == quote:
                quote = None
        elif c in "'\"`":
            quote = c
            cur.append(c)
        elif c == "-" and text.startswith("--", i):
            while i < n and text[i] != "\n":
                i += 1
            continue
        elif c == "/" and text.startswith("/*", i):
            end = text.find("*/", i + 2)
            i = n if end < 0 else end + 2
            continue
        elif c == ";":
            out.append("".join(cur))
            cur = []
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur))
    return [s.strip() for s in out if s.strip()]


def main():
    global _busy
    try:
        repl = Repl()
    except BaseException as e:  # noqa: BLE001 (a context that cannot start says why)
        _ctl.write(json.dumps({"ready": False, "error": f"{type(e).__name__}: {e}"}) + "\n")
        return 1
    _ctl.write(json.dumps({"ready": True}) + "\n")
    for line in sys.stdin:
        req = json.loads(line)
        if req.get("token"):
            # The context's creator came back with a newer bearer (a refreshed OAuth token): dbutils and any
            # client made from here on call the server with it; the Spark session already has it.
            os.environ["DATABRICKS_TOKEN"] = req["token"]
        _busy = True
        try:
            if req.get("language") == "sql":
                res = repl.sql(req["command"])
            else:
                res = repl.python(req["command"])
            status = "Finished"
        except KeyboardInterrupt:
            try:
                repl.spark.interruptAll()
            except Exception:  # noqa: BLE001
                pass
            res, status = {"resultType": "error", "summary": "Command cancelled", "cause": ""}, "Cancelled"
        except BaseException as e:  # noqa: BLE001 (SystemExit in a command is its error, not the REPL's end)
            res, status = _error(e, "command"), "Error"
        finally:
            _busy = False
        _ctl.write(json.dumps({"id": req["id"], "status": status, "results": res}, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
