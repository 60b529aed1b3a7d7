/**
 * JupyterLab at /jupyter: when the configured Python can import jupyterlab, the first request starts it on a
 * free loopback port with base_url /jupyter/ and a kernel environment pointing databricks-sdk (and PySpark's
 * Delta setup) at this MiniLake; HTTP is proxied through node:http (bodies passed as they are, compressed or
 * not) and websockets (kernels, terminals) through the server's `upgrade` event as raw byte pipes. Without
 * JupyterLab the route answers a page saying how to install it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import http, { type IncomingMessage } from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { Readable } from 'node:stream';
import type { Duplex } from 'node:stream';
import { Hono } from 'hono';
import type { Logger } from '@minilake/core';
import { defaultInstallDir, freePort, UC_CATALOG_CLASS, ucCatalogJar } from '@minilake/engine-spark';
import { CONTENTS_MANAGER, CONTENTS_MODULE } from './jupyter-contents.js';

export interface JupyterOptions {
  /** A Python whose environment has jupyterlab (MINILAKE_JUPYTER_PYTHON). */
  python: string;
  /**
   * JupyterLab's own folder, `<dataDir>/jupyter`: its root (kernels start here), the contents manager module,
   * the kernels' IPython startup and checkpoints. Notebooks live in the workspace (jupyter-contents.ts).
   */
  rootDir: string;
  selfUrl: () => string | undefined;
  logger: Logger;
  /** Delta's jars and MiniLake's Unity Catalog plugin from the Spark install, for the kernel's PySpark. */
  sparkJars: string[];
  startTimeoutMs?: number;
}

/**
 * The Delta jars and the Unity Catalog plugin jar of the Spark install in the cache
 * (packages/engine-spark/install.sh), if any.
 */
export function sparkJars(cacheDir: string): string[] {
  // The pinned install's folder (engine-spark decides its name), not any spark-* folder in the cache.
  const dir = defaultInstallDir(cacheDir);
  const jars = path.join(dir, 'jars');
  if (!existsSync(jars)) return [];
  const found = readdirSync(jars)
    .filter((j) => j.startsWith('delta-') && j.endsWith('.jar'))
    .map((j) => path.join(jars, j));
  const uc = ucCatalogJar(dir);
  return existsSync(uc) ? [...found, uc] : found;
}

/**
 * Runs in every kernel before the user's first cell (IPython's startup folder): the first
 * `SparkSession.builder.getOrCreate()` launches Spark with Delta and a Spark catalog for each Unity Catalog
 * catalog MiniLake holds at that moment (PYSPARK_SUBMIT_ARGS, read when the JVM starts), so
 * `spark.table("cat.sch.t")` works with no configuration in the notebook.
 */
const KERNEL_STARTUP = `import json as _json, os as _os, re as _re, shlex as _shlex, urllib.request as _rq

def _minilake_pyspark_args():
    host, token = _os.environ["DATABRICKS_HOST"], _os.environ["DATABRICKS_TOKEN"]
    jars = _os.environ.get("MINILAKE_SPARK_JARS", "")
    conf = {"spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
            "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog"}
    if "minilake-uc-spark.jar" in jars:
        try:
            req = _rq.Request(host.rstrip("/") + "/api/2.1/unity-catalog/catalogs",
                              headers={"Authorization": "Bearer " + token})
            names = [c["name"] for c in _json.load(_rq.urlopen(req, timeout=5)).get("catalogs", [])]
        except Exception:
            names = []
        for n in names:
            if n in ("spark_catalog", "system") or not _re.fullmatch(r"[\\w-]+", n):
                continue
            conf["spark.sql.catalog." + n] = "${UC_CATALOG_CLASS}"
            conf["spark.sql.catalog." + n + ".uri"] = host
            conf["spark.sql.catalog." + n + ".token"] = token
    args = (["--jars", jars] if jars else []) + [a for k, v in conf.items() for a in ("--conf", k + "=" + v)]
    return " ".join(_shlex.quote(a) for a in args + ["pyspark-shell"])

try:
    from pyspark.sql import SparkSession as _SparkSession

    _minilake_get_or_create = _SparkSession.Builder.getOrCreate

    def _get_or_create(self):
        if "PYSPARK_SUBMIT_ARGS" not in _os.environ:
            _os.environ["PYSPARK_SUBMIT_ARGS"] = _minilake_pyspark_args()
        return _minilake_get_or_create(self)

    _SparkSession.Builder.getOrCreate = _get_or_create
except ImportError:
    pass
`;

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
]);

