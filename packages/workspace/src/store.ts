/**
 * The workspace tree. Metadata (object type, language, format, ids, times) lives in a collection keyed by the
 * canonical path; bytes live as real files under `<dataDir>/workspace/root/<path>` (directories are real
 * directories), written to a temp name and renamed so a reader or a concurrent writer never sees half a file.
 */
import { createReadStream, createWriteStream, mkdirSync } from 'node:fs';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  CollectionStore,
  Mutex,
  numericId,
  resolveUnderReal,
  uuid,
  type Clock,
  type Collection,
  type StateDb,
} from '@minilake/core';
import {
  conversionNotImplemented,
  directoryNotEmpty,
  systemFolder,
  fileExists,
  isDirectory,
  languageRequired,
  notADirectory,
  notebookExists,
  parentNotFound,
  pathExists,
  pathNotFound,
} from './errors.js';
import {
  detectSourceNotebook,
  extensionOf,
  jupyterLanguage,
  jupyterToSource,
  normalizeSource,
  parseJupyter,
  sourceToJupyter,
  type Language,
  type NotebookFormat,
} from './notebooks.js';
import { baseName, parentOf } from './paths.js';

export type ObjectType = 'NOTEBOOK' | 'FILE' | 'DIRECTORY';
export type ImportFormat = 'SOURCE' | 'AUTO' | 'JUPYTER' | 'RAW' | 'HTML' | 'DBC' | 'R_MARKDOWN';
export type ExportFormat = 'SOURCE' | 'AUTO' | 'JUPYTER' | 'RAW' | 'HTML' | 'DBC' | 'R_MARKDOWN';

interface ObjectRecord {
  path: string;
  object_type: ObjectType;
  object_id: number;
  created_at: number;
  modified_at: number;
  size?: number;
  language?: Language;
  /** How a notebook's bytes are kept on disk: the format it was imported in. */
  notebook_format?: NotebookFormat;
}

export interface ObjectInfo {
  object_type: ObjectType;
  path: string;
  object_id: number;
  resource_id: string;
  created_at: number;
  modified_at: number;
  language?: Language;
  size?: number;
}

export interface ImportRequest {
  path: string;
  format: ImportFormat;
  language?: Language | undefined;
  overwrite: boolean;
}

/**
 * An import's bytes, already streamed to a temp file from `WorkspaceStore.tempPath()`. The store moves it
 * into place (or replaces it); the caller removes it afterwards whatever happened (a no-op once moved).
 */
export interface Spooled {
  tmp: string;
  size: number;
}

/** Enough of the start of a file to tell a notebook header (see detectSourceNotebook, normalizeSource). */
const HEAD_BYTES = 256;

async function readHead(file: string): Promise<Buffer> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

export interface Exported {
  content: Buffer;
  file_type: string;
}

/** What an import writes: a notebook (its language and stored format) or a file, and its conflict error. */
interface WriteOptions {
  type: 'NOTEBOOK' | 'FILE';
  language?: Language | undefined;
  format?: NotebookFormat | undefined;
  onExists: (p: string, existing: ObjectRecord) => Error;
}

/** A userName usable as one path segment (SCIM accepts names a path could not hold: those get no home). */
const validHomeName = (u: string) =>
  u !== '' && u !== '.' && u !== '..' && !/[/\\\0]/.test(u) && Buffer.byteLength(u) <= 255;

export class WorkspaceStore extends CollectionStore {
  private readonly objects: Collection<ObjectRecord>;
  /** Told about every object a delete removes (the service drops its ACL in iam). */
  onDeleted?: (type: ObjectType, objectId: string) => void;
  private readonly root: string;
  private readonly tmp: string;

  private readonly clock: Clock;
  private readonly userName: string;
  /** Every workspace user's userName (iam's SCIM users), each with a home folder; undefined: only ours. */
  private readonly users: (() => string[]) | undefined;
  /**
   * Serializes what changes the tree (mkdirs, delete, the last step of an import): each checks the records,
   * then changes the records and the disk, and a delete of a parent in between left a record without its
   * folder or failed the rename (a 500).
   */
  private readonly namespace = new Mutex();

