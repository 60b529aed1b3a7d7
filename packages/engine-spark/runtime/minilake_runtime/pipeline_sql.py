"""A pipeline's SQL source, statement by statement, into dataset and flow definitions the runner registers
the way it registers Python ones (so expectations, auto CDC and the batch/stream choice work alike for both).

Databricks' pipeline SQL is wider than what Spark 4.1's parser knows: `CREATE OR REFRESH [STREAMING] TABLE`,
`CREATE LIVE TABLE`/`VIEW`, `CONSTRAINT c EXPECT (e) ON VIOLATION DROP ROW | FAIL UPDATE` in the column
list, `LIVE.x`, `APPLY CHANGES INTO` / `AUTO CDC INTO`, `read_files(...)` and `cloud_files(...)`, `${key}`
from the pipeline's configuration. Only the head of each statement is parsed here (names, columns,
constraints, properties); the query itself goes to Spark as written, after those few rewrites."""
import re

from .sqlsplit import split_statements


class SqlError(Exception):
    def __init__(self, message, line):
        super().__init__(message)
        self.line = line


def _mask(text):
    """`text` with quoted strings, backquoted names and comments blanked (same length), for keyword search."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c in ("'", '"', "`"):
            j = i + 1
            while j < n:
                if text[j] == "\\" and c != "`":
                    j += 2
                    continue
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        elif text.startswith("--", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if text[k] != "\n":
                    out[k] = " "
            i = j
        else:
            i += 1
    return "".join(out)


def _close_paren(masked, start):
    """Index of the parenthesis closing the one at `start`."""
    depth = 0
    for i in range(start, len(masked)):
        if masked[i] == "(":
            depth += 1
        elif masked[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


def _split_top(text, sep=","):
    masked = _mask(text)
    parts, depth, last = [], 0, 0
    for i, c in enumerate(masked):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == sep and depth == 0:
            parts.append(text[last:i])
            last = i + 1
    parts.append(text[last:])
    return [p.strip() for p in parts if p.strip()]


def _unquote(s):
    s = s.strip()
    if len(s) >= 2 and s[0] == s[-1] and s[0] in ("'", '"'):
        return s[1:-1].replace(s[0] * 2, s[0]).replace("\\" + s[0], s[0])
    return s


def _name(s):
    return ".".join(p.strip().strip("`") for p in s.strip().split("."))


_LIVE = re.compile(r"(?i)(?<![\w.`])live\.")


def strip_live(query):
    """`LIVE.x` was how classic pipelines read their own datasets: the name without it means the same now."""
    masked = _mask(query)
    out, last = [], 0
    for m in _LIVE.finditer(masked):
        out.append(query[last : m.start()])
        last = m.end()
    out.append(query[last:])
    return "".join(out)


_VAR = re.compile(r"\$\{([^}]+)\}")


def substitute(text, conf):
    """`${key}` from the pipeline's configuration, as Databricks substitutes it in SQL sources."""
    return _VAR.sub(lambda m: conf.get(m.group(1).strip(), m.group(0)), text)


_HEAD = re.compile(
    r"""(?isx)^\s*create\s+
    (?P<orrefresh>or\s+refresh\s+|or\s+replace\s+)?
    (?P<private>private\s+)?
    (?P<temporary>temporary\s+)?
    (?P<streaming>streaming\s+)?
    (?P<live>live\s+)?
    (?P<what>materialized\s+view|table|view|flow)\s+
    (?P<ifnot>if\s+not\s+exists\s+)?
    (?P<name>(?:`[^`]+`|[\w-]+)(?:\s*\.\s*(?:`[^`]+`|[\w-]+)){0,2})""",
)

_CONSTRAINT = re.compile(
    r"""(?isx)^constraint\s+(?P<name>`[^`]+`|\w+)\s+expect\s*\((?P<expr>.*)\)\s*
    (?:on\s+violation\s+(?P<action>drop\s+row|fail\s+update))?\s*$""",
)


