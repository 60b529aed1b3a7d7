/**
 * The Delta transaction log of one table folder: listing `_delta_log/`, `_last_checkpoint`, classic single
 * and multi-part checkpoints and v2 checkpoints with sidecars (Parquet read with DuckDB's read_parquet), JSON
 * commits, and replay into a snapshot.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { literal } from '@minilake/engine-duckdb';
import { DeltaError } from './errors.js';

/** What the library needs from an engine: DuckDBEngine.all satisfies it. */
export interface SqlRunner {
  all(sql: string): Promise<Record<string, unknown>[]>;
}

export interface Protocol {
  minReaderVersion: number;
  minWriterVersion: number;
  readerFeatures?: string[] | null;
  writerFeatures?: string[] | null;
}

export interface Metadata {
  id: string;
  name?: string | null;
  description?: string | null;
  format: { provider: string; options?: Record<string, string> | null };
  schemaString: string;
  partitionColumns: string[];
  configuration?: Record<string, string> | null;
  createdTime?: number | null;
}

export interface DeletionVector {
  storageType: string;
  pathOrInlineDv: string;
  offset?: number | null;
  sizeInBytes: number;
  cardinality: number;
}

export interface AddAction {
  path: string;
  partitionValues: Record<string, string | null>;
  size: number;
  modificationTime: number;
  dataChange: boolean;
  stats?: string | null;
  tags?: Record<string, string> | null;
  deletionVector?: DeletionVector | null;
}

export interface RemoveAction {
  path: string;
  deletionTimestamp?: number | null;
  dataChange: boolean;
  deletionVector?: DeletionVector | null;
}

export interface CommitInfo {
  timestamp?: number;
  operation?: string;
  [k: string]: unknown;
}

export interface Action {
  protocol?: Protocol;
  metaData?: Metadata;
  add?: AddAction;
  remove?: RemoveAction;
  commitInfo?: CommitInfo;
  txn?: { appId: string; version: number; lastUpdated?: number };
  [k: string]: unknown;
}

/** The live state at one version: what replay produces and a snapshot is built from. */
export interface LogState {
  version: number;
  protocol: Protocol;
  metadata: Metadata;
  files: Map<string, AddAction>;
  /** commitInfo.timestamp of the last commit replayed (or the checkpoint's file time). */
  timestamp: number;
  /** Live domainMetadata configurations by domain (clustering columns live in `delta.clustering`). */
  domains?: Map<string, string>;
}

export const LOG_DIR = '_delta_log';
const COMMIT_RE = /^(\d{20})\.json$/;
const SINGLE_CP_RE = /^(\d{20})\.checkpoint\.parquet$/;
const MULTI_CP_RE = /^(\d{20})\.checkpoint\.(\d{10})\.(\d{10})\.parquet$/;
/** v2 checkpoints: UUID-named, JSON or Parquet, holding checkpointMetadata and sidecar actions. */
const UUID_CP_RE =
  /^(\d{20})\.checkpoint\.[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\.(json|parquet)$/;
export const SIDECAR_DIR = '_sidecars';

export function commitFileName(version: number): string {
  return `${String(version).padStart(20, '0')}.json`;
}

export interface LogListing {
  /** Versions that have a JSON commit file, ascending. */
  commits: number[];
  /** Complete classic checkpoints: version -> file names (one, or every part in order). */
  checkpoints: Map<number, string[]>;
}

export async function listLog(root: string): Promise<LogListing> {
  let names: string[];
  try {
    names = await readdir(path.join(root, LOG_DIR));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') {
      throw new DeltaError(
        'DELTA_TABLE_NOT_FOUND',
        `${root} is not a Delta table (no ${LOG_DIR}/ folder)`,
        404,
      );
    }
    throw e;
  }
  const commits: number[] = [];
  const multi = new Map<number, { total: number; parts: Map<number, string> }>();
  const checkpoints = new Map<number, string[]>();
  const uuidNamed = new Set<number>();
  for (const n of names) {
    let m = COMMIT_RE.exec(n);
    if (m) {
      commits.push(Number(m[1]));
      continue;
    }
    m = SINGLE_CP_RE.exec(n);
    if (m) {
      if (!uuidNamed.has(Number(m[1]))) checkpoints.set(Number(m[1]), [n]);
      continue;
    }
    m = UUID_CP_RE.exec(n);
    if (m) {
      // A UUID-named checkpoint is complete by itself (its sidecars are written before it); it wins over a
      // classic one of the same version, which may be a v1 compatibility copy.
      checkpoints.set(Number(m[1]), [n]);
      uuidNamed.add(Number(m[1]));
      continue;
    }
    m = MULTI_CP_RE.exec(n);
    if (m) {
      const v = Number(m[1]);
      const total = Number(m[3]);
      const entry = multi.get(v) ?? { total, parts: new Map() };
      if (entry.total === total) entry.parts.set(Number(m[2]), n);
      multi.set(v, entry);
    }
  }
  for (const [v, { total, parts }] of multi) {
    // A multi-part checkpoint counts only when every part is there (a writer may have died half way).
    if (parts.size === total && !checkpoints.has(v)) {
      checkpoints.set(
        v,
        [...parts.entries()].sort((a, b) => a[0] - b[0]).map(([, n]) => n),
      );
    }
  }
  commits.sort((a, b) => a - b);
  return { commits, checkpoints };
}