const page = (title: string, body: string, status: 404 | 502 | 503) =>
  new Response(
    `<!doctype html><html lang="en"><meta charset="utf-8"><title>${title}</title>
<body style="font:15px system-ui;max-width:46em;margin:3em auto"><h1>${title}</h1>${body}
<p><a href="/ui/">Back to the SQL workspace</a></p></body></html>`,
    { status, headers: { 'content-type': 'text/html; charset=utf-8' } },
  );

const escapeHtml = (s: string) =>
  s.replace(/[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;' })[c]!);

const STARTER = (url: string) => ({
  nbformat: 4,
  nbformat_minor: 5,
  metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' } },
  cells: [
    md(
      `# MiniLake starter\n\nThis kernel's environment points \`databricks-sdk\` at this MiniLake (${url}): \`DATABRICKS_HOST\` and \`DATABRICKS_TOKEN\` are set.`,
    ),
    code(
      `from databricks.sdk import WorkspaceClient\n\nw = WorkspaceClient()\nprint(w.current_user.me().user_name)\nr = w.statement_execution.execute_statement(warehouse_id="dev", statement="SELECT 6 * 7 AS answer", wait_timeout="30s")\nprint(r.result.data_array)`,
    ),
    md(
      "## Spark\n\nPySpark with Delta and Unity Catalog (from the Spark install, `bash packages/engine-spark/install.sh`): Spark writes an EXTERNAL Delta table in the catalog `starter`, MiniLake's SQL reads it back.",
    ),
    code(
      `import os, tempfile\nfrom pyspark.sql import SparkSession\n\nif "starter" not in [c.name for c in w.catalogs.list()]:\n    w.catalogs.create(name="starter")\n# Delta and every Unity Catalog catalog are configured when Spark starts: nothing to set here.\nspark = SparkSession.builder.master("local[2]").getOrCreate()\nloc = os.path.join(tempfile.gettempdir(), "minilake-starter", "numbers")\nspark.sql(f"CREATE TABLE IF NOT EXISTS starter.default.starter_numbers (n BIGINT) USING DELTA LOCATION '{loc}'")\nspark.range(5).withColumnRenamed("id", "n").writeTo("starter.default.starter_numbers").append()\nr = w.statement_execution.execute_statement(warehouse_id="dev", statement="SELECT sum(n) AS total FROM starter.default.starter_numbers", wait_timeout="30s")\nprint(r.status.state, r.result and r.result.data_array)\nprint(spark.table("starter.default.starter_numbers").count())`,
    ),
  ],
});
function md(source: string) {
  return { cell_type: 'markdown', metadata: {}, source };
}
function code(source: string) {
  return { cell_type: 'code', metadata: {}, source, outputs: [], execution_count: null };
}

export class Jupyter {
  private proc: ChildProcess | undefined;
  private starting: Promise<number> | undefined;
  private available: Promise<boolean> | undefined;
  private lastError = '';

  constructor(private readonly opts: JupyterOptions) {}

  /** Whether the Python exists and imports jupyterlab (checked once). */
  isAvailable(): Promise<boolean> {
    this.available ??= new Promise((resolve) => {
      if (!existsSync(this.opts.python)) return resolve(false);
      const p = spawn(this.opts.python, ['-c', 'import jupyterlab'], { stdio: 'ignore' });
      p.once('error', () => resolve(false));
      p.once('exit', (code) => resolve(code === 0));
    });
    return this.available;
  }

  private start(): Promise<number> {
    this.starting ??= (async () => {
      const port = await freePort();
      const selfUrl = this.opts.selfUrl() ?? 'http://127.0.0.1:8000';
      await mkdir(this.opts.rootDir, { recursive: true });
      // JupyterLab's files are the workspace's (jupyter-contents.ts): its contents manager is a module here,
      // and the starter notebook goes into the user's home folder the first time JupyterLab lists it.
      const own = path.join(this.opts.rootDir, '.minilake');
      await mkdir(own, { recursive: true });
      await writeFile(path.join(own, `${CONTENTS_MODULE}.py`), CONTENTS_MANAGER);
      const starter = path.join(own, 'minilake-starter.ipynb');
      await writeFile(starter, JSON.stringify(STARTER(selfUrl), null, 1));
      const args = [
        '-m',
        'jupyterlab',
        '--no-browser',
        '--ip=127.0.0.1',
        `--port=${port}`,
        '--ServerApp.base_url=/jupyter/',
        `--ServerApp.root_dir=${this.opts.rootDir}`,
        `--ServerApp.contents_manager_class=${CONTENTS_MODULE}.MiniLakeContentsManager`,
        // MiniLake's own API accepts any token on loopback; Jupyter behind it does the same.
        '--IdentityProvider.token=',
        '--ServerApp.password=',
        // The Host header is MiniLake's (forwarded as is); MiniLake decides where it listens.
        '--ServerApp.allow_remote_access=True',
        // No extension listings fetched from a package index: MiniLake works offline.
        '--LabApp.extension_manager=readonly',
      ];
      // Containers often run as root; Jupyter refuses that unless told.
      if (process.getuid?.() === 0) args.push('--allow-root');
      const env: Record<string, string | undefined> = {
        ...process.env,
        DATABRICKS_HOST: selfUrl,
        DATABRICKS_TOKEN: 'dapi-minilake-jupyter',
        DATABRICKS_CONFIG_FILE: '/dev/null',
        MINILAKE_URL: selfUrl,
        MINILAKE_JUPYTER_DIR: this.opts.rootDir,
        MINILAKE_JUPYTER_STARTER: starter,
        PYTHONPATH: [own, process.env.PYTHONPATH].filter(Boolean).join(path.delimiter),
      };
      if (this.opts.sparkJars.length) env.MINILAKE_SPARK_JARS = this.opts.sparkJars.join(',');
      // IPython reads its startup folder from IPYTHONDIR: ours, inside the notebooks folder (hidden there).
      const ipython = path.join(this.opts.rootDir, '.ipython');
      await mkdir(path.join(ipython, 'profile_default', 'startup'), { recursive: true });
      await writeFile(path.join(ipython, 'profile_default', 'startup', '00-minilake.py'), KERNEL_STARTUP);
      env.IPYTHONDIR = ipython;
      const proc = spawn(this.opts.python, args, {
        cwd: this.opts.rootDir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      this.proc = proc;
      let out = '';
      const keep = (d: Buffer) => {
        out = (out + d.toString()).slice(-4000);
      };
      proc.stdout!.on('data', keep);
      proc.stderr!.on('data', keep);
      proc.once('exit', (code) => {
        this.lastError = `JupyterLab exited (${code}):\n${out}`;
        this.proc = undefined;
        this.starting = undefined;
      });
      const deadline = Date.now() + (this.opts.startTimeoutMs ?? 90_000);
      while (Date.now() < deadline) {
        if (!this.proc) throw new Error(this.lastError);
        const ok = await new Promise<boolean>((resolve) => {
          const req = http.get({ host: '127.0.0.1', port, path: '/jupyter/api/status' }, (res) => {
            res.resume();
            resolve(res.statusCode === 200);
          });
          req.once('error', () => resolve(false));
        });
        if (ok) {
          this.opts.logger.info(`JupyterLab started for /jupyter (pid ${proc.pid})`);
          return port;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
      proc.kill('SIGTERM');
      throw new Error(`JupyterLab did not answer within the start timeout:\n${out}`);
    })();
    return this.starting;
  }

  app(): Hono {
    const app = new Hono();
    app.all('/jupyter', (c) => c.redirect('/jupyter/lab', 302));
    app.all('/jupyter/*', async (c) => {
      if (!(await this.isAvailable())) {
        return page(
          'JupyterLab is not installed',
          `<p>MiniLake serves JupyterLab at <code>/jupyter</code> when the Python in
<code>MINILAKE_JUPYTER_PYTHON</code> (now <code>${escapeHtml(this.opts.python)}</code>) can import <code>jupyterlab</code>.</p>
<p>Install it once with <code>bash apps/server/scripts/install-jupyter.sh</code> (a venv under <code>~/.cache/minilake/jupyter</code>
with jupyterlab and databricks-sdk, PySpark from the Spark install), or point <code>MINILAKE_JUPYTER_PYTHON</code> at a
Python that has it, then reload this page.</p>`,
          404,
        );
      }
      let port: number;
      try {
        port = await this.start();
      } catch (e) {
        return page('JupyterLab did not start', `<pre>${escapeHtml((e as Error).message)}</pre>`, 502);
      }
      return this.forward(c.req.raw, port);
    });
    return app;
  }

  private forward(req: Request, port: number): Promise<Response> {
    const url = new URL(req.url);
    const headers: Record<string, string | string[]> = {};
    req.headers.forEach((v, k) => {
      if (!HOP_BY_HOP.has(k)) headers[k] = v;
    });
    return new Promise((resolve) => {
      const upstream = http.request(
        { host: '127.0.0.1', port, method: req.method, path: url.pathname + url.search, headers },
        (res) => {
          const out = new Headers();
          for (const [k, v] of Object.entries(res.headers)) {
            if (v === undefined || HOP_BY_HOP.has(k)) continue;
            for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
          }
          const body = req.method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
          resolve(
            new Response(body ? null : (Readable.toWeb(res) as ReadableStream), {
              status: res.statusCode ?? 502,
              headers: out,
            }),
          );
        },
      );
      upstream.once('error', (e) =>
        resolve(page('JupyterLab is unreachable', `<pre>${escapeHtml(e.message)}</pre>`, 502)),
      );
      // Bodies stream through as they arrive (notebook saves, file uploads).
      if (req.body) Readable.fromWeb(req.body as import('node:stream/web').ReadableStream).pipe(upstream);
      else upstream.end();
    });
  }

  /** The server's `upgrade` listener: websockets under /jupyter/ become byte pipes to JupyterLab. */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): boolean {
    if (!req.url?.startsWith('/jupyter/')) return false;
    void (async () => {
      if (!(await this.isAvailable())) return socket.destroy();
      let port: number;
      try {
        port = await this.start();
      } catch {
        return socket.destroy();
      }
      const upstream = net.connect(port, '127.0.0.1', () => {
        const lines = [`${req.method} ${req.url} HTTP/${req.httpVersion}`];
        for (let i = 0; i < req.rawHeaders.length; i += 2)
          lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
        upstream.write(`${lines.join('\r\n')}\r\n\r\n`);
        if (head.length) upstream.write(head);
        upstream.pipe(socket);
        socket.pipe(upstream);
      });
      const end = () => {
        upstream.destroy();
        socket.destroy();
      };
      upstream.once('error', end);
      socket.once('error', end);
      upstream.once('close', end);
      socket.once('close', end);
    })();
    return true;
  }

  async close(): Promise<void> {
    const p = this.proc;
    if (!p) return;
    await new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        p.kill('SIGKILL');
        resolve();
      }, 5000);
      p.once('exit', () => {
        clearTimeout(t);
        resolve();
      });
      p.kill('SIGTERM');
    });
  }
}
