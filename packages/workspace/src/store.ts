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
import type { OwnedEntry, OwnedObjectType } from './owned.js';
import { baseName, parentOf } from './paths.js';

/** The workspace's own object types: their bytes live under the root folder. */
export type BuiltinType = 'NOTEBOOK' | 'FILE' | 'DIRECTORY';
/** A builtin type, or one another service owns (`DASHBOARD`, `MLFLOW_EXPERIMENT`; see owned.ts). */
export type ObjectType = BuiltinType | (string & {});
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
  /** An owned object's id in its service (a dashboard id): its ObjectInfo.resource_id. */
  resource_id?: string;
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

/** What an import writes: a notebook (its language and stored format), a file or an owned object. */
interface WriteOptions {
  type: 'NOTEBOOK' | 'FILE' | (string & {});
  language?: Language | undefined;
  format?: NotebookFormat | undefined;
  onExists: (p: string, existing: ObjectRecord) => Error;
}

export class WorkspaceStore extends CollectionStore {
  private readonly objects: Collection<ObjectRecord>;
  /** Told about every object a delete removes (the service drops its ACL in iam). */
  onDeleted?: (type: ObjectType, objectId: string) => void;
  /** Where a failed owner hook is reported (the owner's `deleted` runs after the answer is decided). */
  onOwnerError?: (type: string, e: unknown) => void;
  /** Object types other services own (see owned.ts), by type. */
  private readonly owners = new Map<string, OwnedObjectType>();
  private readonly root: string;
  private readonly tmp: string;

  private readonly clock: Clock;
  private readonly userName: string;
  /**
   * Serializes what changes the tree (mkdirs, delete, the last step of an import): each checks the records,
   * then changes the records and the disk, and a delete of a parent in between left a record without its
   * folder or failed the rename (a 500).
   */
  private readonly namespace = new Mutex();

  constructor(
    db: StateDb,
    opts: { clock: Clock; userName: string; /** The service's folder. */ dir: string },
  ) {
    super('workspace', 1, db);
    this.clock = opts.clock;
    this.userName = opts.userName;
    this.objects = this.collection('objects');
    this.root = path.join(opts.dir, 'root');
    this.tmp = path.join(opts.dir, 'tmp');
    mkdirSync(this.root, { recursive: true });
    mkdirSync(this.tmp, { recursive: true });
    this.ensureDefaults();
  }

  private get defaultDirs(): string[] {
    return ['/', '/Users', `/Users/${this.userName}`, '/Shared'];
  }

  /** `/`, `/Users`, `/Users/<me>` and `/Shared` exist from the start, as in a new workspace. */
  private ensureDefaults(): void {
    for (const p of this.defaultDirs) {
      if (!this.objects.has(p)) this.objects.set(p, this.newRecord(p, 'DIRECTORY'));
      mkdirSync(path.join(this.root, ...p.split('/').filter(Boolean)), { recursive: true });
    }
  }