/** The newest version the listing can reconstruct. */
export function latestVersion(listing: LogListing): number {
  const c = listing.commits.at(-1) ?? -1;
  const k = Math.max(-1, ...listing.checkpoints.keys());
  const v = Math.max(c, k);
  if (v < 0) throw new DeltaError('DELTA_TABLE_NOT_FOUND', 'The Delta log has no commits', 404);
  return v;
}

export async function readCommit(root: string, version: number): Promise<Action[]> {
  let text: string;
  try {
    text = await readFile(path.join(root, LOG_DIR, commitFileName(version)), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new DeltaError(
        'DELTA_VERSIONS_NOT_CONTIGUOUS',
        `Version ${version} of the Delta log at ${root} is missing (the log was cleaned up or is corrupt)`,
      );
    }
    throw e;
  }
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Action);
}

/**
 * The `_last_checkpoint` hint, when present and sane. It only speeds up the choice: the listing is the truth.
 */
async function lastCheckpointHint(root: string): Promise<number | undefined> {
  try {
    const j = JSON.parse(await readFile(path.join(root, LOG_DIR, '_last_checkpoint'), 'utf8')) as {
      version?: unknown;
    };
    return typeof j.version === 'number' ? j.version : undefined;
  } catch {
    return undefined;
  }
}

export async function chooseCheckpoint(
  root: string,
  listing: LogListing,
  version: number,
): Promise<number | undefined> {
  const hint = await lastCheckpointHint(root);
  if (hint !== undefined && hint <= version && listing.checkpoints.has(hint)) {
    // A newer complete checkpoint may exist below `version` if the hint is stale; prefer the newest.
    const newer = [...listing.checkpoints.keys()].filter((v) => v > hint && v <= version);
    return newer.length ? Math.max(...newer) : hint;
  }
  const usable = [...listing.checkpoints.keys()].filter((v) => v <= version);
  return usable.length ? Math.max(...usable) : undefined;
}

/**
 * Reads a checkpoint: classic (all its parts, Parquet) or v2 (one UUID-named JSON or Parquet file); the
 * `sidecar` actions of a v2 checkpoint (in either naming) name Parquet files in `_delta_log/_sidecars/`
 * holding its add and remove actions, read here too.
 */
export async function readCheckpoint(sql: SqlRunner, root: string, files: string[]): Promise<Action[]> {
  const logDir = path.join(root, LOG_DIR);
  const actions =
    files.length === 1 && files[0]!.endsWith('.json')
      ? await readJsonActions(path.join(logDir, files[0]!))
      : await readParquetActions(
          sql,
          files.map((f) => path.join(logDir, f)),
        );
  const sidecars = actions.filter((a) => a.sidecar).map((a) => (a.sidecar as { path: string }).path);
  if (sidecars.length === 0) return actions;
  const paths = sidecars.map((p) => sidecarPath(root, p));
  return [...actions.filter((a) => !a.sidecar), ...(await readParquetActions(sql, paths))];
}

