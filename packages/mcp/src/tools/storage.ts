/** Workspace objects, the Files API (volumes) and DBFS: text or base64 content in, the same out. */
import * as z from 'zod';
import { compact, encodePath } from '../rest.js';
import { anyList, anyObject, DESTROY, DESTROY_ONCE, READ, tool, UPDATE } from './define.js';

const WS = '/api/2.0/workspace';
const FS = '/api/2.0/fs';
const DBFS = '/api/2.0/dbfs';

const encoding = z
  .enum(['text', 'base64'])
  .optional()
  .describe('how content is given: text (UTF-8, default) or base64 (binary)');
const toBase64 = (content: string, enc?: 'text' | 'base64') =>
  enc === 'base64' ? content : Buffer.from(content, 'utf8').toString('base64');
const toBytes = (content: string, enc?: 'text' | 'base64') =>
  Buffer.from(content, enc === 'base64' ? 'base64' : 'utf8');

/** Bytes as text when they are valid UTF-8, else base64. */
function fromBytes(bytes: Buffer): { content: string; encoding: 'text' | 'base64' } {
  const text = bytes.toString('utf8');
  return Buffer.from(text, 'utf8').equals(bytes)
    ? { content: text, encoding: 'text' }
    : { content: bytes.toString('base64'), encoding: 'base64' };
}

const contentOut = {
  path: z.string(),
  content: z.string().describe('the bytes, as text or base64 (see encoding)'),
  encoding: z.enum(['text', 'base64']),
  size: z.number().describe('bytes'),
};

export const workspaceTools = [
  tool({
    name: 'put_workspace_file',
    title: 'Put workspace file',
    description:
      'Writes a workspace object (workspace/import). format AUTO (default) makes a .py/.sql file starting with its notebook header a notebook, anything else a file; SOURCE needs a language.',
    needs: ['workspace'],
    input: {
      path: z.string().describe('absolute workspace path, e.g. /Users/me/etl.py'),
      content: z.string().describe('file content'),
      encoding,
      format: z
        .enum(['AUTO', 'SOURCE', 'JUPYTER', 'RAW'])
        .optional()
        .describe('import format (default AUTO)'),
      language: z.enum(['PYTHON', 'SQL', 'SCALA', 'R']).optional().describe('notebook language for SOURCE'),
      overwrite: z.boolean().optional().describe('replace an existing object (default true)'),
    },
    output: { path: z.string(), object: anyObject.describe('ObjectInfo after the write') },
    hints: DESTROY,
    async run(a, { rest }) {
      await rest.post(
        `${WS}/import`,
        compact({
          path: a.path,
          content: toBase64(a.content, a.encoding),
          format: a.format ?? 'AUTO',
          language: a.language,
          overwrite: a.overwrite ?? true,
        }),
      );
      return { path: a.path, object: await rest.get(`${WS}/get-status`, { path: a.path }) };
    },
  }),
  tool({
    name: 'get_workspace_file',
    title: 'Get workspace file',
    description: 'Reads a workspace file or notebook (workspace/export, SOURCE format).',
    needs: ['workspace'],
    input: { path: z.string().describe('absolute workspace path') },
    output: contentOut,
    hints: READ,
    async run({ path }, { rest }) {
      const r = await rest.get<{ content?: string }>(`${WS}/export`, { path, format: 'SOURCE' });
      const bytes = Buffer.from(r.content ?? '', 'base64');
      return { path, ...fromBytes(bytes), size: bytes.length };
    },
  }),
  tool({
    name: 'list_workspace',
    title: 'List workspace',
    description: 'The objects in a workspace folder (notebooks, files, folders).',
    needs: ['workspace'],
    input: { path: z.string().describe('folder path, e.g. / or /Users/me') },
    output: { objects: anyList('ObjectInfo records') },
    hints: READ,
    async run({ path }, { rest }) {
      const r = await rest.get<{ objects?: unknown[] }>(`${WS}/list`, { path });
      return { objects: r.objects ?? [] };
    },
  }),
  tool({
    name: 'get_workspace_status',
    title: 'Get workspace status',
    description: 'One workspace object: type, language, size, id.',
    needs: ['workspace'],
    input: { path: z.string().describe('absolute workspace path') },
    output: { object: anyObject.describe('ObjectInfo') },
    hints: READ,
    run: async ({ path }, { rest }) => ({ object: await rest.get(`${WS}/get-status`, { path }) }),
  }),
  tool({
    name: 'make_workspace_dirs',
    title: 'Make workspace folders',
    description: 'Creates a workspace folder and its parents (mkdir -p).',
    needs: ['workspace'],
    input: { path: z.string().describe('folder path') },
    output: { path: z.string(), created: z.boolean() },
    hints: UPDATE,
    async run({ path }, { rest }) {
      await rest.post(`${WS}/mkdirs`, { path });
      return { path, created: true };
    },
  }),
  tool({
    name: 'delete_workspace_object',
    title: 'Delete workspace object',
    description: 'Deletes a notebook, file or folder (a non-empty folder needs recursive).',
    needs: ['workspace'],
    input: {
      path: z.string().describe('absolute workspace path'),
      recursive: z.boolean().optional().describe('delete a folder with its contents (default false)'),
    },
    output: { path: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ path, recursive }, { rest }) {
      await rest.post(`${WS}/delete`, compact({ path, recursive }));
      return { path, deleted: true };
    },
  }),
];

