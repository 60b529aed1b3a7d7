/**
 * Persistence used by every store. A store keeps its state in named Collections (string key to JSON value).
 * With persistence on, every change is appended to a journal (JSON lines) as it happens and the HTTP layer
 * awaits `flush()` before it answers, so an acknowledged write has reached the file before the client hears
 * of it and survives `kill -9`. The journal is folded into a snapshot at start-up and when it grows.
 * With persistence off the same code runs with the file writes switched off.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { open, rename, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';

export interface StateModule {
  readonly name: string;
  /** Bumped when the shape of the persisted state changes. */
  readonly version: number;
  reset(): Promise<void> | void;
  snapshot(): unknown;
  /**
   * Replaces the module's state with one `snapshot()` returned. The host calls it on a restored snapshot
   * after the owned data folders are back, in start order, so a module may reopen files there.
   */
  restore(snapshot: unknown): void | Promise<void>;
  /**
   * Optional: brings collections persisted by an older `version` up to this one, in place (the collections
   * are keyed by full name, `<module>/<collection>`). Return true when done; false (or no hook) means the
   * state cannot be migrated and the host refuses to start rather than drop it.
   */
  migrate?(from: number, collections: Record<string, Record<string, unknown>>): boolean;
}

/**
 * The persisted state of a module was written by another version of its code and cannot be read. Losing a
 * user's workspace without a word is the worst outcome, so the host stops with this message instead.
 */
export class StateVersionError extends Error {
  constructor(
    readonly module: string,
    readonly found: number,
    readonly expected: number,
    readonly dir: string | undefined,
  ) {
    super(
      `The persisted state of module '${module}' has version ${found}, but this MiniLake expects version ` +
        `${expected}, and it cannot be migrated. Nothing was changed. To keep the data, run the MiniLake ` +
        `version that wrote it (and export what you need); to start fresh, move or delete ` +
        `${dir ? `the state folder ${dir}` : 'the state folder'}, or start with MINILAKE_PERSIST=0.`,
    );
    this.name = 'StateVersionError';
  }
}

type Entries = Record<string, unknown>;
type JournalRecord =
  { c: string; o: 's'; k: string; v: unknown } | { c: string; o: 'd'; k: string } | { c: string; o: 'c' };

interface SnapshotFile {
  format: 1;
  versions: Record<string, number>;
  collections: Record<string, Entries>;
}

const COMPACT_AFTER_BYTES = 16 * 1024 * 1024;

export class Collection<V> {
  private readonly map = new Map<string, V>();

  constructor(
    readonly name: string,
    private readonly db: StateDb,
    initial: Entries | undefined,
  ) {
    if (initial) for (const [k, v] of Object.entries(initial)) this.map.set(k, v as V);
  }

  get size(): number {
    return this.map.size;
  }
  get(key: string): V | undefined {
    return this.map.get(key);
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  keys(): IterableIterator<string> {
    return this.map.keys();
  }
  values(): IterableIterator<V> {
    return this.map.values();
  }
  entries(): IterableIterator<[string, V]> {
    return this.map.entries();
  }
  /** Stores (and journals) the value. Values are JSON data: after changing one in place, set it again. */
  set(key: string, value: V): V {
    this.map.set(key, value);
    this.db.record({ c: this.name, o: 's', k: key, v: value });
    return value;
  }
  /**
   * Changes a stored record and journals the result: the one way to modify a record, so no change can skip
   * the journal. `change` may edit the value in place or return a replacement. Returns undefined (and calls
   * nothing) when the key is absent.
   */
  update(key: string, change: (value: V) => V | void): V | undefined {
    const current = this.map.get(key);
    if (current === undefined) return undefined;
    return this.set(key, change(current) ?? current);
  }
  delete(key: string): boolean {
    const had = this.map.delete(key);
    if (had) this.db.record({ c: this.name, o: 'd', k: key });
    return had;
  }
  clear(): void {
    this.map.clear();
    this.db.record({ c: this.name, o: 'c' });
  }
  toObject(): Entries {
    return Object.fromEntries(this.map);
  }
  /** Replaces the content without journaling each entry (restore path); the caller journals as needed. */
  replaceAll(entries: Entries): void {
    this.clear();
    for (const [k, v] of Object.entries(entries)) this.set(k, v as V);
  }
}

export class StateDb {
  private readonly loaded: Record<string, Entries> = {};
  private readonly versions: Record<string, number> = {};
  private readonly collections = new Map<string, Collection<unknown>>();
  private buffer: string[] = [];
  private writing: Promise<void> = Promise.resolve();
  private handle: FileHandle | undefined;
  private journalBytes = 0;
  private failure: unknown;

  private constructor(readonly dir: string | undefined) {}

  /** Opens the state under `dir` (persistence on) or in memory only (`dir` undefined). */
  static async open(dir: string | undefined): Promise<StateDb> {
    const db = new StateDb(dir);
    if (dir) {
      mkdirSync(dir, { recursive: true });
      db.load();
      await db.writeSnapshot();
      db.handle = await open(db.journalPath, 'w');
    }
    return db;
  }

  static memory(): StateDb {
    return new StateDb(undefined);
  }

  get persistent(): boolean {
    return this.dir !== undefined;
  }

  private get journalPath(): string {
    return path.join(this.dir!, 'journal.jsonl');
  }
  private get snapshotPath(): string {
    return path.join(this.dir!, 'snapshot.json');
  }

