/**
 * DBFS (/api/2.0/dbfs) and the Files API (/api/2.0/fs). Fidelity notes:
 * - DBFS keeps the real limits: read `length` up to 1 MiB (400 MAX_READ_SIZE_EXCEEDED above), add-block and
 *   inline put `contents` up to 1 MiB (400 MAX_BLOCK_SIZE_EXCEEDED); base64 errors are 400s. put also takes
 *   multipart form data, streamed to a temp file (no size limit). Open handles expire after 10 idle minutes.
 * - Files API bodies stream both ways: uploads go from the socket to a temp file, downloads from disk to the
 *   socket, with Range reads (206), If-Unmodified-Since (412) and Content-Length / Last-Modified /
 *   Content-Type octet-stream. `overwrite` defaults to true there (false on DBFS), as documented.
 * - /Volumes/<catalog>/<schema>/<volume>/... paths exist for the Files API, and the roots other services mount
 *   (mlflow: /Models/..., /WorkspaceInternal/Mlflow/...); 400 otherwise; a volume that does not exist is a 404
 *   from Unity Catalog. GET /api/2.0/fs/endpoints names this server's Files API 2.0 as the one endpoint. The presigned-URL endpoints (create-download-url, multipart
 *   upload sessions) are not built: they answer 501 and the SDKs fall back to the plain endpoints.
 * - Paths never leave their root: dot segments (also percent-encoded, also those the URL parser would fold
 *   away), encoded slashes, NUL bytes and symlinks out of the data dir are all 400s.
 */
import { rm } from 'node:fs/promises';
import { Hono, type Context, type MiddlewareHandler } from 'hono';
import {
  boundaryOf,
  invalidParameter,
  parseBase64,
  readMultipart,
  readJson,
  readQuery,
  requestBodyStream,
  sendStream,
  validate,
} from '@minilake/core';
import type { DbfsStore } from './dbfs.js';
import { MAX_BLOCK } from './dbfs.js';
import { badBase64, fileChanged, maxBlockExceeded, rangeNotSatisfiable } from './errors.js';
import { dbfsPath, pathFromUrl } from './paths.js';
import * as s from './schemas.js';
import type { VolumeFiles } from './volumes.js';

const DBFS = '/api/2.0/dbfs';
const FS = '/api/2.0/fs';

function decodeBase64(b64: string, field: string): Buffer {
  const bytes = parseBase64(b64);
  if (!bytes) throw badBase64(field);
  return bytes;
}

/**
 * The URL parser folds `/../` (and `%2e%2e`) before routing, so an escape attempt could land on some other
 * route or on the 501 catch-all. The raw request line still has it: refuse it with a 400 here.
 */
const rawDotSegmentGuard: MiddlewareHandler = async (c, next) => {
  const raw = (c.env as { incoming?: { url?: string } } | undefined)?.incoming?.url;
  if (raw && /^\/api\/2\.0\/(fs|dbfs)\//.test(raw)) {
    const pathPart = raw.split('?')[0]!;
    if (/(^|\/)(\.|%2e){1,2}(\/|$)/i.test(pathPart)) {
      throw invalidParameter('Path must not contain dot segments');
    }
  }
  await next();
};

/** Parses a single `bytes=` range against the file size; undefined means the whole file. */
function parseRange(header: string | undefined, size: number): { start: number; end: number } | undefined {
  if (!header) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined; // unsupported forms (multiple ranges): full body
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) throw rangeNotSatisfiable(size);
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || end < start) throw rangeNotSatisfiable(size);
  return { start, end };
}

/**
 * A JSON body that carries one block (add-block, inline put) holds at most 1 MiB of data: ~1.4 MB of base64
 * plus the other fields. A larger declared body is refused before it is read, so a client cannot make the
 * server buffer a whole file only to be told the block is too large (the 400 it would get anyway).
 */
const MAX_BLOCK_BODY = 2 * 1024 * 1024;

function refuseOversizedBlock(c: Context): void {
  const declared = Number(c.req.header('content-length'));
  if (declared > MAX_BLOCK_BODY) throw maxBlockExceeded();
}