  /** The same, without blocking the event loop (reset). */
  private async restoreDefaults(): Promise<void> {
    for (const p of this.defaultDirs) {
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
      resource_id: r.resource_id ?? String(r.object_id),
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
    const removed = await this.namespace.run(() => this.remove(p, recursive));
    await this.tellOwners(removed);
  }

  /** Calls each owner's `deleted` for its entries a workspace client removed (outside the tree's lock). */
  private async tellOwners(removed: ObjectRecord[]): Promise<void> {
    for (const r of removed) {
      const owner = r.resource_id !== undefined ? this.owners.get(r.object_type) : undefined;
      if (!owner?.deleted) continue;
      try {
        await owner.deleted(r.resource_id!, r.path);
      } catch (e) {
        this.onOwnerError?.(r.object_type, e);
      }
    }
  }

  private async remove(p: string, recursive: boolean): Promise<ObjectRecord[]> {
    const r = this.get(p);
    if (p === '/') throw directoryNotEmpty(p);
    // /Users, /Shared and the caller's home are system folders: Databricks never lets them be deleted,
    // even recursively by an admin (a recursive delete of /Users would wipe every home folder).
    if (this.defaultDirs.includes(p)) throw systemFolder(p);
    if (r.object_type === 'DIRECTORY' && !recursive && this.children(p).length > 0)
      throw directoryNotEmpty(p);
    const disk = await this.diskPath(p);
    const prefix = `${p}/`;
    const removed: ObjectRecord[] = [];
    for (const [k, o] of this.objects.entries()) {
      if (k !== p && !k.startsWith(prefix)) continue;
      this.objects.delete(k);
      removed.push(o);
      this.onDeleted?.(o.object_type, String(o.object_id));
    }
    await rm(disk, { recursive: true, force: true });
    return removed;
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
    type: 'NOTEBOOK' | 'FILE' | (string & {});
    language?: Language;
    format?: NotebookFormat;
    content: Spooled;
  }> {
    const name = baseName(req.path);
    if (req.format === 'AUTO') {
      const owned = this.ownedTypeFor(name);
      if (owned) return { path: req.path, type: owned, content };
    }
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

  /** The owned type whose import suffix ends `name`, when its owner imports such files. */
  private ownedTypeFor(name: string): string | undefined {
    const lower = name.toLowerCase();
    for (const [type, o] of this.owners)
      if (
        o.importSuffix &&
        o.import &&
        lower.endsWith(o.importSuffix.toLowerCase()) &&
        lower !== o.importSuffix
      )
        return type;
    return undefined;
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

  /**
   * Moves an import's spooled bytes to `p` and records it, under the namespace lock; an owned object it
   * replaces by something else is reported to its owner afterwards.
   */
  private async write(p: string, content: Spooled, overwrite: boolean, opts: WriteOptions): Promise<void> {
    const replaced = await this.namespace.run(() => this.place(p, content, overwrite, opts));
    if (replaced) await this.tellOwners([replaced]);
  }

  private async place(
    p: string,
    content: Spooled,
    overwrite: boolean,
    opts: WriteOptions,
  ): Promise<ObjectRecord | undefined> {
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
    const owner = this.owners.get(opts.type);
    if (owner?.import) {
      // The owner keeps the content; the tree keeps the entry (and no bytes of its own).
      const same = existing?.object_type === opts.type ? existing.resource_id : undefined;
      record.resource_id = await owner.import(p, await readFile(content.tmp), same);
      delete record.size;
      this.objects.set(p, record);
      if (existing && existing.resource_id === undefined) await rm(disk, { force: true });
    } else {
      this.objects.set(p, record);
      await rename(content.tmp, disk);
    }
    // An owned object replaced by another object (or another of its kind) is no longer its owner's entry.
    return existing?.resource_id !== undefined && existing.resource_id !== record.resource_id
      ? existing
      : undefined;
  }

  // ---- owned objects (owned.ts) -------------------------------------------------------------------------

  /** Registers the owner of an object type (one owner per type). */
  registerOwnedType(type: string, owner: OwnedObjectType): void {
    if (['NOTEBOOK', 'FILE', 'DIRECTORY'].includes(type) || this.owners.has(type))
      throw new Error(`workspace object type ${type} already has an owner`);
    this.owners.set(type, owner);
  }

  /**
   * Places an owned object's entry at `p`: 404 when the parent folder is missing, 409 when something else is
   * there (unless `overwrite`, which never replaces a folder); the same object already there is refreshed.
   */
  async putOwned(p: string, entry: OwnedEntry, overwrite = false): Promise<ObjectInfo> {
    const { info, replaced } = await this.namespace.run(async () => {
      const existing = this.placeable(p, overwrite, entry);
      if (existing && existing.resource_id === undefined) await rm(await this.diskPath(p), { force: true });
      const now = this.clock.now();
      const record: ObjectRecord = {
        path: p,
        object_type: entry.type,
        object_id: existing?.object_id ?? numericId(),
        created_at: existing?.created_at ?? now,
        modified_at: now,
        resource_id: entry.resourceId,
      };
      this.objects.set(p, record);
      const same = existing?.resource_id === entry.resourceId && existing.object_type === entry.type;
      return { info: this.info(record), replaced: existing && !same ? existing : undefined };
    });
    if (replaced?.resource_id !== undefined) await this.tellOwners([replaced]);
    else if (replaced) this.onDeleted?.(replaced.object_type, String(replaced.object_id));
    return info;
  }

  /** Moves an owned object's entry (a rename): the object id stays; 404/409 as putOwned. */
  async moveOwned(from: string, to: string, entry: OwnedEntry): Promise<ObjectInfo> {
    if (from === to) return this.putOwned(to, entry, false);
    return this.namespace.run(async () => {
      const current = this.objects.get(from);
      this.placeable(to, false, entry);
      const now = this.clock.now();
      const record: ObjectRecord = {
        path: to,
        object_type: entry.type,
        object_id: current?.resource_id === entry.resourceId ? current.object_id : numericId(),
        created_at: current?.resource_id === entry.resourceId ? current.created_at : now,
        modified_at: now,
        resource_id: entry.resourceId,
      };
      if (current?.resource_id === entry.resourceId) this.objects.delete(from);
      this.objects.set(to, record);
      return this.info(record);
    });
  }

  /** Removes an owned object's entry when `p` still holds that object (a no-op otherwise). */
  async removeOwned(p: string, entry: OwnedEntry): Promise<void> {
    await this.namespace.run(async () => {
      const r = this.objects.get(p);
      if (r?.object_type === entry.type && r.resource_id === entry.resourceId) {
        this.objects.delete(p);
        this.onDeleted?.(r.object_type, String(r.object_id));
      }
    });
  }

  /** The checks before an owned entry goes to `p`; returns what is there (to be replaced or refreshed). */
  private placeable(p: string, overwrite: boolean, entry: OwnedEntry): ObjectRecord | undefined {
    if (p === '/') throw isDirectory(p);
    const parent = this.objects.get(parentOf(p));
    if (!parent) throw parentNotFound(parentOf(p));
    if (parent.object_type !== 'DIRECTORY') throw notADirectory(p);
    const existing = this.objects.get(p);
    if (existing?.object_type === 'DIRECTORY') throw isDirectory(p);
    const same = existing?.object_type === entry.type && existing.resource_id === entry.resourceId;
    if (existing && !same && !overwrite) throw pathExists(p);
    return existing;
  }

  /** GET /api/2.0/workspace/export. */
  async export(p: string, format: ExportFormat): Promise<Exported> {
    const r = this.get(p);
    if (r.object_type === 'DIRECTORY')
      throw conversionNotImplemented(`Exporting a directory (${format} archive)`);
    if (r.resource_id !== undefined) {
      const owner = this.owners.get(r.object_type);
      if (!owner?.export || !['SOURCE', 'AUTO', 'RAW'].includes(format))
        throw conversionNotImplemented(`Exporting a ${r.object_type} in the ${format} format`);
      return owner.export(r.resource_id);
    }
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
