/**
 * Workspace API (/api/2.0/workspace) and workspace-files (/api/2.0/workspace-files). Fidelity notes:
 * - `/Workspace/Users/x` and `/Users/x` are one object; paths are reported without the `/Workspace` prefix.
 * - import takes a JSON body (base64 `content`) or multipart form data (what the Python SDK's upload sends);
 *   both, and import-file's raw body, stream to a temp file (body.ts): memory does not grow with the size.
 * - SOURCE notebooks are stored as sent (a missing header line is added, as Databricks does), JUPYTER ones
 *   as the .ipynb bytes, so each exports byte for byte in its own format; SOURCE<->JUPYTER is converted;
 *   HTML, DBC and R_MARKDOWN and directory archives answer 501 rather than a wrong file.
 * - import-file: 404 for a missing parent folder, 409 for an existing file with overwrite=false (the
 *   bundle deploy lock), 400 "already exists." for a notebook in the way, as the Databricks CLI expects.
 * - ACLs are not enforced: every caller is the workspace admin.
 */
import { rm } from 'node:fs/promises';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import {
  invalidParameter,
  readJson,
  readQuery,
  readQueryOrBody,
  requestBodyStream,
  validate,
} from '@minilake/core';
import { readJsonImport, readMultipartImport, readRawImport } from './body.js';
import { canonicalPath, pathFromUrl } from './paths.js';
import * as s from './schemas.js';
import type { ExportFormat, ImportFormat, WorkspaceStore } from './store.js';

const BASE = '/api/2.0/workspace';
const FILES = '/api/2.0/workspace-files';

/** Streams an import body's content into `tmp` (see body.ts) and validates the other fields. */
async function readImport(c: Context, tmp: string) {
  const type = c.req.header('content-type') ?? '';
  const { fields, size } = type.startsWith('multipart/form-data')
    ? await readMultipartImport(requestBodyStream(c), type, tmp)
    : await readJsonImport(requestBodyStream(c), tmp);
  return { body: validate(s.ImportRequest, fields), size };
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
    const tmp = store.tempPath();
    try {
      const { body, size } = await readImport(c, tmp);
      await store.import(
        {
          path: canonicalPath(body.path),
          format: (body.format ?? 'SOURCE') as ImportFormat,
          language: body.language,
          overwrite: body.overwrite ?? false,
        },
        { tmp, size },
      );
    } finally {
      await rm(tmp, { force: true });
    }
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
    const tmp = store.tempPath();
    try {
      const size = await readRawImport(requestBodyStream(c), tmp);
      await store.importFile(p, { tmp, size }, q.overwrite ?? false);
    } finally {
      await rm(tmp, { force: true });
    }
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
