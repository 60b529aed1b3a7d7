"""Splits a %sql cell into statements (spark.sql takes one at a time) with a small tokenizer that knows
Spark SQL's quotes and comments, and reports the named parameter markers (`:name`) each statement uses, so
widgets can be bound as parameters. The SQL text itself is never rewritten."""


def split_statements(sql):
    """Returns [(statement_text, [marker names])] for the non-empty statements of `sql`."""
    out = []
    buf = []
    markers = []
    i, n = 0, len(sql)

    def flush():
        text = "".join(buf).strip()
        if text:
            out.append((text, list(dict.fromkeys(markers))))
        buf.clear()
        markers.clear()

    while i < n:
        c = sql[i]
        if c in ("'", '"', "`"):
            j = i + 1
            while j < n:
                if sql[j] == "\\" and c != "`":
                    j += 2
                    continue
                if sql[j] == c:
                    if j + 1 < n and sql[j + 1] == c:  # a doubled quote is an escaped quote
                        j += 2
                        continue
                    break
                j += 1
            buf.append(sql[i : j + 1])
            i = j + 1
        elif c == "-" and sql.startswith("--", i):
            j = sql.find("\n", i)
            j = n if j < 0 else j
            buf.append(sql[i:j])
            i = j
        elif c == "/" and sql.startswith("/*", i):
            j = sql.find("*/", i + 2)
            j = n if j < 0 else j + 2
            buf.append(sql[i:j])
            i = j
        elif c == ";":
            flush()
            i += 1
        elif c == ":" and i + 1 < n and (sql[i + 1].isalpha() or sql[i + 1] == "_") and (i == 0 or sql[i - 1] != ":"):
            j = i + 1
            while j < n and (sql[j].isalnum() or sql[j] == "_"):
                j += 1
            markers.append(sql[i + 1 : j])
            buf.append(sql[i:j])
            i = j
        else:
            buf.append(c)
            i += 1
    flush()
    return out