def _constraint(entry):
    m = _CONSTRAINT.match(entry)
    if not m:
        return None
    action = (m.group("action") or "").lower().split()
    return {
        "name": m.group("name").strip("`"),
        "condition": m.group("expr").strip(),
        "action": "drop" if action[:1] == ["drop"] else "fail" if action[:1] == ["fail"] else "warn",
    }


def _clauses(head, masked_head):
    """COMMENT, TBLPROPERTIES, PARTITIONED BY, CLUSTER BY, USING of a dataset statement's head."""
    out = {}
    m = re.search(r"(?i)\bcomment\s+('(?:[^'\\]|\\.|'')*'|\"(?:[^\"\\]|\\.)*\")", head)
    if m:
        out["comment"] = _unquote(m.group(1))
    for key, word in (("properties", "tblproperties"), ("partition_cols", "partitioned\\s+by"), ("cluster_by", "cluster\\s+by")):
        m = re.search(r"(?i)\b" + word + r"\s*\(", masked_head)
        if m:
            end = _close_paren(masked_head, m.end() - 1)
            inner = head[m.end() : end]
            if key == "properties":
                props = {}
                for kv in _split_top(inner):
                    k, _, v = kv.partition("=")
                    props[_unquote(k)] = _unquote(v)
                out[key] = props
            else:
                out[key] = [_name(c) for c in _split_top(inner)]
    m = re.search(r"(?i)\busing\s+(\w+)", masked_head)
    if m:
        out["format"] = m.group(1).lower()
    return out


_AS = re.compile(r"(?i)\bas\b")


def _split_as(text):
    """(head, query) at the first top-level AS after the name; query None when there is none."""
    masked = _mask(text)
    depth = 0
    i = 0
    while i < len(masked):
        c = masked[i]
        if c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif depth == 0:
            m = _AS.match(masked, i)
            if m and (i == 0 or not (masked[i - 1].isalnum() or masked[i - 1] == "_")):
                return text[:i], text[m.end() :].strip()
        i += 1
    return text, None


_READ_FILES = re.compile(r"(?i)\b(stream\s*\(?\s*)?(read_files|cloud_files)\s*\(")


def extract_file_reads(query, make_name):
    """Replaces each `read_files(...)` / `cloud_files(...)` call with the name of a temporary view the runner
    defines over Spark's file source (batch) or file stream source (after STREAM, like Auto Loader)."""
    reads = []
    while True:
        masked = _mask(query)
        m = _READ_FILES.search(masked)
        if not m:
            return query, reads
        open_at = m.end() - 1
        close_at = _close_paren(masked, open_at)
        if close_at < 0:
            raise ValueError("unbalanced parentheses in %s(...)" % m.group(2))
        args = _split_top(query[open_at + 1 : close_at])
        streaming = bool(m.group(1))
        fn = m.group(2).lower()
        path, options, fmt = None, {}, None
        positional = []
        for a in args:
            if "=>" in a:
                k, _, v = a.partition("=>")
                options[k.strip().strip("`")] = _unquote(v)
            else:
                positional.append(a)
        if positional:
            path = _unquote(positional[0])
        if fn == "cloud_files":
            # cloud_files(path, format, map('k', 'v', ...)): the classic Auto Loader function
            if len(positional) > 1:
                fmt = _unquote(positional[1])
            if len(positional) > 2:
                mm = re.match(r"(?is)^map\s*\((.*)\)$", positional[2].strip())
                if mm:
                    kv = [_unquote(x) for x in _split_top(mm.group(1))]
                    options.update(dict(zip(kv[0::2], kv[1::2])))
            streaming = True
        fmt = fmt or options.pop("format", None)
        if path is None:
            raise ValueError("%s needs a path" % fn)
        name = make_name()
        reads.append({"name": name, "path": path, "format": fmt, "options": options, "streaming": streaming})
        # STREAM(read_files(...)) / STREAM read_files(...): the view is a stream already, read it as one.
        replacement = ("STREAM(%s)" % name) if streaming else name
        end = close_at + 1
        if m.group(1) and m.group(1).rstrip().endswith("("):
            # STREAM( read_files(...) ): drop the closing parenthesis of STREAM too
            rest_mask = masked[end:]
            k = len(rest_mask) - len(rest_mask.lstrip())
            if rest_mask[k : k + 1] == ")":
                end += k + 1
        query = query[: m.start()] + replacement + query[end:]


