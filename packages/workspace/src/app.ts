/**
 * Workspace API (/api/2.0/workspace) and workspace-files (/api/2.0/workspace-files). Fidelity notes:
 * - `/Workspace/Users/x` and `/Users/x` are one object. get-status answers with the path as asked (the
 *   `/Workspace` prefix kept when given), and so do the messages of errors naming it; list reports paths
 *   without the prefix.
 * - get-status with `return_export_info=true` adds a notebook's `repos_export_format` (SOURCE or JUPYTER),
 *   which the CLI's filer needs to export it.
 * - import takes a JSON body (base64 `content`) or multipart form data (what the Python SDK's upload sends);
 *   both, and import-file's raw body, stream to a temp file (body.ts): memory does not grow with the size.
 * - SOURCE notebooks are stored as sent (a missing header line is added, as Databricks does), JUPYTER ones
 *   as the .ipynb bytes, so each exports byte for byte in its own format; SOURCE<->JUPYTER is converted;
 *   HTML, DBC and R_MARKDOWN and directory archives answer 501 rather than a wrong file.
 * - import-file: 404 for a missing parent folder, 409 for an existing file with overwrite=false (the
 *   bundle deploy lock), 400 "already exists." for a notebook in the way, as the Databricks CLI expects.
 * - With MINILAKE_ENFORCE=1 each route checks the caller's level on the object (access.ts: read for
 *   get-status/export/list, edit to overwrite, manage on the folder to create, manage to delete); list leaves
 *   out what the caller may not read. Other services creating objects in the tree (MLflow experiments) ask
 *   WorkspaceApi.checkCanCreate, the same rule.
 */
import { rm } from 'node:fs/promises';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import {
  DatabricksError,
  invalidParameter,
  readJson,
  readQuery,
  readQueryOrBody,
  requestBodyStream,
  validate,
} from '@minilake/core';
import { readJsonImport, readMultipartImport, readRawImport } from './body.js';
import type { WorkspaceAccess } from './access.js';
import { canonicalPath, pathFromUrl } from './paths.js';
import * as s from './schemas.js';
import type { ExportFormat, ImportFormat, WorkspaceStore } from './store.js';

const BASE = '/api/2.0/workspace';

const prefixed = (given: string) => given === '/Workspace' || given.startsWith('/Workspace/');

/**
 * Runs a request on the canonical path; an error naming it names the path the client gave instead (a
 * `/Workspace/...` path keeps its prefix in Databricks' messages: "Path (/Workspace/Users/x) doesn't exist.").
 */
async function asGiven<T>(given: string, canonical: string, run: () => T | Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (e) {
    if (e instanceof DatabricksError && prefixed(given) && canonical !== given)
      throw new DatabricksError(
        e.status,
        e.errorCode,
        e.message.split(`(${canonical})`).join(`(/Workspace${canonical === '/' ? '' : canonical})`),
        e.details,
      );
    throw e;
  }
}
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

export function workspaceApp(store: WorkspaceStore, access: WorkspaceAccess): Hono {
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
    const p = canonicalPath(q.path);
    const out = await asGiven(q.path, p, () => {
      access.check(p, 'CAN_READ', q.path);
      return store.export(p, (q.format ?? 'SOURCE') as ExportFormat);
    });
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
    const p = canonicalPath(q.path);
    return asGiven(q.path, p, () => {
      access.check(p, 'CAN_READ', q.path);
      const info: Record<string, unknown> = { ...store.getStatus(p) };
      // A path asked for with its /Workspace prefix is answered with it, as Databricks does.
      if (prefixed(q.path)) info.path = `/Workspace${info.path === '/' ? '' : String(info.path)}`;
      const format = q.return_export_info ? store.exportFormat(p) : undefined;
      if (format) info.repos_export_format = format;
      return c.json(info);
    });
  });

  app.get(`${BASE}/list`, async (c) => {
    const q = await readQueryOrBody(c, s.ListRequest);
    const p = canonicalPath(q.path);
    const objects = await asGiven(q.path, p, () => {
      access.check(p, 'CAN_READ', q.path);
      return store.list(p, q.notebooks_modified_after).filter((o) => access.holds(o.path, 'CAN_READ'));
    });
    return c.json(objects.length ? { objects } : {});
  });

  app.post(`${BASE}/mkdirs`, async (c) => {
    const p = canonicalPath((await readJson(c, s.MkdirsRequest)).path);
    access.checkCreate(p);
    await store.mkdirs(p);
    return c.json({});
  });

  app.post(`${BASE}/delete`, async (c) => {
    const body = await readJson(c, s.DeleteRequest);
    const p = canonicalPath(body.path);
    await asGiven(body.path, p, () => {
      access.check(p, 'CAN_MANAGE', body.path);
      return store.delete(p, body.recursive ?? false);
    });
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
    access.check(p, 'CAN_READ');
    if (store.getStatus(p).object_type === 'DIRECTORY') throw invalidParameter(`Path (${p}) is a directory.`);
    const out = await store.export(p, 'SOURCE');
    return c.body(new Uint8Array(out.content), 200, {
      'content-type': 'application/octet-stream',
      'content-length': String(out.content.length),
    });
  });

  return app;
}
