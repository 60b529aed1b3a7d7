/**
 * Turns a streaming DuckDB result into Databricks result chunks in the requested format. Chunks are cut by
 * size as the engine produces data; small chunks stay in memory, larger ones are spilled to files under
 * `<dataDir>/sql/results/<statement>/`, so a large result never sits whole in memory.
 */
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { RecordBatch, Schema } from 'apache-arrow';
import type { ArrowColumn } from './arrow.js';
import { columnInfo, stringRenderer, type ColumnInfo, type TypeLike, type VectorLike } from './render.js';

export type Format = 'JSON_ARRAY' | 'ARROW_STREAM' | 'CSV';
export type Disposition = 'INLINE' | 'EXTERNAL_LINKS';

export interface ChunkInfo {
  chunk_index: number;
  row_offset: number;
  row_count: number;
  byte_count: number;
  /** In-memory content (JSON text of data_array, CSV text, Arrow bytes). */
  mem?: Uint8Array | string;
  /** Spilled content. */
  file?: string;
}

export interface ResultSet {
  format: Format;
  disposition: Disposition;
  columns: ColumnInfo[];
  /** `columns` as JSON text. */
  columnsJson: string;
  chunks: ChunkInfo[];
  totalRows: number;
  totalBytes: number;
  truncated: boolean;
  dir?: string;
}

export interface ResultLimits {
  rowLimit?: number;
  byteLimit?: number;
  /** Target size of one chunk in bytes. */
  chunkBytes: number;
  /** Keep a chunk in memory when it is at most this big. */
  memBytes: number;
  /** INLINE results larger than this fail (25 MiB on Databricks). */
  inlineLimit: number;
}

export class InlineLimitExceeded extends Error {}

/** Spilled chunk writes allowed in flight while the next chunk is built (each holds its chunk's bytes). */
const SPILL_AHEAD = 2;

export interface ColumnSource {
  name: string;
  type: TypeLike;
}

const csvField = (s: string | null): string => {
  if (s === null) return 'null';
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
};

// apache-arrow costs ~90 ms to import: load the Arrow writer on the first ARROW_STREAM result, not at start-up.
let arrow: typeof import('./arrow.js') | undefined;
let arrowLoading: Promise<unknown> | undefined;

/** Awaited before building an ARROW_STREAM result (ResultBuilder's constructor is synchronous). */
export async function loadArrow(): Promise<void> {
  if (arrow) return;
  arrowLoading ??= import('./arrow.js').then(
    (m) => (arrow = m),
    (e: unknown) => {
      arrowLoading = undefined;
      throw e;
    },
  );
  await arrowLoading;
}

function arrowWriter(): typeof import('./arrow.js') {
  if (!arrow) throw new Error('The Arrow writer is not loaded yet (await loadArrow() first).');
  return arrow;
}

/**
 * What a result's columns become, computed once per column list: the manifest columns (Databricks types),
 * their JSON text, and the functions rendering each column's values as strings. A statement whose columns
 * are the same on every run keeps one (statements.ts) instead of reading and converting the engine's types
 * again per run.
 */
export interface ResultShape {
  sources: ColumnSource[];
  columns: ColumnInfo[];
  /** `columns` as JSON text (the manifest's `schema.columns`). */
  columnsJson: string;
  renderers: ((vec: VectorLike, i: number) => string | null)[];
}

export function resultShape(sources: ColumnSource[]): ResultShape {
  const columns = sources.map((s, i) => columnInfo(s.name, i, s.type));
  return {
    sources,
    columns,
    columnsJson: JSON.stringify(columns),
    renderers: sources.map((s) => stringRenderer(s.type)),
  };
}

export interface ResultBuilderOptions {
  format: Format;
  disposition: Disposition;
  /** The result's columns, with the engine's types (or their shape, already converted). */
  columns: ColumnSource[] | ResultShape;
  limits: ResultLimits;
  /** Where chunks too large for memory are written. */
  dir: string;
}

export class ResultBuilder {
  readonly columns: ColumnInfo[];
  private readonly columnsJson: string;
  private readonly renderers: ((vec: VectorLike, i: number) => string | null)[];
  private readonly arrowCols: ArrowColumn[] = [];
  private readonly schema: Schema | undefined;
  private readonly chunks: ChunkInfo[] = [];
  private rows = 0;
  private bytes = 0;
  private truncated = false;
  // current chunk
  private parts: string[] = [];
  private batches: RecordBatch[] = [];
  private curRows = 0;
  private curBytes = 0;
  private dirMade = false;
  /** Chunk writes still running (see spill). */
  private readonly spilling = new Set<Promise<void>>();
  private spillError: unknown;
  private readonly format: Format;
  private readonly disposition: Disposition;
  private readonly limits: ResultLimits;
  private readonly dir: string;

