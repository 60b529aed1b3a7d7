/**
 * The workspace tree. Metadata (object type, language, format, ids, times) lives in a collection keyed by the
 * canonical path; bytes live as real files under `<dataDir>/workspace/root/<path>` (directories are real
 * directories), written to a temp name and renamed so a reader or a concurrent writer never sees half a file.
 */
import { mkdirSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import {
  alreadyExists,
  CollectionStore,
  DatabricksError,
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
  foreignInTheWay,
  notExportable,
  directoryNotEmpty,
  systemFolder,
  fileExists,
  isDirectory,
  notADirectory,
  notebookExists,
  parentNotFound,
  pathExists,
  pathNotFound,
} from './errors.js';
import {
  extensionOf,
  jupyterToSource,
  sourceToJupyter,
  type Language,
  type NotebookFormat,
} from './notebooks.js';
import { classify, type ImportRequest, type Spooled } from './imports.js';
import { baseName, parentOf } from './paths.js';
import { checkoutEntries, exists, repoFileKind } from './repo-files.js';

/** The types this store keeps bytes for; other services own further types (see ForeignObjectType). */
export type OwnType = 'NOTEBOOK' | 'FILE' | 'DIRECTORY';
/** `MLFLOW_EXPERIMENT` and other types a service registers: records here, the object itself there. */
export type ObjectType = OwnType | (string & {});
const OWN_TYPES: ReadonlySet<string> = new Set(['NOTEBOOK', 'FILE', 'DIRECTORY']);

/**
 * What the service owning a type of workspace object (an MLflow experiment) is told. The workspace keeps its
 * path (listed, moved and deleted with the tree); the owner keeps the object. A delete of the object or of a
 * folder above it removes the records first, then tells the owner, outside the tree's lock, so the owner may
 * call the workspace back.
 */
export interface ForeignObjectType {
  onDeleted(objects: { path: string; resourceId: string }[]): Promise<void> | void;
  /** Wording for errors, `an MLflow experiment`. */
  noun: string;
  /**
   * The `object_type` clients see, when it is not the type's own name: an alert's `.dbalert.json` is a FILE
   * on Databricks (the CLI's `bundle generate alert` exports it), while the tree still knows it as the
   * alert's entry (moved and deleted with the alert, nothing else replaces it).
   */
  objectType?: string;
  /**
   * Types whose content is a file (a Lakeview dashboard is its `.lvdash.json`): a file imported with a name
   * ending in this suffix through `workspace/import` (format AUTO) or `workspace-files/import-file` becomes
   * one of these objects, as on Databricks; the name keeps its suffix. Needs `import`.
   */
  importSuffix?: string;
  /**
   * Creates the object from imported bytes, or replaces the content of `existing` (the id of the object of
   * this type already at the path, when the import overwrites it); returns its id. Runs under the tree's lock:
   * it must not call the workspace back (the workspace records the entry itself). Throws a DatabricksError
   * for bytes that are not such an object.
   */
  import?(path: string, content: Buffer, existing: string | undefined): Promise<string> | string;
  /** The object's content for `workspace/export` (SOURCE, AUTO, RAW) and workspace-files reads. */
  export?(resourceId: string): Promise<{ content: Buffer; file_type: string }>;
}
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
  /** A Git folder (object_type REPO): a folder whose content the repos service checked out. */
  repo?: true;
  /** A foreign object's id in its owning service (an experiment id). */
  resource_id?: string;
  /** Who created it through this API (import, mkdirs): its default Can Manage owner (see ownerOf). */
  creator?: string;
}

export interface ObjectInfo {
  object_type: ObjectType | 'REPO';
  path: string;
  object_id: number;
  resource_id: string;
  created_at: number;
  modified_at: number;
  language?: Language;
  size?: number;
}

export interface Exported {
  content: Buffer;
  file_type: string;
}