  private load(): void {
    if (existsSync(this.snapshotPath)) {
      const snap = JSON.parse(readFileSync(this.snapshotPath, 'utf8')) as SnapshotFile;
      Object.assign(this.loaded, snap.collections);
      Object.assign(this.versions, snap.versions);
    }
    if (!existsSync(this.journalPath)) return;
    const lines = readFileSync(this.journalPath, 'utf8').split('\n');
    for (const line of lines) {
      if (!line) continue;
      let rec: JournalRecord;
      try {
        rec = JSON.parse(line) as JournalRecord;
      } catch {
        break; // a torn last line from a crash mid-write: everything before it was acknowledged
      }
      const entries = (this.loaded[rec.c] ??= {});
      if (rec.o === 's') entries[rec.k] = rec.v;
      else if (rec.o === 'd') delete entries[rec.k];
      else this.loaded[rec.c] = {};
    }
  }

  /**
   * Declares a module's state version. A persisted state written by another version is handed to `migrate`
   * (see StateModule.migrate); when there is none, or it declines, this throws StateVersionError and leaves
   * the persisted state untouched: it is never dropped or misread. Says whether the state was already at
   * this version (or new) or has just been migrated.
   */
  declareVersion(module: string, version: number, migrate?: StateModule['migrate']): 'current' | 'migrated' {
    const previous = this.versions[module];
    if (previous === undefined || previous === version) {
      this.versions[module] = version;
      return 'current';
    }
    const prefix = `${module}/`;
    const mine: Record<string, Entries> = {};
    for (const [name, entries] of Object.entries(this.loaded))
      if (name.startsWith(prefix)) mine[name] = structuredClone(entries);
    if (!migrate || !migrate(previous, mine))
      throw new StateVersionError(module, previous, version, this.dir);
    for (const name of Object.keys(this.loaded)) if (name.startsWith(prefix)) delete this.loaded[name];
    Object.assign(this.loaded, mine);
    this.versions[module] = version;
    // The new version and the migrated data reach the disk together before anything else happens, so a
    // crash cannot leave migrated data under the old version number (the journal does not carry versions).
    if (this.dir) {
      const tmp = `${this.snapshotPath}.tmp`;
      writeFileSync(tmp, JSON.stringify(this.currentSnapshot()));
      renameSync(tmp, this.snapshotPath);
    }
    return 'migrated';
  }

  collection<V>(name: string): Collection<V> {
    const existing = this.collections.get(name);
    if (existing) return existing as Collection<V>;
    const c = new Collection<V>(name, this, this.loaded[name]);
    this.collections.set(name, c as Collection<unknown>);
    return c;
  }

  record(rec: JournalRecord): void {
    if (!this.handle) return;
    this.buffer.push(JSON.stringify(rec) + '\n');
    if (this.buffer.length === 1) this.writing = this.writing.then(() => this.drain());
  }

  private async drain(): Promise<void> {
    const chunk = this.buffer.join('');
    this.buffer = [];
    if (!chunk || !this.handle) return;
    try {
      await this.handle.write(chunk);
      this.journalBytes += Buffer.byteLength(chunk);
      if (this.journalBytes > COMPACT_AFTER_BYTES) await this.compact();
    } catch (e) {
      this.failure = e;
    }
  }

  /** Resolves once every change recorded so far is in the journal file. */
  async flush(): Promise<void> {
    await this.writing;
    if (this.failure) {
      const e = this.failure;
      this.failure = undefined;
      throw e;
    }
  }

  private currentSnapshot(): SnapshotFile {
    const collections: Record<string, Entries> = { ...this.loaded };
    for (const [name, c] of this.collections) collections[name] = c.toObject();
    return { format: 1, versions: this.versions, collections };
  }

  private async writeSnapshot(): Promise<void> {
    const tmp = `${this.snapshotPath}.tmp`;
    await writeFile(tmp, JSON.stringify(this.currentSnapshot()));
    await rename(tmp, this.snapshotPath);
  }

  /** Folds the journal into a fresh snapshot (written atomically), then starts an empty journal. */
  private async compact(): Promise<void> {
    await this.writeSnapshot();
    await this.handle?.truncate(0);
    await this.handle?.close();
    this.handle = await open(this.journalPath, 'w');
    this.journalBytes = 0;
  }

  async close(): Promise<void> {
    await this.flush();
    if (this.handle) {
      await this.compact();
      await this.handle.close();
      this.handle = undefined;
    }
  }
}

/**
 * A StateModule made of collections: most stores extend this and only add their operations.
 * `onReset` lets a store drop engine data (files, attached databases) as well.
 */
export abstract class CollectionStore implements StateModule {
  private readonly owned: Collection<unknown>[] = [];

  protected constructor(
    readonly name: string,
    readonly version: number,
    protected readonly db: StateDb,
  ) {
    db.declareVersion(name, version, (from, collections) => this.migrate(from, collections));
  }

  /**
   * Override to migrate state persisted by an older version (see StateModule.migrate). It runs from the base
   * constructor, before subclass fields exist: use only `from` and `collections`.
   */
  migrate(_from: number, _collections: Record<string, Entries>): boolean {
    return false;
  }

  protected collection<V>(name: string): Collection<V> {
    const c = this.db.collection<V>(`${this.name}/${name}`);
    this.owned.push(c as Collection<unknown>);
    return c;
  }

  protected onReset(): Promise<void> | void {}

  async reset(): Promise<void> {
    for (const c of this.owned) c.clear();
    await this.onReset();
  }

  snapshot(): unknown {
    return {
      version: this.version,
      collections: Object.fromEntries(this.owned.map((c) => [c.name, c.toObject()])),
    };
  }

  restore(snapshot: unknown): void {
    const snap = snapshot as { version: number; collections: Record<string, Entries> };
    if (snap.version !== this.version) {
      throw new Error(`${this.name}: cannot restore state version ${snap.version} (this is ${this.version})`);
    }
    for (const c of this.owned) c.replaceAll(snap.collections[c.name] ?? {});
  }
}