export function filesApp(dbfs: DbfsStore, volumes: VolumeFiles): Hono {
  const app = new Hono();
  app.use('/api/*', rawDotSegmentGuard);

  // ---- DBFS ----
  app.post(`${DBFS}/create`, async (c) => {
    const body = await readJson(c, s.CreateRequest);
    return c.json({ handle: await dbfs.create(dbfsPath(body.path), body.overwrite ?? false) });
  });
  app.post(`${DBFS}/add-block`, async (c) => {
    refuseOversizedBlock(c);
    const body = await readJson(c, s.AddBlockRequest);
    const data = decodeBase64(body.data, 'data');
    if (data.length > MAX_BLOCK) throw maxBlockExceeded();
    await dbfs.addBlock(body.handle, data);
    return c.json({});
  });
  app.post(`${DBFS}/close`, async (c) => {
    await dbfs.closeHandle((await readJson(c, s.CloseRequest)).handle);
    return c.json({});
  });
  app.post(`${DBFS}/put`, async (c) => {
    const type = c.req.header('content-type') ?? '';
    if (type.startsWith('multipart/form-data')) {
      // Streamed: the file part goes straight to a temp file, then is moved into place.
      const tmp = dbfs.tempPath();
      try {
        const form = await readMultipart(requestBodyStream(c), boundaryOf(type), tmp);
        const body = validate(s.PutRequest, form.fields);
        const target = dbfsPath(body.path);
        if (!form.file) {
          await dbfs.put(target, decodeBase64(body.contents ?? '', 'contents'), body.overwrite ?? false);
        } else {
          await dbfs.commitTemp(target, tmp, body.overwrite ?? false);
        }
      } finally {
        await rm(tmp, { force: true });
      }
      return c.json({});
    }
    refuseOversizedBlock(c);
    const body = await readJson(c, s.PutRequest);
    const content = decodeBase64(body.contents ?? '', 'contents');
    if (content.length > MAX_BLOCK) throw maxBlockExceeded();
    await dbfs.put(dbfsPath(body.path), content, body.overwrite ?? false);
    return c.json({});
  });
  app.get(`${DBFS}/read`, async (c) => {
    const q = readQuery(c, s.ReadRequest);
    return c.json(await dbfs.read(dbfsPath(q.path), q.offset ?? 0, q.length ?? undefined));
  });
  app.get(`${DBFS}/get-status`, async (c) =>
    c.json(await dbfs.getStatus(dbfsPath(readQuery(c, s.GetStatusRequest).path))),
  );
  app.get(`${DBFS}/list`, async (c) =>
    c.json({ files: await dbfs.list(dbfsPath(readQuery(c, s.ListStatusRequest).path)) }),
  );
  app.post(`${DBFS}/mkdirs`, async (c) => {
    await dbfs.mkdirs(dbfsPath((await readJson(c, s.MkDirsRequest)).path));
    return c.json({});
  });
  app.post(`${DBFS}/delete`, async (c) => {
    const body = await readJson(c, s.DeleteRequest);
    await dbfs.delete(dbfsPath(body.path), body.recursive ?? false);
    return c.json({});
  });
  app.post(`${DBFS}/move`, async (c) => {
    const body = await readJson(c, s.MoveRequest);
    await dbfs.move(dbfsPath(body.source_path), dbfsPath(body.destination_path));
    return c.json({});
  });

  // ---- Files API ----
  // Where the SDKs send file transfers (databricks-sdk-py >= 0.16x asks before every upload and download):
  // this server's own Files API 2.0, one request per file. Without this answer they try the presigned-URL
  // endpoints first (501 here) and then fall back to the same routes.
  app.get(`${FS}/endpoints`, (c) => {
    const u = new URL(c.req.url);
    return c.json({
      endpoints: [
        {
          api: 'FILES_API',
          api_version: '2.0',
          scheme: u.protocol.replace(':', ''),
          hostname: u.host,
          multipart_upload_supported: false,
        },
      ],
    });
  });
  const filePath = (c: Context) => pathFromUrl(c.req.url, `${FS}/files`);
  const dirPath = (c: Context) => pathFromUrl(c.req.url, `${FS}/directories`);

  app.put(`${FS}/files/*`, async (c) => {
    const q = readQuery(c, s.UploadRequest);
    // Unlike DBFS, the Files API overwrites unless told not to.
    await volumes.upload(filePath(c), requestBodyStream(c), q.overwrite ?? true);
    return c.body(null, 204);
  });
  const fileHeaders = (size: number, mtimeMs: number): Record<string, string> => ({
    'content-type': 'application/octet-stream',
    'content-length': String(size),
    'last-modified': new Date(mtimeMs).toUTCString(),
    'accept-ranges': 'bytes',
  });
  app.on('HEAD', `${FS}/files/*`, async (c) => {
    const { st } = await volumes.fileStat(filePath(c));
    return c.body(null, 200, fileHeaders(st.size, st.mtimeMs));
  });
  app.get(`${FS}/files/*`, async (c) => {
    const { file, st } = await volumes.openFile(filePath(c));
    let streamed = false;
    try {
      const unmodifiedSince = c.req.header('if-unmodified-since');
      if (unmodifiedSince) {
        const since = Date.parse(unmodifiedSince);
        if (!Number.isNaN(since) && Math.floor(st.mtimeMs / 1000) * 1000 > since)
          throw fileChanged(filePath(c));
      }
      const range = parseRange(c.req.header('range'), st.size);
      if (st.size === 0) return c.body(null, 200, fileHeaders(0, st.mtimeMs));
      const { start, end } = range ?? { start: 0, end: st.size - 1 };
      const headers = fileHeaders(end - start + 1, st.mtimeMs);
      if (range) headers['content-range'] = `bytes ${start}-${end}/${st.size}`;
      const body = volumes.readRange(file, start, end);
      streamed = true;
      return sendStream(c, range ? 206 : 200, headers, body);
    } finally {
      if (!streamed) await file.close();
    }
  });
  app.delete(`${FS}/files/*`, async (c) => {
    await volumes.deleteFile(filePath(c));
    return c.body(null, 204);
  });

  app.put(`${FS}/directories/*`, async (c) => {
    await volumes.createDirectory(dirPath(c));
    return c.body(null, 204);
  });
  app.on('HEAD', `${FS}/directories/*`, async (c) => {
    await volumes.headDirectory(dirPath(c));
    return c.body(null, 200);
  });
  app.get(`${FS}/directories/*`, async (c) => {
    const q = readQuery(c, s.ListDirectoryContentsRequest);
    return c.json(await volumes.list(dirPath(c), q.page_size, q.page_token));
  });
  app.delete(`${FS}/directories/*`, async (c) => {
    await volumes.deleteDirectory(dirPath(c));
    return c.body(null, 204);
  });

  return app;
}