const volumePath = z.string().describe('absolute path in a volume, e.g. /Volumes/main/default/landing/a.csv');

export const filesTools = [
  tool({
    name: 'upload_file',
    title: 'Upload file',
    description: 'Writes a file into a volume (Files API PUT); SQL then reads it with read_csv/read_parquet.',
    needs: ['files'],
    input: {
      path: volumePath,
      content: z.string().describe('file content'),
      encoding,
      overwrite: z.boolean().optional().describe('replace an existing file (default true)'),
    },
    output: { path: z.string(), size: z.number().describe('bytes written') },
    hints: DESTROY,
    async run(a, { rest }) {
      const bytes = toBytes(a.content, a.encoding);
      await rest.raw('PUT', `${FS}/files${encodePath(a.path)}`, {
        query: { overwrite: a.overwrite ?? true },
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      return { path: a.path, size: bytes.length };
    },
  }),
  tool({
    name: 'download_file',
    title: 'Download file',
    description: 'Reads a file from a volume (text when it is UTF-8, else base64).',
    needs: ['files'],
    input: { path: volumePath },
    output: contentOut,
    hints: READ,
    async run({ path }, { rest }) {
      const res = await rest.raw('GET', `${FS}/files${encodePath(path)}`);
      const bytes = Buffer.from(await res.arrayBuffer());
      return { path, ...fromBytes(bytes), size: bytes.length };
    },
  }),
  tool({
    name: 'get_file_metadata',
    title: 'Get file metadata',
    description: 'Size, content type and last modification time of a volume file, without reading it.',
    needs: ['files'],
    input: { path: volumePath },
    output: {
      path: z.string(),
      size: z.number().optional(),
      content_type: z.string().optional(),
      last_modified: z.string().optional(),
    },
    hints: READ,
    async run({ path }, { rest }) {
      const res = await rest.raw('HEAD', `${FS}/files${encodePath(path)}`);
      const len = res.headers.get('content-length');
      return compact({
        path,
        size: len === null ? undefined : Number(len),
        content_type: res.headers.get('content-type') ?? undefined,
        last_modified: res.headers.get('last-modified') ?? undefined,
      });
    },
  }),
  tool({
    name: 'delete_file',
    title: 'Delete file',
    description: 'Deletes a file from a volume.',
    needs: ['files'],
    input: { path: volumePath },
    output: { path: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ path }, { rest }) {
      await rest.raw('DELETE', `${FS}/files${encodePath(path)}`);
      return { path, deleted: true };
    },
  }),
  tool({
    name: 'list_directory',
    title: 'List directory',
    description: 'The files and folders in a volume directory.',
    needs: ['files'],
    input: { path: z.string().describe('directory, e.g. /Volumes/main/default/landing') },
    output: {
      contents: anyList('DirectoryEntry records {path, is_directory, file_size, last_modified, name}'),
    },
    hints: READ,
    async run({ path }, { rest }) {
      const contents: unknown[] = [];
      let page_token: string | undefined;
      for (let i = 0; i < 1000; i++) {
        const r = await rest.get<{ contents?: unknown[]; next_page_token?: string }>(
          `${FS}/directories${encodePath(path)}`,
          { page_token },
        );
        contents.push(...(r.contents ?? []));
        page_token = r.next_page_token;
        if (!page_token) break;
      }
      return { contents };
    },
  }),
  tool({
    name: 'create_directory',
    title: 'Create directory',
    description: 'Creates a directory in a volume, with its parents (idempotent).',
    needs: ['files'],
    input: { path: z.string().describe('directory path in a volume') },
    output: { path: z.string(), created: z.boolean() },
    hints: UPDATE,
    async run({ path }, { rest }) {
      await rest.raw('PUT', `${FS}/directories${encodePath(path)}`);
      return { path, created: true };
    },
  }),
];

const dbfsPath = z.string().describe('DBFS path, e.g. dbfs:/tmp/data.csv or /tmp/data.csv');
const MiB = 1024 * 1024;

export const dbfsTools = [
  tool({
    name: 'dbfs_put',
    title: 'DBFS put',
    description:
      'Writes a DBFS file (up to 1 MiB per call through dbfs/put; larger content is streamed in blocks).',
    needs: ['files'],
    input: {
      path: dbfsPath,
      content: z.string().describe('file content'),
      encoding,
      overwrite: z.boolean().optional().describe('replace an existing file (default true)'),
    },
    output: { path: z.string(), size: z.number() },
    hints: DESTROY,
    async run(a, { rest }) {
      const bytes = toBytes(a.content, a.encoding);
      const overwrite = a.overwrite ?? true;
      if (bytes.length <= MiB) {
        await rest.post(`${DBFS}/put`, { path: a.path, contents: bytes.toString('base64'), overwrite });
      } else {
        const { handle } = await rest.post<{ handle: number }>(`${DBFS}/create`, { path: a.path, overwrite });
        for (let off = 0; off < bytes.length; off += MiB)
          await rest.post(`${DBFS}/add-block`, {
            handle,
            data: bytes.subarray(off, off + MiB).toString('base64'),
          });
        await rest.post(`${DBFS}/close`, { handle });
      }
      return { path: a.path, size: bytes.length };
    },
  }),
  tool({
    name: 'dbfs_read',
    title: 'DBFS read',
    description: 'Reads a DBFS file (text when it is UTF-8, else base64), optionally a byte range.',
    needs: ['files'],
    input: {
      path: dbfsPath,
      offset: z.number().int().min(0).optional().describe('first byte (default 0)'),
      length: z.number().int().min(1).optional().describe('bytes to read (default: to the end)'),
    },
    output: contentOut,
    hints: READ,
    async run({ path, offset, length }, { rest }) {
      const parts: Buffer[] = [];
      let pos = offset ?? 0;
      let left = length ?? Number.MAX_SAFE_INTEGER;
      while (left > 0) {
        const r = await rest.get<{ bytes_read?: number; data?: string }>(`${DBFS}/read`, {
          path,
          offset: pos,
          length: Math.min(left, MiB),
        });
        const chunk = Buffer.from(r.data ?? '', 'base64');
        if (chunk.length === 0) break;
        parts.push(chunk);
        pos += chunk.length;
        left -= chunk.length;
      }
      const bytes = Buffer.concat(parts);
      return { path, ...fromBytes(bytes), size: bytes.length };
    },
  }),
  tool({
    name: 'dbfs_list',
    title: 'DBFS list',
    description: 'The files and folders under a DBFS path.',
    needs: ['files'],
    input: { path: dbfsPath },
    output: { files: anyList('FileInfo records {path, is_dir, file_size, modification_time}') },
    hints: READ,
    async run({ path }, { rest }) {
      const r = await rest.get<{ files?: unknown[] }>(`${DBFS}/list`, { path });
      return { files: r.files ?? [] };
    },
  }),
  tool({
    name: 'dbfs_get_status',
    title: 'DBFS get status',
    description: 'One DBFS path: is it a folder, its size and modification time.',
    needs: ['files'],
    input: { path: dbfsPath },
    output: { file: anyObject.describe('FileInfo') },
    hints: READ,
    run: async ({ path }, { rest }) => ({ file: await rest.get(`${DBFS}/get-status`, { path }) }),
  }),
  tool({
    name: 'dbfs_delete',
    title: 'DBFS delete',
    description: 'Deletes a DBFS file or folder (a non-empty folder needs recursive).',
    needs: ['files'],
    input: { path: dbfsPath, recursive: z.boolean().optional().describe('default false') },
    output: { path: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ path, recursive }, { rest }) {
      await rest.post(`${DBFS}/delete`, compact({ path, recursive }));
      return { path, deleted: true };
    },
  }),
  tool({
    name: 'dbfs_mkdirs',
    title: 'DBFS mkdirs',
    description: 'Creates a DBFS folder with its parents.',
    needs: ['files'],
    input: { path: dbfsPath },
    output: { path: z.string(), created: z.boolean() },
    hints: UPDATE,
    async run({ path }, { rest }) {
      await rest.post(`${DBFS}/mkdirs`, { path });
      return { path, created: true };
    },
  }),
  tool({
    name: 'dbfs_move',
    title: 'DBFS move',
    description: 'Moves or renames a DBFS file or folder.',
    needs: ['files'],
    input: { source_path: dbfsPath, destination_path: dbfsPath },
    output: { source_path: z.string(), destination_path: z.string() },
    hints: DESTROY_ONCE,
    async run(a, { rest }) {
      await rest.post(`${DBFS}/move`, a);
      return a;
    },
  }),
];
