/**
 * Workspace API (/api/2.0/workspace) and workspace-files (/api/2.0/workspace-files). Fidelity notes:
 * - `/Workspace/Users/x` and `/Users/x` are one object; paths are reported without the `/Workspace` prefix.
 * - import takes a JSON body (base64 `content`) or multipart form data (what the Python SDK's upload sends).
 * - SOURCE notebooks are stored as sent (a missing header line is added, as Databricks does), JUPYTER ones
 *   as the .ipynb bytes, so each exports byte for byte in its own format; SOURCE<->JUPYTER is converted;
 *   HTML, DBC and R_MARKDOWN and directory archives answer 501 rather than a wrong file.
 * - import-file: 404 for a missing parent folder, 409 for an existing file with overwrite=false (the
 *   bundle deploy lock), 400 "already exists." for a notebook in the way, as the Databricks CLI expects.
 * - ACLs are not enforced: every caller is the workspace admin.
 */
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import {
  invalidParameter,
  parseBase64,
  readJson,
  readQuery,
  readQueryOrBody,
  validate,
} from '@minilake/core';
import { badBase64 } from './errors.js';
import { canonicalPath, pathFromUrl } from './paths.js';
import * as s from './schemas.js';
import type { ExportFormat, ImportFormat, WorkspaceStore } from './store.js';

const BASE = '/api/2.0/workspace';
const FILES = '/api/2.0/workspace-files';

export function decodeBase64(b64: string): Buffer {
  const bytes = parseBase64(b64);
  if (!bytes) throw badBase64();
  return bytes;
}

async function readImport(c: Context) {
  const type = c.req.header('content-type') ?? '';
  if (!type.startsWith('multipart/form-data')) {
    const body = await readJson(c, s.ImportRequest);
    return { ...body, bytes: decodeBase64(body.content ?? '') };
  }
  const form = await c.req.parseBody();
  const fields: Record<string, unknown> = {};
  let bytes: Buffer | undefined;
  for (const [k, val] of Object.entries(form)) {
    if (k === 'content' && typeof val !== 'string') bytes = Buffer.from(await (val as File).arrayBuffer());
    else fields[k] = val;
  }
  const body = validate(s.ImportRequest, fields);
  return { ...body, bytes: bytes ?? decodeBase64(body.content ?? '') };
}

/**
 * The URL parser folds `/../` (and `%2e%2e`) before routing, so a dot segment in an import-file path could
 * land on another route or the 501 catch-all. The raw request line still has it: refuse it with a 400.
 */
const rawDotSegmentGuard: MiddlewareHandler = async (c, next) => {
  const raw = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
  if (raw?.startsWith(`${FILES}/`) && /(^|\/)(\.|%2e){1,2}(\/|$)/i.test(raw.split('?')[0]!)) {
    throw invalidParameter('Path must not contain dot segments');
  }
  await next();
};

export function workspaceApp(store: WorkspaceStore): Hono {
  const app = new Hono();
  app.use('/api/*', rawDotSegmentGuard);

  app.post(`${BASE}/import`, async (c) => {
    const body = await readImport(c);
    await store.import({
      path: canonicalPath(body.path),
      content: body.bytes,
      format: (body.format ?? 'SOURCE') as ImportFormat,
      language: body.language,
      overwrite: body.overwrite ?? false,
    });
    return c.json({});
  });

  app.get(`${BASE}/export`, async (c) => {
    const q = await readQueryOrBody(c, s.ExportRequest);
    const out = await store.export(canonicalPath(q.path), (q.format ?? 'SOURCE') as ExportFormat);
    if (q.direct_download) {
      return c.body(new Uint8Array(out.content), 200, {
        'content-type': 'application/octet-stream',
        'content-length': String(out.content.length),
      });
    }
    return c.json({ content: out.content.toString('base64'), file_type: out.file_type });
  });

  app.get(`${BASE}/get-status`, async (c) => {
    const q = await readQueryOrBody(c, s.GetStatusRequest);
    return c.json(store.getStatus(canonicalPath(q.path)));
  });

  app.get(`${BASE}/list`, async (c) => {
    const q = await readQueryOrBody(c, s.ListRequest);
    const objects = store.list(canonicalPath(q.path), q.notebooks_modified_after);
    return c.json(objects.length ? { objects } : {});
  });

  app.post(`${BASE}/mkdirs`, async (c) => {
    await store.mkdirs(canonicalPath((await readJson(c, s.MkdirsRequest)).path));
    return c.json({});
  });

  app.post(`${BASE}/delete`, async (c) => {
    const body = await readJson(c, s.DeleteRequest);
    await store.delete(canonicalPath(body.path), body.recursive ?? false);
    return c.json({});
  });

  app.post(`${FILES}/import-file/*`, async (c) => {
    const q = readQuery(c, s.ImportFileQuery);
    const p = canonicalPath(pathFromUrl(c.req.url, `${FILES}/import-file`));
    const content = Buffer.from(await c.req.arrayBuffer());
    await store.importFile(p, content, q.overwrite ?? false);
    return c.json({});
  });

  // Raw read of a workspace file (used by clients that treat workspace-files as an HTTP file store).
  app.get(`${FILES}/*`, async (c) => {
    const p = canonicalPath(pathFromUrl(c.req.url, FILES));
    if (store.getStatus(p).object_type === 'DIRECTORY') throw invalidParameter(`Path (${p}) is a directory.`);
    const out = await store.export(p, 'SOURCE');
    return c.body(new Uint8Array(out.content), 200, {
      'content-type': 'application/octet-stream',
      'content-length': String(out.content.length),
    });
  });

  return app;
}
