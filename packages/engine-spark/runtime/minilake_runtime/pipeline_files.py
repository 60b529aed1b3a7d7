"""Auto Loader (`cloudFiles`) and `read_files` on Spark's own file sources. Files are read where the user
named them: `/Volumes/...` paths reach the volume's folder through MiniLake's file system on the Spark
Connect server. A stream over a folder picks up each new file once (its checkpoint under the pipeline's
storage remembers which), as Auto Loader does; options with no local meaning are refused by name."""

# cloudFiles options that map onto the file source's, and those that only tune Databricks' own service.
_MAPPED = {
    "cloudFiles.maxFilesPerTrigger": "maxFilesPerTrigger",
    "cloudFiles.maxBytesPerTrigger": "maxBytesPerTrigger",
    "cloudFiles.pathGlobFilter": "pathGlobFilter",
    "cloudFiles.recursiveFileLookup": "recursiveFileLookup",
}
_IGNORED = {
    "cloudFiles.schemaLocation",  # schemas are inferred per update (spark.sql.streaming.schemaInference)
    "cloudFiles.inferColumnTypes",
    "cloudFiles.schemaHints",
    "cloudFiles.schemaEvolutionMode",
    "cloudFiles.includeExistingFiles",
    "cloudFiles.validateOptions",
    "cloudFiles.partitionColumns",
    "cloudFiles.fetchParallelism",
    "cloudFiles.useIncrementalListing",
}
_REFUSED = {
    "cloudFiles.useNotifications": "file notification mode needs a cloud queue",
    "cloudFiles.useManagedFileEvents": "managed file events need a cloud queue",
    "cloudFiles.backfillInterval": "backfills are for notification mode",
    "cloudFiles.allowOverwrites": "the file source reads each file once",
}

_EXTENSIONS = {
    ".csv": "csv", ".json": "json", ".jsonl": "json", ".parquet": "parquet", ".txt": "text", ".avro": "avro",
    ".orc": "orc", ".xml": "xml",
}


def file_source_options(options, where):
    """(format, options) for Spark's file source from Auto Loader's options."""
    fmt = None
    out = {}
    for k, v in options.items():
        lk = k.lower()
        if lk == "cloudfiles.format":
            fmt = str(v).lower()
        elif k in _REFUSED or lk in {x.lower() for x in _REFUSED}:
            if str(v).lower() not in ("false", "0"):
                key = next(x for x in _REFUSED if x.lower() == lk)
                raise ValueError("%s: %s is not supported here (%s)" % (where, key, _REFUSED[key]))
        elif lk in {x.lower() for x in _IGNORED}:
            if lk == "cloudfiles.infercolumntypes" and str(v).lower() == "true":
                out["inferSchema"] = "true"
        elif lk in {x.lower() for x in _MAPPED}:
            out[next(_MAPPED[x] for x in _MAPPED if x.lower() == lk)] = v
        elif lk.startswith("cloudfiles."):
            raise ValueError("%s: Auto Loader option %s is not supported by MiniLake" % (where, k))
        else:
            out[k] = v
    if fmt is None:
        raise ValueError("%s: Auto Loader needs cloudFiles.format" % where)
    return fmt, out


def guess_format(path):
    import os

    ext = os.path.splitext(path.rstrip("/"))[1].lower()
    return _EXTENSIONS.get(ext)


def install_auto_loader():
    """`spark.readStream.format("cloudFiles")...load(path)` becomes Spark's file stream source."""
    from pyspark.sql.connect.streaming.readwriter import DataStreamReader

    if getattr(DataStreamReader, "__minilake_auto_loader__", False):
        return
    original = DataStreamReader.load

    def load(self, path=None, format=None, schema=None, **options):
        if format is not None:
            self.format(format)
        if (self._format or "").lower() == "cloudfiles":
            self.options(**options)
            fmt, opts = file_source_options(dict(self._options), "Auto Loader")
            self._format = fmt
            self._options = {k: str(v) for k, v in opts.items()}
            return original(self, path, schema=schema)
        return original(self, path, schema=schema, **options)

    DataStreamReader.load = load
    DataStreamReader.__minilake_auto_loader__ = True


def read_files_frame(spark, path, fmt, options, streaming):
    """The DataFrame behind one `read_files(...)` / `cloud_files(...)` call in pipeline SQL."""
    opts = dict(options)
    fmt = (fmt or guess_format(path) or "").lower()
    if not fmt:
        raise ValueError("read_files('%s'): name the format (format => 'csv' | 'json' | 'parquet' | ...)" % path)
    if any(k.lower().startswith("cloudfiles.") for k in opts):
        _f, opts = file_source_options(dict(opts, **{"cloudFiles.format": fmt}), "read_files")
    schema = opts.pop("schema", None)
    if fmt == "csv":
        # read_files reads CSV with a header and inferred types unless told otherwise
        opts.setdefault("header", "true")
        opts.setdefault("inferSchema", "true")
    reader = spark.readStream if streaming else spark.read
    r = reader.format(fmt).options(**{k: str(v) for k, v in opts.items()})
    if schema:
        r = r.schema(schema)
    return r.load(path)
