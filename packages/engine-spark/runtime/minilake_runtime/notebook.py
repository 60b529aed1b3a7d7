"""Notebooks: Databricks source files (`# Databricks notebook source`, cells split on `# COMMAND ----------`,
magic cells as `# MAGIC %sql` lines) and .ipynb files, run cell by cell in one namespace, as a notebook
attached to a cluster runs them."""
import json
import linecache
import os
import shlex
import subprocess
import sys

from .sqlsplit import split_statements

SEPARATOR = "# COMMAND ----------"
HEADER = "# Databricks notebook source"


class Cell:
    def __init__(self, source, line, magic=None):
        self.source = source  # python text, or the magic's body
        self.line = line  # first line of the cell in the file (1-based), for tracebacks
        self.magic = magic  # 'sql', 'md', 'pip', 'sh', 'run', 'fs', 'python', 'scala', 'r', ... or None


def _magic_of(text):
    """('sql', body) for a cell that starts with %sql, else (None, text)."""
    stripped = text.lstrip("\n")
    if stripped.startswith("%"):
        first, _, rest = stripped.partition("\n")
        word = first[1:].split(None, 1)
        name = word[0] if word else ""
        inline = word[1] if len(word) > 1 else ""
        body = (inline + "\n" + rest) if inline else rest
        return name, body
    return None, text


def parse_source(text):
    lines = text.splitlines()
    if lines and lines[0].strip() == HEADER:
        lines[0] = ""
    cells, cur, start = [], [], 1
    for idx, line in enumerate(lines + [SEPARATOR], start=1):
        if line.rstrip() == SEPARATOR:
            body = list(cur)
            # "# DBTITLE 1,Title" names a cell; it is not code.
            first = next((i for i, ln in enumerate(body) if ln.strip()), None)
            if first is not None and body[first].startswith("# DBTITLE"):
                body[first] = ""
            nonblank = [ln for ln in body if ln.strip()]
            if nonblank and all(ln.startswith("# MAGIC") for ln in nonblank):
                src = "\n".join(ln[len("# MAGIC ") :] if ln.startswith("# MAGIC ") else ln[len("# MAGIC") :] for ln in body)
                magic, inner = _magic_of(src)
                cells.append(Cell(inner, start, magic or "md"))
            elif nonblank:
                cells.append(Cell("\n".join(body), start))
            cur, start = [], idx + 1
        else:
            cur.append(line)
    return cells


def parse_ipynb(text):
    nb = json.loads(text)
    cells = []
    for i, c in enumerate(nb.get("cells", [])):
        if c.get("cell_type") != "code":
            continue
        src = c.get("source", "")
        src = "".join(src) if isinstance(src, list) else src
        magic, body = _magic_of(src)
        cells.append(Cell(body if magic else src, i + 1, magic))
    return cells


def load(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    if path.endswith(".ipynb"):
        return parse_ipynb(text), "ipynb"
    return parse_source(text), "source"


class NotebookRunner:
    def __init__(self, namespace, spark, dbutils, display, workdir):
        self.ns = namespace
        self.spark = spark
        self.dbutils = dbutils
        self.display = display
        self.workdir = workdir

    def run_file(self, path):
        cells, kind = load(path)
        for n, cell in enumerate(cells, start=1):
            self.run_cell(path, kind, n, cell)

    def run_cell(self, path, kind, n, cell):
        m = cell.magic
        if m is None or m == "python":
            self._python(path, kind, n, cell)
        elif m == "sql":
            self._sql(cell.source)
        elif m in ("md", "md-sandbox"):
            return
        elif m == "pip":
            self._pip(cell.source)
        elif m == "sh":
            self._sh(cell.source)
        elif m == "fs":
            self._fs(cell.source)
        elif m == "run":
            self._run(path, cell.source)
        else:
            raise NotImplementedError("%%%s cells are not supported by MiniLake (notebook %s, cell %d)" % (m, path, n))

    def _python(self, path, kind, n, cell):
        if kind == "source":
            # Padding keeps line numbers in tracebacks equal to the file's own.
            filename, code = path, "\n" * (cell.line - 1) + cell.source
        else:
            filename = "%s [cell %d]" % (path, n)
            code = cell.source
            linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
        exec(compile(code, filename, "exec"), self.ns)  # noqa: S102 (running the user's notebook is the point)

    def _sql(self, text):
        widgets = self.dbutils.widgets.getAll()
        last = None
        for stmt, markers in split_statements(text):
            args = {k: widgets[k] for k in markers if k in widgets}
            last = self.spark.sql(stmt, args=args) if args else self.spark.sql(stmt)
        if last is not None:
            self.ns["_sqldf"] = last
            if last.columns:
                self.display(last)

    def _pip(self, text):
        args = shlex.split(text.replace("\\\n", " "))
        if not args:
            return
        if args[0] != "install":
            print("%%pip %s: only `%%pip install` is supported; skipped" % args[0], file=sys.stderr)
            return
        # Notebook-scoped libraries: installed for this run only, ahead of everything else on sys.path.
        target = os.path.join(self.workdir, "notebook-libs")
        cmd = [sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--target", target] + args[1:]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            raise RuntimeError("%%pip install failed with exit code %d" % r.returncode)
        if target not in sys.path:
            sys.path.insert(0, target)
        import importlib

        importlib.invalidate_caches()

    def _sh(self, text):
        r = subprocess.run(text, shell=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        sys.stdout.write(r.stdout)
        if r.returncode != 0:
            raise RuntimeError("%%sh cell exited with code %d" % r.returncode)

    def _fs(self, text):
        args = shlex.split(text)
        if not args:
            return
        result = getattr(self.dbutils.fs, args[0])(*args[1:])
        if isinstance(result, list):
            for f in result:
                print(f)
        elif result is not None and not isinstance(result, bool):
            print(result)

    def _run(self, path, text):
        args = shlex.split(text)
        if not args:
            raise ValueError("%run needs a notebook path")
        target = args[0]
        base = target if os.path.isabs(target) else os.path.join(os.path.dirname(path), target)
        for cand in (base, base + ".py", base + ".ipynb"):
            if os.path.isfile(cand):
                self.run_file(cand)
                return
        raise FileNotFoundError("%%run %s: no such notebook next to %s" % (target, path))
