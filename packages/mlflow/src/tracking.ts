/**
 * The MLflow tracking API (/api/2.0/mlflow/*, its /api/2.0/preview/mlflow/* form, the web UI's ajax-api and
 * the UI itself at /mlflow/), served by the real MLflow server behind MiniLake. Fidelity notes:
 * - Everything is passed to the MLflow server as it came (bodies streamed both ways) and its answers come
 *   back as they are: runs, params, metrics and their history, tags, search, logged models, the workspace
 *   model registry. Errors are already Databricks-shaped there (RESOURCE_DOES_NOT_EXIST for an unknown run);
 *   the REST forms' bodies are checked first and the server's HTML errors reshaped (databricksShaped).
 * - What Databricks adds is done here, before or after the server's part: experiment names are absolute
 *   workspace paths (canonical, without /Workspace) and experiments are MLFLOW_EXPERIMENT workspace objects
 *   (experiments.ts); artifact listing, the credential calls and the UI's artifact downloads are answered
 *   from the artifact files (artifacts.ts), which the server itself never touches.
 * - Answers carry `x-databricks-org-id` (the workspace id), which the mlflow client records on model versions.
 * - Unity Catalog's model registry (/api/2.0/mlflow/unity-catalog/*) is models/app.ts; other unity-catalog
 *   operations (prompts) answer 501.
 */
import { Hono, type Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import {
  invalidParameter,
  malformedRequest,
  notImplemented,
  parseJsonBody,
  readQuery,
  readQueryOrBody,
  requestBodyStream,
  sendStream,
  type Clock,
  type v,
} from '@minilake/core';
import { databricksModelUris, type Artifacts, type OwnerKind } from './artifacts.js';
import { guarded, type ExperimentAccess } from './access.js';
import type { Experiments } from './experiments.js';
import { badLink } from './errors.js';
import * as s from './schemas.js';
import { readAll, readBytes, UI_PREFIX, upstreamError, type MlflowServer } from './server.js';
import { createReadStream } from 'node:fs';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'host',
]);

export interface TrackingDeps {
  server: MlflowServer;
  /** Experiment permissions (MINILAKE_ENFORCE=1): one check per operation in dispatch. */
  access: ExperimentAccess;
  experiments: Experiments;
  artifacts: Artifacts;
  clock: Clock;
  workspaceId: string;
}

/** The API families clients send, each to the same MLflow operations (`api` is what follows `mlflow/`). */
const FAMILIES: { prefix: string; upstream: string }[] = [
  { prefix: '/api/2.0/mlflow/', upstream: `${UI_PREFIX}/api/2.0/mlflow/` },
  { prefix: '/api/2.0/preview/mlflow/', upstream: `${UI_PREFIX}/api/2.0/mlflow/` },
  { prefix: '/api/3.0/mlflow/', upstream: `${UI_PREFIX}/api/3.0/mlflow/` },
  { prefix: '/ajax-api/2.0/mlflow/', upstream: `${UI_PREFIX}/ajax-api/2.0/mlflow/` },
  { prefix: '/ajax-api/3.0/mlflow/', upstream: `${UI_PREFIX}/ajax-api/3.0/mlflow/` },
  { prefix: `${UI_PREFIX}/ajax-api/2.0/mlflow/`, upstream: `${UI_PREFIX}/ajax-api/2.0/mlflow/` },
  { prefix: `${UI_PREFIX}/ajax-api/3.0/mlflow/`, upstream: `${UI_PREFIX}/ajax-api/3.0/mlflow/` },
  { prefix: `${UI_PREFIX}/api/2.0/mlflow/`, upstream: `${UI_PREFIX}/api/2.0/mlflow/` },
];

type Handler = (c: Context, api: Api) => Promise<Response>;
interface Api {
  /** The operation, `experiments/create`. */
  op: string;
  /** The upstream path of the same operation in the same family (no query). */
  upstream: string;
}

const origin = (c: Context) => {
  const u = new URL(c.req.url);
  return `${u.protocol}//${u.host}`;
};

/** As core caps every other JSON body (validation.ts); Python's parser in the MLflow server fails near 1000. */
const MAX_JSON_DEPTH = 128;