  constructor(o: ResultBuilderOptions) {
    const { format } = o;
    this.format = format;
    this.disposition = o.disposition;
    this.limits = o.limits;
    this.dir = o.dir;
    const shape = Array.isArray(o.columns) ? resultShape(o.columns) : o.columns;
    const sources = shape.sources;
    this.columns = shape.columns;
    this.columnsJson = shape.columnsJson;
    this.renderers = shape.renderers;
    if (format === 'ARROW_STREAM') {
      const a = arrowWriter();
      this.arrowCols = sources.map((s) => a.arrowColumn(s.name, s.type));
      this.schema = a.arrowSchema(this.arrowCols);
    }
  }

  get done(): boolean {
    return this.truncated;
  }

  get rowsSoFar(): number {
    return this.rows;
  }

  /** Adds up to `n` rows of a chunk; returns false once a limit stops the result. */
  async add(vectors: VectorLike[], n: number): Promise<boolean> {
    if (this.truncated) return false;
    const { rowLimit, byteLimit } = this.limits;
    let take = n;
    if (rowLimit !== undefined && this.rows + take > rowLimit) {
      take = rowLimit - this.rows;
      this.truncated = true;
    }
    if (take > 0) {
      // byte_limit is checked per row (text) or by shrinking the batch (Arrow): the row that would cross the
      // limit is not returned, and the result is marked truncated.
      const budget = byteLimit === undefined ? Infinity : byteLimit - this.bytes;
      const r =
        this.format === 'ARROW_STREAM'
          ? this.addArrow(vectors, take, budget)
          : this.addText(vectors, take, budget);
      if (r.rows < take) this.truncated = true;
      take = r.rows;
      const added = r.bytes;
      this.rows += take;
      this.curRows += take;
      this.bytes += added;
      this.curBytes += added;
      if (this.disposition === 'INLINE' && this.bytes > this.limits.inlineLimit)
        throw new InlineLimitExceeded();
      if (byteLimit !== undefined && this.bytes >= byteLimit) this.truncated = true;
      if (this.curBytes >= this.limits.chunkBytes) await this.cut();
    }
    return !this.truncated;
  }

  /** Called when the engine has more rows after row_limit rows were taken. */
  markTruncated(): void {
    this.truncated = true;
  }

  private addText(vectors: VectorLike[], n: number, budget: number): { rows: number; bytes: number } {
    const cols = this.renderers.length;
    let added = 0;
    const csv = this.format === 'CSV';
    if (csv && this.chunks.length === 0 && this.curRows === 0 && this.parts.length === 0) {
      const header = this.columns.map((c) => csvField(c.name)).join(',') + '\r\n';
      this.parts.push(header);
      added += header.length;
    }
    const row = Array.from<string | null>({ length: cols });
    let i = 0;
    for (; i < n; i++) {
      for (let c = 0; c < cols; c++) row[c] = this.renderers[c]!(vectors[c]!, i);
      const text = csv ? row.map(csvField).join(',') + '\r\n' : JSON.stringify(row);
      const size = text.length + (csv ? 0 : 1);
      if (added + size > budget) break;
      this.parts.push(text);
      added += size;
    }
    return { rows: i, bytes: added };
  }

  private addArrow(vectors: VectorLike[], n: number, budget: number): { rows: number; bytes: number } {
    const w = arrowWriter();
    const sizeOf = (b: ReturnType<typeof w.recordBatch>): number => {
      let size = 0;
      for (const child of b.data.children) size += dataBytes(child);
      return size;
    };
    let take = n;
    let batch = w.recordBatch(this.schema!, this.arrowCols, vectors, take);
    let size = sizeOf(batch);
    // Shrink proportionally (bounded: at most ~40 rebuilds) until the batch fits the remaining byte budget.
    for (let k = 0; size > budget && take > 0 && k < 40; k++) {
      take = Math.min(take - 1, Math.floor((take * budget) / size));
      if (take <= 0) {
        take = 0;
        break;
      }
      batch = w.recordBatch(this.schema!, this.arrowCols, vectors, take);
      size = sizeOf(batch);
    }
    if (size > budget) take = 0;
    if (take === 0) return { rows: 0, bytes: 0 };
    this.batches.push(batch);
    return { rows: take, bytes: size };
  }