  constructor(
    db: StateDb,
    opts: {
      clock: Clock;
      userName: string;
      /** The service's folder. */ dir: string;
      /** The workspace's users (SCIM): each has a home folder, as on Databricks. */
      users?: () => string[];
    },
  ) {
    super('workspace', 1, db);
    this.clock = opts.clock;
    this.userName = opts.userName;
    this.users = opts.users;
    this.objects = this.collection('objects');
    this.root = path.join(opts.dir, 'root');
    this.tmp = path.join(opts.dir, 'tmp');
    mkdirSync(this.root, { recursive: true });
    mkdirSync(this.tmp, { recursive: true });
    this.ensureDefaults();
  }

  private get defaultDirs(): string[] {
    const homes = new Set([this.userName, ...(this.users?.() ?? [])].filter(validHomeName));
    return ['/', '/Users', ...[...homes].map((u) => `/Users/${u}`), '/Shared'];
  }

  /** The home folders of every user (after a reset, once the users are what they now are). */
  ensureHomes(): void {
    for (const u of this.users?.() ?? []) this.ensureHome(u);
  }

  /**
   * A user created through SCIM gets a home folder `/Users/<userName>` at once, as Databricks creates it (the
   * record first, synchronously, so the request that created the user is journaled with it).
   */
  ensureHome(userName: string): void {
    if (!validHomeName(userName)) return;
    const p = `/Users/${userName}`;
    if (this.objects.has(p)) return;
    mkdirSync(path.join(this.root, 'Users', userName), { recursive: true });
    this.objects.set(p, this.newRecord(p, 'DIRECTORY'));
  }

  /** `/`, `/Users`, `/Users/<me>` and `/Shared` exist from the start, as in a new workspace. */
  private ensureDefaults(): void {
    for (const p of this.defaultDirs) {
      if (!this.objects.has(p)) this.objects.set(p, this.newRecord(p, 'DIRECTORY'));
      mkdirSync(path.join(this.root, ...p.split('/').filter(Boolean)), { recursive: true });
    }
  }

  /** The same, without blocking the event loop (reset): the caller's own folders (users' homes: ensureHomes). */
  private async restoreDefaults(): Promise<void> {
    for (const p of ['/', '/Users', `/Users/${this.userName}`, '/Shared']) {
      await mkdir(path.join(this.root, ...p.split('/').filter(Boolean)), { recursive: true });
      if (!this.objects.has(p)) this.objects.set(p, this.newRecord(p, 'DIRECTORY'));
    }
  }

  protected override async onReset(): Promise<void> {
    await rm(this.root, { recursive: true, force: true });
    await this.restoreDefaults();
  }

  private newRecord(p: string, type: ObjectType): ObjectRecord {
    const now = this.clock.now();
    return { path: p, object_type: type, object_id: numericId(), created_at: now, modified_at: now };
  }

  private diskPath(p: string): Promise<string> {
    return resolveUnderReal(this.root, p);
  }

  private info(r: ObjectRecord): ObjectInfo {
    const out: ObjectInfo = {
      object_type: r.object_type,
      path: r.path,
      object_id: r.object_id,
      resource_id: String(r.object_id),
      created_at: r.created_at,
      modified_at: r.modified_at,
    };
    if (r.language) out.language = r.language;
    if (r.size !== undefined) out.size = r.size;
    return out;
  }

  private get(p: string): ObjectRecord {
    const r = this.objects.get(p);
    if (!r) throw pathNotFound(p);
    return r;
  }

  /** True when an object of that type has that id (`0` is the root folder, as on Databricks). */
  hasObject(type: ObjectType, objectId: string): boolean {
    if (type === 'DIRECTORY' && objectId === '0') return true;
    for (const r of this.objects.values())
      if (r.object_type === type && String(r.object_id) === objectId) return true;
    return false;
  }

  getStatus(p: string): ObjectInfo {
    return this.info(this.get(p));
  }