/** A REST body: empty, or JSON no deeper than MAX_JSON_DEPTH (else 400 MALFORMED_REQUEST). */
export function checkJsonBody(text: string): void {
  if (text.trim() === '') return;
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === '\\') i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{' || ch === '[') max = Math.max(max, ++depth);
    else if (ch === '}' || ch === ']') depth--;
  }
  if (max > MAX_JSON_DEPTH)
    throw malformedRequest(`Request body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    JSON.parse(text);
  } catch {
    throw malformedRequest('Request body is not valid JSON');
  }
}

/** Answers up to this size are read whole before they are passed on (see respond). */
const SMALL_ANSWER = 64 * 1024;

export function trackingApp(d: TrackingDeps): Hono {
  const app = new Hono();
  const { server, experiments, artifacts } = d;

  /** Passes a request to the MLflow server (`body` replaces the client's) and its answer back. */
  async function forward(c: Context, upstreamPath: string, body?: Buffer): Promise<Response> {
    const req = c.req.raw;
    const headers: Record<string, string> = {};
    req.headers.forEach((val, k) => {
      if (!HOP_BY_HOP.has(k) && k !== 'authorization') headers[k] = val;
    });
    let payload: Buffer | Readable | undefined;
    if (body) {
      payload = body;
      headers['content-length'] = String(body.length);
      delete headers['transfer-encoding'];
    } else if (req.method !== 'GET' && req.method !== 'HEAD') {
      payload = requestBodyStream(c);
    }
    const search = new URL(req.url).search;
    const res = await server.request({
      method: req.method,
      path: upstreamPath + search,
      headers,
      body: payload,
    });
    return respond(req.method, res);
  }

  /** forward, with logged models' artifact URIs in the Databricks form (see databricksModelUris). */
  async function forwardRewritten(c: Context, upstreamPath: string, body?: Buffer): Promise<Response> {
    const req = c.req.raw;
    const headers: Record<string, string> = {};
    req.headers.forEach((val, k) => {
      if (!HOP_BY_HOP.has(k) && k !== 'authorization' && k !== 'accept-encoding') headers[k] = val;
    });
    let payload: Buffer | Readable | undefined;
    if (body) {
      payload = body;
      headers['content-length'] = String(body.length);
      delete headers['transfer-encoding'];
    } else if (req.method !== 'GET' && req.method !== 'HEAD') payload = requestBodyStream(c);
    const res = await server.request({
      method: req.method,
      path: upstreamPath + new URL(req.url).search,
      headers,
      body: payload,
    });
    const text = databricksModelUris(await readAll(res));
    const out = new Headers({ 'x-databricks-org-id': d.workspaceId });
    const type = res.headers['content-type'];
    if (type) out.set('content-type', String(type));
    return new Response(text, { status: res.statusCode ?? 502, headers: out });
  }

  async function respond(method: string, res: IncomingMessage): Promise<Response> {
    const out = new Headers();
    for (const [k, val] of Object.entries(res.headers)) {
      if (val === undefined || HOP_BY_HOP.has(k)) continue;
      for (const one of Array.isArray(val) ? val : [val]) out.append(k, one);
    }
    out.set('x-databricks-org-id', d.workspaceId);
    const empty = method === 'HEAD' || res.statusCode === 204 || res.statusCode === 304;
    if (empty) res.resume();
    const init = { status: res.statusCode ?? 502, headers: out };
    if (empty) return new Response(null, init);
    // Most answers are a small JSON body of known length (a log_metric's is `{}`): read whole, it skips a web
    // stream per call, which costs more than the bytes; anything large or of unknown length streams.
    const length = Number(res.headers['content-length'] ?? NaN);
    if (length <= SMALL_ANSWER) return new Response(await readBytes(res), init);
    return new Response(Readable.toWeb(res) as ReadableStream, init);
  }

  /** A JSON operation on the server with MiniLake's body, answering its JSON (or its error). */
  async function callJson(c: Context, api: Api, body: unknown): Promise<Record<string, unknown>> {
    const buf = Buffer.from(JSON.stringify(body));
    const res = await server.request({
      method: c.req.method,
      path: api.upstream,
      headers: { 'content-type': 'application/json', 'content-length': String(buf.length) },
      body: buf,
    });
    const text = await readAll(res);
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      // a non-JSON answer is reported below with its text
    }
    if ((res.statusCode ?? 500) >= 400) throw upstreamError(res.statusCode ?? 500, parsed, text);
    return parsed;
  }

  const json = (c: Context, body: unknown) =>
    c.json(body as Record<string, unknown>, 200, { 'x-databricks-org-id': d.workspaceId });

  /** The request's JSON body (validated), kept as text too for forwarding. */
  async function body<S extends v.GenericSchema>(
    c: Context,
    schema: S,
  ): Promise<{ raw: Record<string, unknown>; b: v.InferOutput<S> }> {
    const text = await c.req.text();
    const b = parseJsonBody(schema, text || '{}');
    return { raw: JSON.parse(text || '{}') as Record<string, unknown>, b };
  }

  const ops = new Map<string, Handler>();
  const on = (method: string, op: string, h: Handler) => ops.set(`${method} ${op}`, h);

  // ---- experiments: workspace objects ----
  on('POST', 'experiments/create', async (c, api) => {
    const { raw, b } = await body(c, s.CreateExperiment);
    const id = await experiments.create(b.name, async (name) => {
      const r = await callJson(c, api, { ...raw, name });
      return String(r.experiment_id);
    });
    return json(c, { experiment_id: id });
  });
  on('POST', 'experiments/update', async (c, api) => {
    const { raw, b } = await body(c, s.UpdateExperiment);
    if (b.new_name === undefined || b.new_name === '') return json(c, await callJson(c, api, raw));
    await experiments.rename(b.experiment_id, b.new_name, async (name) => {
      await callJson(c, api, { ...raw, new_name: name });
    });
    return json(c, {});
  });
  on('POST', 'experiments/delete', async (c, api) => {
    const { raw, b } = await body(c, s.ExperimentId);
    await experiments.delete(b.experiment_id, async () => void (await callJson(c, api, raw)));
    artifacts.forget();
    return json(c, {});
  });
  on('POST', 'experiments/restore', async (c, api) => {
    const { raw, b } = await body(c, s.ExperimentId);
    await experiments.restoreExperiment(b.experiment_id, async () => void (await callJson(c, api, raw)));
    artifacts.forget();
    return json(c, {});
  });
  // A deleted run takes no more artifacts: what is known of it is forgotten when that changes.
  for (const op of ['runs/delete', 'runs/restore'])
    on('POST', op, async (c, api) => {
      const { raw, b } = await body(c, s.RunId);
      const r = await callJson(c, api, raw);
      artifacts.forget(b.run_id);
      return json(c, r);
    });
  on('GET', 'experiments/get-by-name', async (c, api) => {
    const q = readQuery(c, s.GetExperimentByName);
    const name = q.experiment_name.startsWith('/')
      ? experiments.canonicalName(q.experiment_name)
      : q.experiment_name;
    const res = await server.request({
      method: 'GET',
      path: `${api.upstream}?${new URLSearchParams({ experiment_name: name })}`,
    });
    return respond('GET', res);
  });

  // The MLflow server answers an empty history for a run that does not exist; Databricks says it does not.
  on('GET', 'metrics/get-history', async (c, api) => {
    const q = c.req.query();
    const id = q.run_id ?? q.run_uuid;
    if (id) await server.call('GET', 'runs/get', { run_id: id });
    return forward(c, api.upstream);
  });

  // ---- run artifacts ----
  const runOf = (q: { run_id?: string | undefined; run_uuid?: string | undefined }) => {
    const id = q.run_id ?? q.run_uuid;
    if (!id) throw invalidParameter('run_id is required');
    return artifacts.owner('runs', id);
  };
  on('GET', 'artifacts/list', async (c) => {
    const q = await readQueryOrBody(c, s.ListArtifacts);
    const o = await runOf(q);
    const files = await artifacts.list(o, q.path);
    return json(c, { root_uri: o.uri, ...(files.length ? { files } : {}) });
  });
  const credentials = (method: 'GET' | 'PUT') => async (c: Context) => {
    const b = await readQueryOrBody(c, s.ArtifactCredentials);
    const o = await artifacts.owner('runs', b.run_id);
    if (method === 'PUT' && !o.active) throw invalidParameter(`Run ${o.id} is deleted.`);
    const paths = b.path === undefined ? [] : Array.isArray(b.path) ? b.path : [b.path];
    const now = d.clock.now();
    return json(c, {
      credential_infos: paths.map((p) => ({
        run_id: o.id,
        path: p,
        signed_uri: artifacts.link(origin(c), o, p, method, now),
        // A single PUT or GET of the whole file, which is what a local file takes.
        type: 'GCP_SIGNED_URL',
      })),
    });
  };
  on('POST', 'artifacts/credentials-for-read', credentials('GET'));
  on('POST', 'artifacts/credentials-for-write', credentials('PUT'));
  for (const op of ['artifacts/create-multipart-upload', 'artifacts/complete-multipart-upload'])
    on('POST', op, async () => {
      throw notImplemented(`${op} (MiniLake hands out single-PUT links)`);
    });
  on('GET', 'artifacts/get-presigned-upload-part-url', async () => {
    throw notImplemented('artifacts/get-presigned-upload-part-url (MiniLake hands out single-PUT links)');
  });

  // ---- logged models' files ----
  const loggedCredentials = (method: 'GET' | 'PUT') => async (c: Context, api: Api) => {
    const id = api.op.split('/')[1]!;
    const b = await readQueryOrBody(c, s.LoggedModelCredentials);
    const o = await artifacts.owner('logged_models', id);
    const paths = b.paths === undefined ? [] : Array.isArray(b.paths) ? b.paths : [b.paths];
    const now = d.clock.now();
    return json(c, {
      credentials: paths.map((p) => ({
        model_id: id,
        credential_info: {
          path: p,
          signed_uri: artifacts.link(origin(c), o, p, method, now),
          type: 'GCP_SIGNED_URL',
        },
      })),
    });
  };
  const listLogged = async (c: Context, api: Api) => {
    const id = api.op.split('/')[1]!;
    const q = readQuery(c, s.LoggedModelArtifacts);
    const o = await artifacts.owner('logged_models', id);
    const files = await artifacts.list(o, q.artifact_directory_path);
    return json(c, files.length ? { files } : {});
  };
  const getLoggedFile = async (c: Context, api: Api) => {
    const id = api.op.split('/')[1]!;
    const q = readQuery(c, s.LoggedModelFile);
    return download(c, await artifacts.owner('logged_models', id), q.artifact_file_path);
  };

  async function download(
    c: Context,
    o: Awaited<ReturnType<Artifacts['owner']>>,
    rel: string,
  ): Promise<Response> {
    const f = await artifacts.existing(o, rel);
    return sendStream(
      c,
      200,
      {
        'content-type': 'application/octet-stream',
        'content-length': String(f.size),
        'last-modified': new Date(f.mtimeMs).toUTCString(),
      },
      createReadStream(f.disk, { highWaterMark: 1024 * 1024 }),
    );
  }

  // ---- the Databricks-only route of the workspace registry: registered-models/get with permissions ----
  on('GET', 'databricks/registered-models/get', async (c, api) => {
    const res = await server.request({
      method: 'GET',
      path: `${api.upstream.replace('/databricks/registered-models/get', '/registered-models/get')}${new URL(c.req.url).search}`,
    });
    const text = await readAll(res);
    const parsed = JSON.parse(text || '{}') as { registered_model?: Record<string, unknown> } & Record<
      string,
      unknown
    >;
    if ((res.statusCode ?? 500) >= 400) throw upstreamError(res.statusCode ?? 500, parsed, text);
    const m = parsed.registered_model ?? {};
    return json(c, {
      registered_model_databricks: { ...m, id: String(m.name ?? ''), permission_level: 'CAN_MANAGE' },
    });
  });

  // ---- the web UI's own artifact routes (under /mlflow, as it asks for them) ----
  app.get(`${UI_PREFIX}/get-artifact`, async (c) => {
    const q = readQuery(c, s.GetArtifact);
    return download(c, await runOf(q), q.path);
  });

  // ---- signed links (from the credential calls): no Authorization header, one file, one method ----
  app.on(['GET', 'PUT'], '/_minilake/mlflow/artifacts/:kind/:id/*', async (c) => {
    const kind = c.req.param('kind') as OwnerKind;
    if (kind !== 'runs' && kind !== 'logged_models') return c.notFound();
    const id = c.req.param('id');
    const prefix = `/_minilake/mlflow/artifacts/${kind}/${encodeURIComponent(id)}/`;
    const rawPath = new URL(c.req.url).pathname;
    let rel = '';
    try {
      if (rawPath.startsWith(prefix))
        rel = rawPath.slice(prefix.length).split('/').map(decodeURIComponent).join('/');
    } catch {
      throw badLink();
    }
    const q = readQuery(c, s.SignedLink);
    artifacts.verify(kind, id, rel, c.req.method, q.expires, q.sig, d.clock.now());
    const o = await artifacts.owner(kind, id);
    if (c.req.method === 'PUT') {
      await artifacts.write(o, rel, requestBodyStream(c));
      return c.body(null, 200);
    }
    return download(c, o, rel);
  });

  // ---- everything else: the MLflow server ----
  const dispatch = async (c: Context): Promise<Response> => {
    const p = c.req.path;
    // Upstream gets the path as the client encoded it: the decoded one may hold NUL or non-Latin-1
    // characters, which Node refuses to put on a request line (a 500, found by e2e/python/test_fuzz.py).
    const rawPath = new URL(c.req.url).pathname;
    const fam = FAMILIES.find((f) => p.startsWith(f.prefix));
    if (!fam) return forward(c, rawPath); // the UI and its static files under /mlflow
    const op = p.slice(fam.prefix.length).replace(/\/+$/, '');
    const rawOp = rawPath.startsWith(fam.prefix) ? rawPath.slice(fam.prefix.length).replace(/\/+$/, '') : op;
    const api: Api = { op, upstream: fam.upstream + rawOp };
    if (op.startsWith('unity-catalog/') || op.startsWith('unity-catalog:'))
      throw notImplemented(`${c.req.method} ${p}`);
    const res = await operation(c, fam, op, api);
    return fam.prefix.startsWith('/api/') ? databricksShaped(c, res) : res;
  };

  const operation = async (
    c: Context,
    fam: (typeof FAMILIES)[number],
    op: string,
    api: Api,
  ): Promise<Response> => {
    // Experiment permissions: the operation's arguments are read (a POST body then goes on as a buffer).
    let read: Buffer | undefined;
    // The REST API's bodies are JSON: checked here, so the MLflow server never sees what its parser fails
    // on with an HTML 500 (1000 levels of nesting; invalid UTF-8 is read as U+FFFD, as Databricks' does).
    if (fam.prefix.startsWith('/api/') && c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const text = await c.req.text();
      checkJsonBody(text);
      read = Buffer.from(text);
    }
    if (d.access.enforcing && guarded(op)) {
      let args: Record<string, unknown> = c.req.query();
      if (c.req.method !== 'GET') {
        const text = await c.req.text();
        read ??= Buffer.from(text);
        try {
          const parsed: unknown = JSON.parse(text || '{}');
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) args = parsed as typeof args;
        } catch {
          // the MLflow server answers a malformed body itself
        }
      }
      await d.access.authorize(op, args);
      if (op === 'experiments/search' && c.req.method === 'POST')
        return json(
          c,
          d.access.filterExperiments(await callJson(c, api, JSON.parse(read!.toString() || '{}'))),
        );
    }
    const h = ops.get(`${c.req.method} ${op}`);
    if (h) return h(c, api);
    const m =
      /^logged-models\/[^/]+\/artifacts\/(credentials-for-upload|credentials-for-download|directories|files)$/.exec(
        op,
      );
    if (m) {
      if (m[1] === 'credentials-for-upload' && c.req.method === 'POST')
        return loggedCredentials('PUT')(c, api);
      if (m[1] === 'credentials-for-download' && c.req.method === 'POST')
        return loggedCredentials('GET')(c, api);
      if (m[1] === 'directories' && c.req.method === 'GET') return listLogged(c, api);
      if (m[1] === 'files' && c.req.method === 'GET') return getLoggedFile(c, api);
    }
    if (op.startsWith('logged-models')) return forwardRewritten(c, api.upstream, read);
    return forward(c, api.upstream, read);
  };

  /**
   * The MLflow server's own Flask answers (an unknown operation's HTML 404, an HTML 500 on input its handlers
   * do not expect) become Databricks errors: 404 ENDPOINT_NOT_FOUND as the workspace answers an unknown
   * path, anything else MALFORMED_REQUEST (the request's fault: the server answers every valid one in JSON).
   */
  async function databricksShaped(c: Context, res: Response): Promise<Response> {
    if (res.status < 400 || (res.headers.get('content-type') ?? '').includes('json')) return res;
    await res.body?.cancel();
    const headers = { 'x-databricks-org-id': d.workspaceId };
    if (res.status === 404 || res.status === 405)
      return c.json(
        { error_code: 'ENDPOINT_NOT_FOUND', message: `No API found for '${c.req.method} ${c.req.path}'` },
        404,
        headers,
      );
    return c.json(
      { error_code: 'MALFORMED_REQUEST', message: `Invalid request to ${c.req.method} ${c.req.path}` },
      400,
      headers,
    );
  }
  for (const f of FAMILIES) app.all(`${f.prefix}*`, dispatch);
  app.all(UI_PREFIX, (c) => c.redirect(`${UI_PREFIX}/`, 302));
  // The links the mlflow client prints for a `databricks` URI (Databricks' UI paths) open MLflow's own UI.
  app.get('/ml/experiments/:id', (c) =>
    c.redirect(`${UI_PREFIX}/#/experiments/${encodeURIComponent(c.req.param('id'))}`, 302),
  );
  app.get('/ml/experiments/:id/runs/:run', (c) =>
    c.redirect(
      `${UI_PREFIX}/#/experiments/${encodeURIComponent(c.req.param('id'))}/runs/${encodeURIComponent(c.req.param('run'))}`,
      302,
    ),
  );
  app.all(`${UI_PREFIX}/*`, dispatch);
  return app;
}