_CDC = re.compile(
    r"""(?isx)^\s*(?:create\s+flow\s+(?P<flow>[\w`.]+)\s+as\s+)?
    (?:apply\s+changes|auto\s+cdc)\s+into\s+(?P<target>[\w`.]+)\s+
    from\s+(?P<source>.+?)\s+keys\s*\((?P<keys>[^)]*)\)(?P<rest>.*)$""",
)


def _cdc(text):
    m = _CDC.match(text)
    if not m:
        return None
    src = m.group("source").strip()
    sm = re.match(r"(?is)^stream\s*\(\s*(.+?)\s*\)$|^stream\s+(.+)$", src)
    if sm:
        src = sm.group(1) or sm.group(2)
    rest = m.group("rest")
    out = {
        "flow": _name(m.group("flow")) if m.group("flow") else None,
        "target": _name(strip_live(m.group("target"))),
        "source": _name(strip_live(src)),
        "keys": [_name(k) for k in _split_top(m.group("keys"))],
        "ignore_null_updates": bool(re.search(r"(?i)\bignore\s+null\s+updates\b", rest)),
    }
    clause_words = r"(?=\s+(?:apply\s+as|sequence\s+by|columns|stored\s+as|track\s+history|ignore\s+null)\b|\s*$)"
    for key, word in (("apply_as_deletes", r"apply\s+as\s+delete\s+when"), ("apply_as_truncates", r"apply\s+as\s+truncate\s+when")):
        mm = re.search(r"(?is)\b" + word + r"\s+(.+?)" + clause_words, rest)
        if mm:
            out[key] = mm.group(1).strip()
    mm = re.search(r"(?is)\bsequence\s+by\s+(.+?)" + clause_words, rest)
    if not mm:
        raise ValueError("APPLY CHANGES / AUTO CDC needs SEQUENCE BY")
    out["sequence_by"] = mm.group(1).strip()
    mm = re.search(r"(?is)\bcolumns\s+\*\s*except\s*\(([^)]*)\)", rest)
    if mm:
        out["except_column_list"] = [_name(c) for c in _split_top(mm.group(1))]
    else:
        mm = re.search(r"(?is)\bcolumns\s+(.+?)" + clause_words, rest)
        if mm and mm.group(1).strip() != "*":
            out["column_list"] = [_name(c) for c in _split_top(mm.group(1))]
    mm = re.search(r"(?is)\bstored\s+as\s+scd\s+type\s+([12])\b", rest)
    out["stored_as_scd_type"] = int(mm.group(1)) if mm else 1
    mm = re.search(r"(?is)\btrack\s+history\s+on\s+\*\s*except\s*\(([^)]*)\)", rest)
    if mm:
        out["track_history_except_column_list"] = [_name(c) for c in _split_top(mm.group(1))]
    else:
        mm = re.search(r"(?is)\btrack\s+history\s+on\s+(.+?)" + clause_words, rest)
        if mm and mm.group(1).strip() != "*":
            out["track_history_column_list"] = [_name(c) for c in _split_top(mm.group(1))]
    return out