/** What an import writes: a notebook (its language and stored format) or a file, and its conflict error. */
interface WriteOptions {
  /** NOTEBOOK, FILE, or a foreign type whose owner imports files (see ForeignObjectType.import). */
  type: 'NOTEBOOK' | 'FILE' | (string & {});
  language?: Language | undefined;
  format?: NotebookFormat | undefined;
  onExists: (p: string, existing: ObjectRecord) => Error;
}

/** A userName usable as one path segment (SCIM accepts names a path could not hold: those get no home). */
const validHomeName = (u: string) =>
  u !== '' && u !== '.' && u !== '..' && !/[/\\\0]/.test(u) && Buffer.byteLength(u) <= 255;

export class WorkspaceStore extends CollectionStore {
  private readonly objects: Collection<ObjectRecord>;
  /** Told when a delete removes a Git folder (the repos service forgets the repo). */
  onRepoDeleted?: (repoId: number) => void;
  /** Told about every object a delete removes (the service drops its ACL in iam). */
  onDeleted?: (type: ObjectType, objectId: string) => void;
  /** The caller creating objects (recorded as their creator); nobody when absent. */
  creator?: () => string;
  /**
   * Asked under the tree's lock before an import writes `p` (the final path, after a notebook's extension is
   * dropped): `existing` when it replaces an object. Throws to refuse (object permissions).
   */
  authorizeWrite?: (p: string, existing: boolean) => void;
  /** Object types other services own, by type name. */
  private readonly foreign = new Map<string, ForeignObjectType>();
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
      object_type: r.repo ? 'REPO' : (this.foreign.get(r.object_type)?.objectType ?? r.object_type),
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

  /** The record of an object by its type and id (`0`: the root folder), for iam's ACL hooks. */
  private byId(type: ObjectType, objectId: string): ObjectRecord | undefined {
    if (type === 'DIRECTORY' && objectId === '0') return this.objects.get('/');
    for (const r of this.objects.values())
      if (r.object_type === type && String(r.object_id) === objectId) return r;
    return undefined;
  }

  /**
   * Who owns an object by default: a home folder `/Users/<name>` is its user's (Databricks gives each user
   * Can Manage on their home folder, and everything in it inherits that); other objects are their creator's.
   */
  ownerOf(type: ObjectType, objectId: string): string | undefined {
    const r = this.byId(type, objectId);
    const m = r && type === 'DIRECTORY' ? /^\/Users\/([^/]+)$/.exec(r.path) : null;
    return m?.[1] ?? r?.creator;
  }

  /**
   * The object whose ACL governs `p`, for permission checks: a notebook, file or folder itself (a Git
   * folder as a folder), an object another service owns (an experiment) through its folder; undefined when
   * nothing is there.
   */
  aclOf(p: string): { type: OwnType; id: string } | undefined {
    const r = this.objects.get(p);
    if (!r) return undefined;
    if (OWN_TYPES.has(r.object_type))
      return { type: r.object_type as OwnType, id: p === '/' ? '0' : String(r.object_id) };
    return p === '/' ? undefined : this.aclOf(parentOf(p));
  }

  /** `p` itself or the nearest folder above it that exists. */
  nearestExisting(p: string): string {
    let at = p;
    while (at !== '/' && !this.objects.has(at)) at = parentOf(at);
    return at;
  }

  /** The id of the folder an object is in (its ACL is inherited from there); undefined for the root. */
  parentIdOf(type: ObjectType, objectId: string): string | undefined {
    const r = this.byId(type, objectId);
    if (!r || r.path === '/') return undefined;
    return this.folderId(parentOf(r.path));
  }

  /** The permissions API's id of the folder at `p` (`0` for the root), undefined when there is none. */
  folderId(p: string): string | undefined {
    if (p === '/') return '0';
    const r = this.objects.get(p);
    return r?.object_type === 'DIRECTORY' ? String(r.object_id) : undefined;
  }

  getStatus(p: string): ObjectInfo {
    return this.info(this.get(p));
  }