  private async cut(): Promise<void> {
    if (this.curRows === 0) return;
    let content: Uint8Array | string | Uint8Array[];
    let byteCount: number;
    if (this.format === 'ARROW_STREAM') {
      content = await arrowWriter().ipcStreamParts(this.schema!, this.batches);
      byteCount = content.reduce((a, p) => a + p.byteLength, 0);
      if (byteCount <= this.limits.memBytes) content = Buffer.concat(content);
    } else {
      content = this.format === 'CSV' ? this.parts.join('') : `[${this.parts.join(',')}]`;
      byteCount = Buffer.byteLength(content);
    }
    const chunk: ChunkInfo = {
      chunk_index: this.chunks.length,
      row_offset: this.rows - this.curRows,
      row_count: this.curRows,
      byte_count: byteCount,
    };
    if (byteCount <= this.limits.memBytes && !Array.isArray(content)) chunk.mem = content;
    else {
      if (!this.dirMade) {
        await mkdir(this.dir, { recursive: true });
        this.dirMade = true;
      }
      chunk.file = path.join(this.dir, `${chunk.chunk_index}.${ext(this.format)}`);
      await this.spill(chunk.file, content);
    }
    this.chunks.push(chunk);
    this.parts = [];
    this.batches = [];
    this.curRows = 0;
    this.curBytes = 0;
  }

  /**
   * Writes a chunk in the background so the engine's next rows are converted while it goes to disk (an
   * awaited 16 MB write left DuckDB and the converter idle for its whole duration, ~20 chunks of a 10M-row
   * result). At most SPILL_AHEAD writes are in flight, so memory stays bounded; a failed write fails the
   * result at the next spill or at finish().
   */
  private async spill(file: string, content: Uint8Array | string | Uint8Array[]): Promise<void> {
    while (this.spilling.size >= SPILL_AHEAD) await Promise.race(this.spilling);
    this.throwSpillError();
    const write = Array.isArray(content) ? writeParts(file, content) : writeFile(file, content);
    const p: Promise<void> = write.then(
      () => void this.spilling.delete(p),
      (e: unknown) => {
        this.spilling.delete(p);
        this.spillError ??= e;
      },
    );
    this.spilling.add(p);
  }

  private async spilled(): Promise<void> {
    while (this.spilling.size > 0) await Promise.all(this.spilling);
    this.throwSpillError();
  }

  private throwSpillError(): void {
    if (this.spillError !== undefined) throw this.spillError;
  }

  async finish(): Promise<ResultSet> {
    await this.cut();
    await this.spilled();
    const rs: ResultSet = {
      format: this.format,
      disposition: this.disposition,
      columns: this.columns,
      columnsJson: this.columnsJson,
      chunks: this.chunks,
      totalRows: this.rows,
      totalBytes: this.chunks.reduce((a, c) => a + c.byte_count, 0),
      truncated: this.truncated,
    };
    if (this.dirMade) rs.dir = this.dir;
    return rs;
  }

  /** Frees spilled files of an unfinished result. */
  async discard(): Promise<void> {
    this.parts = [];
    this.batches = [];
    await this.spilled().catch(() => undefined);
    if (this.dirMade) await rm(this.dir, { recursive: true, force: true });
  }
}

/** Writes `parts` one after the other into a new file with `writev` (libuv splits long vectors itself). */
async function writeParts(file: string, parts: Uint8Array[]): Promise<void> {
  const fh = await open(file, 'w');
  try {
    const { bytesWritten } = await fh.writev(parts);
    const total = parts.reduce((a, p) => a + p.byteLength, 0);
    if (bytesWritten !== total)
      throw new Error(`Short write of result chunk ${file}: ${bytesWritten} of ${total}`);
  } finally {
    await fh.close();
  }
}

function dataBytes(d: {
  values?: { byteLength: number };
  valueOffsets?: { byteLength: number } | null;
  nullBitmap?: { byteLength: number } | null;
  children?: unknown[];
}): number {
  let n = (d.values?.byteLength ?? 0) + (d.valueOffsets?.byteLength ?? 0) + (d.nullBitmap?.byteLength ?? 0);
  for (const c of (d.children ?? []) as Parameters<typeof dataBytes>[0][]) n += dataBytes(c);
  return n;
}

export const ext = (f: Format) => (f === 'ARROW_STREAM' ? 'arrow' : f === 'CSV' ? 'csv' : 'json');

export const contentType = (f: Format) =>
  f === 'ARROW_STREAM'
    ? 'application/vnd.apache.arrow.stream'
    : f === 'CSV'
      ? 'text/csv; charset=utf-8'
      : 'application/json';

/** The chunk's bytes or text (reads a spilled chunk back). */
export async function chunkContent(c: ChunkInfo): Promise<Uint8Array | string> {
  if (c.mem !== undefined) return c.mem;
  if (c.file) return readFile(c.file);
  return '';
}

export async function freeResult(rs: ResultSet): Promise<void> {
  for (const c of rs.chunks) delete c.mem;
  if (rs.dir) await rm(rs.dir, { recursive: true, force: true });
}