def parse(text, conf):
    """The statements of one SQL source: a list of dicts, each with `line` (1-based, where it starts)."""
    out = []
    pos = 0
    for stmt, _markers in split_statements(text):
        at = text.find(stmt, pos)
        pos = at + len(stmt) if at >= 0 else pos
        # Leading comments are not the statement: it starts (and its line is) where the code does.
        masked = _mask(stmt)
        lead = len(masked) - len(masked.lstrip())
        if not masked.strip():
            continue
        stmt = stmt[lead:]
        at = at + lead if at >= 0 else at
        line = text.count("\n", 0, at) + 1 if at >= 0 else 1
        try:
            item = parse_statement(substitute(stmt, conf))
        except SqlError:
            raise
        except ValueError as e:
            raise SqlError(str(e), line) from None
        item["line"] = line
        item["text"] = stmt
        out.append(item)
    return out


def parse_statement(stmt):
    s = stmt.strip().rstrip(";").strip()
    low = s.lower()
    if re.match(r"(?i)^set\b", low):
        body = s[3:].strip()
        k, eq, v = body.partition("=")
        if not eq:
            raise ValueError("SET needs key = value: %s" % s[:80])
        return {"kind": "set", "key": k.strip(), "value": _unquote(v)}
    if re.match(r"(?i)^use\b", low):
        return {"kind": "use", "text": s}
    cdc = _cdc(s)
    if cdc:
        return dict(kind="cdc", **cdc)
    m = _HEAD.match(s)
    if not m:
        raise ValueError(
            "Not a pipeline statement (CREATE MATERIALIZED VIEW / STREAMING TABLE / VIEW / FLOW, "
            "APPLY CHANGES INTO, SET): %s" % s[:120]
        )
    what = re.sub(r"\s+", " ", m.group("what").lower())
    name = _name(m.group("name"))
    tail = s[m.end() :]
    if what == "flow":
        _head, query = _split_as(tail)
        mm = re.match(r"(?is)^insert\s+into\s+(once\s+)?([\w`.]+)\s+(?:by\s+name\s+)?(.*)$", query or "")
        if not mm:
            raise ValueError("CREATE FLOW %s must be AS INSERT INTO <target> BY NAME <query>" % name)
        return {
            "kind": "flow",
            "name": name,
            "target": _name(strip_live(mm.group(2))),
            "once": bool(mm.group(1)),
            "query": strip_live(mm.group(3)),
        }
    head, query = _split_as(tail)
    masked_head = _mask(head)
    columns, expectations = [], []
    hm = re.match(r"\s*\(", masked_head)
    if hm:
        end = _close_paren(masked_head, hm.end() - 1)
        inner = head[hm.end() : end]
        for entry in _split_top(inner):
            c = _constraint(entry)
            if c:
                expectations.append(c)
            elif re.match(r"(?i)^constraint\b", entry):
                # a table constraint (PRIMARY KEY, FOREIGN KEY, CHECK) Spark's DDL does not take here
                continue
            else:
                columns.append(entry)
        head = head[end + 1 :]
        masked_head = masked_head[end + 1 :]
    clauses = _clauses(head, masked_head)
    if what == "view":
        # CREATE [TEMPORARY] [LIVE] VIEW: visible to the pipeline's flows; VIEW (persisted) differs below.
        kind = "TEMPORARY_VIEW" if (m.group("temporary") or m.group("live")) else "VIEW"
    elif what == "materialized view":
        kind = "MATERIALIZED_VIEW"
    elif m.group("streaming"):
        kind = "STREAMING_TABLE"
    else:
        kind = "TABLE"  # CREATE [LIVE] TABLE ... AS: a materialized view or streaming table by its query
    if query is None and kind != "STREAMING_TABLE":
        raise ValueError("CREATE %s %s needs AS <query>" % (what.upper(), name))
    return {
        "kind": "dataset",
        "dataset_kind": kind,
        "name": name,
        "private": bool(m.group("private") or m.group("temporary")),
        "schema": ", ".join(columns) if columns else None,
        "expectations": expectations,
        "query": strip_live(query) if query is not None else None,
        **clauses,
    }