  /**
   * A notebook's export format as the CLI's filer reads it (`return_export_info=true`): SOURCE for a source
   * notebook, JUPYTER for one kept as .ipynb; nothing for other objects.
   */
  exportFormat(p: string): 'SOURCE' | 'JUPYTER' | undefined {
    const r = this.get(p);
    return r.object_type === 'NOTEBOOK' ? (r.notebook_format ?? 'SOURCE') : undefined;
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
    const creator = this.creator?.();
    for (const c of created)
      if (!this.objects.has(c))
        this.objects.set(c, { ...this.newRecord(c, 'DIRECTORY'), ...(creator ? { creator } : {}) });
  }

  async delete(p: string, recursive: boolean): Promise<void> {
    const removed = await this.namespace.run(() => this.remove(p, recursive));
    await this.notifyForeign(removed);
  }

  /** Tells each owner which of its objects a delete removed (after the lock: an owner may call back). */
  private async notifyForeign(removed: ObjectRecord[]): Promise<void> {
    const byType = new Map<string, { path: string; resourceId: string }[]>();
    for (const r of removed) {
      if (OWN_TYPES.has(r.object_type)) continue;
      let list = byType.get(r.object_type);
      if (!list) byType.set(r.object_type, (list = []));
      list.push({ path: r.path, resourceId: r.resource_id ?? String(r.object_id) });
    }
    for (const [type, objects] of byType) await this.foreign.get(type)?.onDeleted(objects);
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
      if (o.repo) this.onRepoDeleted?.(o.object_id);
    }
    await rm(disk, { recursive: true, force: true });
    return removed;
  }

  // ---- objects other services own (ForeignObjectType) ----

  registerForeignType(type: string, owner: ForeignObjectType): void {
    if (OWN_TYPES.has(type)) throw new Error(`Workspace object type ${type} belongs to the workspace`);
    this.foreign.set(type, owner);
  }

  private foreignOwner(type: string): ForeignObjectType {
    const owner = this.foreign.get(type);
    if (!owner) throw new Error(`Workspace object type ${type} is not registered`);
    return owner;
  }

  /** Throws the workspace's error when `p` cannot take a new object: no parent folder, or something there. */
  checkFree(p: string): void {
    if (p === '/') throw pathExists(p);
    const parentRecord = this.objects.get(parentOf(p));
    if (!parentRecord) throw parentNotFound(parentOf(p));
    if (parentRecord.object_type !== 'DIRECTORY') throw notADirectory(p);
    if (this.objects.has(p)) throw alreadyExists(`Node named '${baseName(p)}' already exists`);
  }

  /** Records a foreign object at `p` (see checkFree for the errors). */
  async addForeign(p: string, type: string, resourceId: string): Promise<ObjectInfo> {
    this.foreignOwner(type);
    return this.namespace.run(async () => {
      this.checkFree(p);
      const r: ObjectRecord = {
        ...this.newRecord(p, type),
        object_id: /^\d{1,15}$/.test(resourceId) ? Number(resourceId) : numericId(),
        resource_id: resourceId,
      };
      this.objects.set(p, r);
      return this.info(r);
    });
  }

  /** Moves a foreign object (an experiment renamed); the target must be free. */
  async moveForeign(from: string, to: string): Promise<void> {
    await this.namespace.run(async () => {
      const r = this.get(from);
      if (OWN_TYPES.has(r.object_type)) throw pathNotFound(from);
      if (from === to) return;
      this.checkFree(to);
      this.objects.delete(from);
      this.objects.set(to, { ...r, path: to, modified_at: this.clock.now() });
    });
  }

  /** Forgets a foreign object its owner deleted; no error when it is already gone. */
  async removeForeign(p: string, resourceId: string): Promise<void> {
    await this.namespace.run(async () => {
      const r = this.objects.get(p);
      if (r && !OWN_TYPES.has(r.object_type) && r.resource_id === resourceId) this.objects.delete(p);
    });
  }

  /** The foreign object of that type at `p`, if there is one. */
  foreignAt(p: string, type: string): ObjectInfo | undefined {
    const r = this.objects.get(p);
    return r && r.object_type === type ? this.info(r) : undefined;
  }

  // ---- Git folders (the repos service's checkouts, shown as REPO folders) ----

  /**
   * Makes `p` a Git folder holding a copy of `tree` (a checkout; `.git` is left out): its files are the
   * workspace's files, its notebooks (`.py`/`.sql`/`.scala`/`.r` with a notebook header, `.ipynb`) notebooks
   * named without their extension, as Databricks shows a repo. The folder's object_id is the repo's id. An
   * existing Git folder of the same repo is replaced whole (an update); anything else at `p` is a conflict.
   */
  async mountRepo(p: string, repoId: number, tree: string): Promise<ObjectInfo> {
    return this.namespace.run(async () => {
      const existing = this.objects.get(p);
      if (existing && !(existing.repo && existing.object_id === repoId)) throw pathExists(p);
      if (p === '/' || this.defaultDirs.includes(p)) throw pathExists(p);
      await this.makeDirs(parentOf(p));
      const parent = this.objects.get(parentOf(p));
      if (parent && parent.object_type !== 'DIRECTORY') throw notADirectory(p);
      const created = existing?.created_at;
      if (existing) await this.dropSubtree(p);
      const record: ObjectRecord = { ...this.newRecord(p, 'DIRECTORY'), object_id: repoId, repo: true };
      if (created !== undefined) record.created_at = created;
      const disk = await this.diskPath(p);
      await mkdir(disk, { recursive: true });
      this.objects.set(p, record);
      for (const entry of await checkoutEntries(tree)) {
        const rel = entry.rel.split(path.sep).join('/');
        if (entry.dir) {
          await mkdir(path.join(disk, ...rel.split('/')), { recursive: true });
          this.objects.set(`${p}/${rel}`, this.newRecord(`${p}/${rel}`, 'DIRECTORY'));
          continue;
        }
        const file = path.join(tree, entry.rel);
        const kind = await repoFileKind(path.basename(file), file);
        // A notebook loses its extension, unless that name is taken (Databricks refuses such a checkout;
        // here the file stays a file).
        const nbPath = kind ? `${p}/${rel.slice(0, rel.lastIndexOf('.'))}` : undefined;
        const asNotebook =
          kind &&
          nbPath &&
          !this.objects.has(nbPath) &&
          !(await exists(path.join(tree, ...nbPath.slice(p.length + 1).split('/'))));
        const target = asNotebook ? nbPath! : `${p}/${rel}`;
        const bytes = await readFile(file);
        await writeFile(path.join(disk, ...target.slice(p.length + 1).split('/')), bytes);
        const r: ObjectRecord = {
          ...this.newRecord(target, asNotebook ? 'NOTEBOOK' : 'FILE'),
          size: bytes.length,
        };
        if (asNotebook) {
          r.language = kind!.language;
          r.notebook_format = kind!.format;
        }
        this.objects.set(target, r);
      }
      return this.info(record);
    });
  }

  /** Removes the Git folder of `repoId` at `p` (the repo was deleted); nothing when something else is there. */
  async unmountRepo(p: string, repoId: number): Promise<void> {
    await this.namespace.run(async () => {
      const r = this.objects.get(p);
      if (!r?.repo || r.object_id !== repoId) return;
      await this.dropSubtree(p);
    });
  }

  /** Forgets a folder and everything under it, on disk too (no delete hooks: the owner asked for it). */
  private async dropSubtree(p: string): Promise<void> {
    const prefix = `${p}/`;
    const inside = [...this.objects.entries()].filter(([k]) => k === p || k.startsWith(prefix));
    for (const [k, o] of inside) {
      this.objects.delete(k);
      if (!o.repo) this.onDeleted?.(o.object_type, String(o.object_id));
    }
    await rm(await this.diskPath(p), { recursive: true, force: true });
  }

  /** A temp file for an import's bytes (see Spooled). */
  tempPath(): string {
    return path.join(this.tmp, uuid());
  }

  /** POST /api/2.0/workspace/import. */
  async import(req: ImportRequest, content: Spooled): Promise<void> {
    const target = await classify(req, content, this);
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
    const target = await classify({ path: p, format: 'AUTO', overwrite }, content, this);
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
      // A foreign object is replaced only by an import of its own kind (a dashboard's .lvdash.json).
      if (existing && !OWN_TYPES.has(existing.object_type) && existing.object_type !== opts.type)
        throw foreignInTheWay(p, this.noun(existing));
      if (existing && !overwrite) throw opts.onExists(p, existing);
      return existing;
    };
    this.authorizeWrite?.(p, check() !== undefined);
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
    const creator = existing ? existing.creator : this.creator?.();
    if (creator) record.creator = creator;
    const owner = OWN_TYPES.has(opts.type) ? undefined : this.foreign.get(opts.type);
    if (owner?.import) {
      // The owner keeps the content; the tree keeps the entry (and no bytes of its own).
      const same = existing?.object_type === opts.type ? existing.resource_id : undefined;
      record.resource_id = await owner.import(p, await readFile(content.tmp), same);
      delete record.size;
      this.objects.set(p, record);
      if (existing && OWN_TYPES.has(existing.object_type)) await rm(disk, { force: true });
      return;
    }
    this.objects.set(p, record);
    await rename(content.tmp, disk);
  }

  /** The foreign type whose import suffix ends `name`, when its owner imports such files. */
  importedTypeFor(name: string): string | undefined {
    const lower = name.toLowerCase();
    for (const [type, o] of this.foreign) {
      const suffix = o.importSuffix?.toLowerCase();
      if (suffix && o.import && lower.endsWith(suffix) && lower !== suffix) return type;
    }
    return undefined;
  }

  /**
   * A folder's files and notebooks (each notebook as its SOURCE file, with its language's extension) copied
   * to a local folder: what a task that needs a whole project (a dbt project) works on.
   */
  async copyTree(p: string, dest: string): Promise<void> {
    const r = this.get(p);
    if (r.object_type !== 'DIRECTORY') throw notADirectory(p);
    const prefix = p === '/' ? '/' : `${p}/`;
    const inside = [...this.objects.values()].filter((o) => o.path.startsWith(prefix));
    await mkdir(dest, { recursive: true });
    for (const o of inside) {
      // Objects other services own (an experiment) have no file of their own to copy.
      if (!OWN_TYPES.has(o.object_type)) continue;
      const rel = o.path.slice(prefix.length);
      const target = path.join(dest, ...rel.split('/'));
      if (o.object_type === 'DIRECTORY') {
        await mkdir(target, { recursive: true });
        continue;
      }
      await mkdir(path.dirname(target), { recursive: true });
      const out = await this.export(o.path, 'SOURCE').catch((e: unknown) => {
        // Deleted since the listing: as if the delete had come first.
        if (e instanceof DatabricksError && e.status === 404) return undefined;
        throw e;
      });
      if (!out) continue;
      const name = o.object_type === 'NOTEBOOK' ? `${target}.${out.file_type}` : target;
      await writeFile(name, out.content);
    }
  }

  private noun(r: ObjectRecord): string {
    return this.foreign.get(r.object_type)?.noun ?? `a ${r.object_type} object`;
  }

  /** GET /api/2.0/workspace/export. */
  async export(p: string, format: ExportFormat): Promise<Exported> {
    const r = this.get(p);
    if (r.object_type === 'DIRECTORY')
      throw conversionNotImplemented(`Exporting a directory (${format} archive)`);
    if (!OWN_TYPES.has(r.object_type)) {
      const owner = this.foreign.get(r.object_type);
      if (!owner?.export) throw notExportable(p, this.noun(r));
      if (!['SOURCE', 'AUTO', 'RAW'].includes(format))
        throw conversionNotImplemented(`Exporting ${this.noun(r)} in the ${format} format`);
      return owner.export(r.resource_id ?? String(r.object_id));
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