  private children(p: string): ObjectRecord[] {
    const prefix = p === '/' ? '/' : `${p}/`;
    const out: ObjectRecord[] = [];
    for (const [k, r] of this.objects.entries()) {
      if (k !== p && k.startsWith(prefix) && !k.slice(prefix.length).includes('/')) out.push(r);
    }
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  list(p: string, modifiedAfter?: number): ObjectInfo[] {
    const r = this.get(p);
    const items = r.object_type === 'DIRECTORY' ? this.children(p) : [r];
    return items
      .filter(
        (o) => modifiedAfter === undefined || o.object_type !== 'NOTEBOOK' || o.modified_at > modifiedAfter,
      )
      .map((o) => this.info(o));
  }

  async mkdirs(p: string): Promise<void> {
    return this.namespace.run(() => this.makeDirs(p));
  }

  private async makeDirs(p: string): Promise<void> {
    const segments = p.split('/').filter(Boolean);
    let current = '';
    const created: string[] = [];
    for (const s of segments) {
      current += `/${s}`;
      const r = this.objects.get(current);
      if (!r) created.push(current);
      else if (r.object_type !== 'DIRECTORY') throw notADirectory(p);
    }
    if (created.length === 0) return;
    await mkdir(await this.diskPath(p), { recursive: true });
    for (const c of created) if (!this.objects.has(c)) this.objects.set(c, this.newRecord(c, 'DIRECTORY'));
  }

  async delete(p: string, recursive: boolean): Promise<void> {
    return this.namespace.run(() => this.remove(p, recursive));
  }

  private async remove(p: string, recursive: boolean): Promise<void> {
    const r = this.get(p);
    if (p === '/') throw directoryNotEmpty(p);
    // /Users, /Shared and the caller's home are system folders: Databricks never lets them be deleted,
    // even recursively by an admin (a recursive delete of /Users would wipe every home folder).
    if (this.defaultDirs.includes(p)) throw systemFolder(p);
    if (r.object_type === 'DIRECTORY' && !recursive && this.children(p).length > 0)
      throw directoryNotEmpty(p);
    const disk = await this.diskPath(p);
    const prefix = `${p}/`;
    for (const [k, o] of this.objects.entries()) {
      if (k !== p && !k.startsWith(prefix)) continue;
      this.objects.delete(k);
      this.onDeleted?.(o.object_type, String(o.object_id));
    }
    await rm(disk, { recursive: true, force: true });
  }

  /** A temp file for an import's bytes (see Spooled). */
  tempPath(): string {
    return path.join(this.tmp, uuid());
  }

  /**
   * Decides what an import creates: a notebook (with its language and stored format) or a file. Only the
   * head of the bytes is read, except for Jupyter, whose JSON must be parsed whole (it is a notebook).
   */
  private async classify(
    req: ImportRequest,
    content: Spooled,
  ): Promise<{
    path: string;
    type: 'NOTEBOOK' | 'FILE';
    language?: Language;
    format?: NotebookFormat;
    content: Spooled;
  }> {
    const name = baseName(req.path);
    switch (req.format) {
      case 'RAW':
        return { path: req.path, type: 'FILE', content };
      case 'SOURCE': {
        if (!req.language) throw languageRequired();
        return {
          path: req.path,
          type: 'NOTEBOOK',
          language: req.language,
          format: 'SOURCE',
          content: await this.withHeader(req.language, content),
        };
      }
      case 'JUPYTER': {
        const nb = parseJupyter(await readFile(content.tmp));
        const stripped = name.toLowerCase().endsWith('.ipynb')
          ? req.path.slice(0, -'.ipynb'.length)
          : req.path;
        return {
          path: stripped,
          type: 'NOTEBOOK',
          language: jupyterLanguage(nb),
          format: 'JUPYTER',
          content,
        };
      }
      case 'AUTO': {
        const lang = detectSourceNotebook(name, await readHead(content.tmp));
        if (lang) {
          const stripped = req.path.slice(0, req.path.lastIndexOf('.'));
          return { path: stripped, type: 'NOTEBOOK', language: lang, format: 'SOURCE', content };
        }
        if (name.toLowerCase().endsWith('.ipynb'))
          return this.classify({ ...req, format: 'JUPYTER' }, content);
        return { path: req.path, type: 'FILE', content };
      }
      default:
        throw conversionNotImplemented(`Importing the ${req.format} format`);
    }
  }

  /** SOURCE bytes with the notebook header line (normalizeSource), copied through a stream when added. */
  private async withHeader(lang: Language, content: Spooled): Promise<Spooled> {
    const head = await readHead(content.tmp);
    const normalized = normalizeSource(lang, head);
    if (normalized === head) return content;
    const added = normalized.length - head.length;
    const tmp = this.tempPath();
    try {
      const out = createWriteStream(tmp, { flags: 'wx' });
      out.write(normalized.subarray(0, added));
      await pipeline(createReadStream(content.tmp), out);
    } catch (e) {
      await rm(tmp, { force: true });
      throw e;
    }
    await rm(content.tmp, { force: true });
    return { tmp, size: content.size + added };
  }

  /** POST /api/2.0/workspace/import. */
  async import(req: ImportRequest, content: Spooled): Promise<void> {
    const target = await this.classify(req, content);
    try {
      await this.write(target.path, target.content, req.overwrite, {
        type: target.type,
        language: target.language,
        format: target.format,
        onExists: (p) => pathExists(p),
      });
    } finally {
      if (target.content.tmp !== content.tmp) await rm(target.content.tmp, { force: true });
    }
  }

  /**
   * POST /api/2.0/workspace-files/import-file/{path}: a raw body; a `.py`/`.sql`/`.scala`/`.r` file with a
   * notebook header, or an `.ipynb`, becomes a notebook without its extension (as Databricks does).
   */
  async importFile(p: string, content: Spooled, overwrite: boolean): Promise<void> {
    const target = await this.classify({ path: p, format: 'AUTO', overwrite }, content);
    await this.write(target.path, target.content, overwrite, {
      type: target.type,
      language: target.language,
      format: target.format,
      onExists: (q, existing) => (existing.object_type === 'NOTEBOOK' ? notebookExists(q) : fileExists(q)),
    });
  }

  /** Moves an import's spooled bytes to `p` and records it, under the namespace lock. */
  private write(p: string, content: Spooled, overwrite: boolean, opts: WriteOptions): Promise<void> {
    return this.namespace.run(() => this.place(p, content, overwrite, opts));
  }

  private async place(p: string, content: Spooled, overwrite: boolean, opts: WriteOptions): Promise<void> {
    if (p === '/') throw isDirectory(p);
    const parent = parentOf(p);
    const check = () => {
      const parentRecord = this.objects.get(parent);
      if (!parentRecord) throw parentNotFound(parent);
      if (parentRecord.object_type !== 'DIRECTORY') throw notADirectory(p);
      const existing = this.objects.get(p);
      if (existing?.object_type === 'DIRECTORY') throw isDirectory(p);
      if (existing && !overwrite) throw opts.onExists(p, existing);
      return existing;
    };
    check();
    const disk = await this.diskPath(p);
    const existing = check(); // again, after the await
    const now = this.clock.now();
    const record: ObjectRecord = {
      path: p,
      object_type: opts.type,
      object_id: existing?.object_id ?? numericId(),
      created_at: existing?.created_at ?? now,
      modified_at: now,
      size: content.size,
    };
    if (opts.language) record.language = opts.language;
    if (opts.format) record.notebook_format = opts.format;
    this.objects.set(p, record);
    await rename(content.tmp, disk);
  }

  /** GET /api/2.0/workspace/export. */
  async export(p: string, format: ExportFormat): Promise<Exported> {
    const r = this.get(p);
    if (r.object_type === 'DIRECTORY')
      throw conversionNotImplemented(`Exporting a directory (${format} archive)`);
    const bytes = await readFile(await this.diskPath(p)).catch((e: unknown) => {
      // Deleted after its record was read: as if the delete had come first.
      throw (e as NodeJS.ErrnoException).code === 'ENOENT' ? pathNotFound(p) : e;
    });
    if (r.object_type === 'FILE') {
      if (format === 'SOURCE' || format === 'AUTO' || format === 'RAW') {
        const dot = baseName(p).lastIndexOf('.');
        return { content: bytes, file_type: dot > 0 ? baseName(p).slice(dot + 1) : '' };
      }
      throw conversionNotImplemented(`Exporting a file in the ${format} format`);
    }
    const lang = r.language ?? 'PYTHON';
    const stored = r.notebook_format ?? 'SOURCE';
    const wanted = format === 'AUTO' ? stored : format;
    if (wanted === 'SOURCE' || (wanted === 'RAW' && stored === 'SOURCE')) {
      return {
        content: stored === 'SOURCE' ? bytes : jupyterToSource(lang, bytes),
        file_type: extensionOf[lang],
      };
    }
    if (wanted === 'JUPYTER' || (wanted === 'RAW' && stored === 'JUPYTER')) {
      return {
        content: stored === 'JUPYTER' ? bytes : sourceToJupyter(lang, baseName(p), bytes),
        file_type: 'ipynb',
      };
    }
    throw conversionNotImplemented(`Exporting a notebook in the ${format} format`);
  }
}