/** A sidecar's file: relative to `_delta_log/_sidecars/` (never climbing out of it), or a `file:` URI. */
function sidecarPath(root: string, p: string): string {
  if (p.startsWith('file:')) return fileURLToPath(p.startsWith('file://') ? p : `file://${p.slice(5)}`);
  if (/^[a-z][a-z0-9+.-]*:/i.test(p))
    throw new DeltaError('DELTA_UNSUPPORTED_FEATURES_FOR_READ', `Sidecar ${p} is not on a local filesystem`);
  const decoded = safeDecode(p);
  if (decoded.split('/').some((s) => s === '..') || decoded.startsWith('/'))
    throw new DeltaError('DELTA_STATE_RECOVER_ERROR', `Sidecar path ${p} leaves ${LOG_DIR}/${SIDECAR_DIR}/`);
  return path.join(root, LOG_DIR, SIDECAR_DIR, decoded);
}

async function readParquetActions(sql: SqlRunner, files: string[]): Promise<Action[]> {
  const list = files.map((f) => literal(f)).join(', ');
  // to_json of the whole row keeps the nested maps (partitionValues, configuration) as JSON objects.
  const rows = await sql.all(
    `SELECT to_json(c)::VARCHAR AS j FROM read_parquet([${list}], union_by_name = true) AS c`,
  );
  const actions: Action[] = [];
  for (const r of rows) {
    const row = JSON.parse(String(r.j)) as Record<string, unknown>;
    const action: Action = {};
    for (const [k, v] of Object.entries(row)) if (v !== null && v !== undefined) action[k] = v;
    actions.push(action);
  }
  return actions;
}

async function readJsonActions(file: string): Promise<Action[]> {
  return (await readFile(file, 'utf8'))
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Action);
}

/** Applies one commit's (or checkpoint's) actions to a mutable state. */
export function applyActions(
  state: Partial<LogState> & { files: Map<string, AddAction> },
  actions: Action[],
) {
  for (const a of actions) {
    if (a.protocol) state.protocol = a.protocol;
    if (a.metaData) state.metadata = normalizeMetadata(a.metaData);
    if (a.add) state.files.set(fileKey(a.add.path, a.add.deletionVector), normalizeAdd(a.add));
    if (a.remove) state.files.delete(fileKey(a.remove.path, a.remove.deletionVector));
    if (a.commitInfo && typeof a.commitInfo.timestamp === 'number') state.timestamp = a.commitInfo.timestamp;
    const dm = a.domainMetadata as { domain?: string; configuration?: string; removed?: boolean } | undefined;
    if (dm?.domain) {
      state.domains ??= new Map();
      if (dm.removed) state.domains.delete(dm.domain);
      else state.domains.set(dm.domain, dm.configuration ?? '');
    }
  }
}

/** A file is identified by its path plus its deletion vector (PROTOCOL: "the primary key is path + dv id"). */
function fileKey(p: string, dv?: DeletionVector | null): string {
  const decoded = safeDecode(p);
  if (!dv) return decoded;
  return `${decoded}\u0000${dv.storageType}${dv.pathOrInlineDv}@${dv.offset ?? ''}`;
}

function safeDecode(p: string): string {
  try {
    return decodeURIComponent(p);
  } catch {
    return p;
  }
}

function normalizeMetadata(m: Metadata): Metadata {
  return {
    ...m,
    partitionColumns: m.partitionColumns ?? [],
    configuration: m.configuration ?? {},
  };
}

function normalizeAdd(a: AddAction): AddAction {
  return { ...a, partitionValues: a.partitionValues ?? {} };
}

/** Reconstructs the state at `version` from the newest usable checkpoint plus the commits after it. */
export async function replay(
  sql: SqlRunner,
  root: string,
  listing: LogListing,
  version: number,
  from?: LogState,
): Promise<LogState> {
  let state: Partial<LogState> & { files: Map<string, AddAction> };
  let start: number;
  if (from && from.version <= version) {
    state = { ...from, files: new Map(from.files), domains: new Map(from.domains ?? []) };
    start = from.version + 1;
  } else {
    const cp = await chooseCheckpoint(root, listing, version);
    state = { files: new Map(), timestamp: 0 };
    if (cp !== undefined) {
      applyActions(state, await readCheckpoint(sql, root, listing.checkpoints.get(cp)!));
      start = cp + 1;
    } else {
      start = 0;
    }
  }
  for (let v = start; v <= version; v++) applyActions(state, await readCommit(root, v));
  if (!state.protocol || !state.metadata) {
    throw new DeltaError(
      'DELTA_STATE_RECOVER_ERROR',
      `The Delta log at ${root} has no protocol or metaData action`,
    );
  }
  return { ...(state as LogState), version };
}
