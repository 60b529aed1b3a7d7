/**
 * Result sets on the Thrift wire. The statement service hands over Arrow (its ARROW_STREAM layout: scalar
 * columns native, nested values and intervals as their JSON_ARRAY text); this module reshapes them into what
 * Databricks sends: ARROW_BASED_SET with native timestamps in the session time zone, Decimal128 and native
 * nested types when the client asks for them (useArrowNativeTypes), optionally LZ4-framed; or
 * COLUMN_BASED_SET (TColumn per column, values as Databricks renders them) for clients that cannot read Arrow.
 */
// json-bigint ships no types; ours, referenced so packages that compile this source see them too.
/// <reference path="./json-bigint.d.ts" />
import jsonBigint from 'json-bigint';
import { compressFrameSync } from 'lz4-napi';
import {
  Bool,
  DataType,
  Field,
  makeData,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  Type,
  Utf8,
  vectorFromArray,
  type Data,
  type Vector,
} from 'apache-arrow';
import { arrowType, isComplex, parseType, scalarName, thriftTypeId, type DbType } from './types.js';

export interface ResultColumn {
  name: string;
  /** Databricks type text (`INT`, `DECIMAL(10,2)`, `ARRAY<STRING>`). */
  typeText: string;
  comment?: string;
}

export interface Caps {
  arrow: boolean;
  lz4: boolean;
  decimalAsArrow: boolean;
  complexAsArrow: boolean;
  timeZone: string;
}

/** Arrow batches in the statement service's layout, or already in the output layout (metadata rows). */
export interface BatchSource {
  next(): Promise<RecordBatch | null>;
  /** True when batches are already shaped for the wire (built by this package). */
  readonly shaped?: boolean;
}

interface Col {
  name: string;
  db: DbType;
  typeText: string;
  comment?: string;
  /** The Arrow type on the wire for this client. */
  out: DataType;
}

function ipcBytes(schema: Schema, batches: RecordBatch[]): Uint8Array {
  const w = new RecordBatchStreamWriter();
  w.reset(undefined, schema);
  for (const b of batches) w.write(b);
  w.finish();
  return w.toUint8Array(true);
}

/** The Thrift table schema: one primitive entry per column, decimals with precision and scale. */
export function tableSchema(columns: ResultColumn[]): unknown {
  return {
    columns: columns.map((c, i) => {
      const db = parseType(c.typeText);
      const entry: Record<string, unknown> = { type: thriftTypeId(db) };
      if (scalarName(db) === 'DECIMAL')
        entry.typeQualifiers = {
          qualifiers: {
            precision: { i32Value: db.kind === 'decimal' ? db.precision : 10 },
            scale: { i32Value: db.kind === 'decimal' ? db.scale : 0 },
          },
        };
      const desc: Record<string, unknown> = {
        columnName: c.name,
        typeDesc: { types: [{ primitiveEntry: entry }] },
        position: i + 1,
      };
      if (c.comment) desc.comment = c.comment;
      return desc;
    }),
  };
}

/** The wire Arrow type of a column for these client capabilities. */
export function wireType(db: DbType, caps: Caps): DataType {
  const name = scalarName(db);
  if (isComplex(db) && !caps.complexAsArrow) return new Utf8();
  if (name === 'DECIMAL' && !caps.decimalAsArrow) return new Utf8();
  if (name === 'NULL') return new Utf8();
  return arrowType(db, caps.timeZone);
}

export class ResultCursor {
  private readonly cols: Col[];
  readonly schema: Schema;
  private readonly queue: RecordBatch[] = [];
  private exhausted = false;
  private offset = 0;
  private schemaIpc?: Uint8Array;

  constructor(
    readonly columns: ResultColumn[],
    private readonly source: BatchSource,
    readonly caps: Caps,
  ) {
    this.cols = columns.map((c) => {
      const db = parseType(c.typeText);
      const col: Col = { name: c.name, db, typeText: c.typeText, out: wireType(db, caps) };
      if (c.comment) col.comment = c.comment;
      return col;
    });
    // Databricks names the types Arrow has no shape for (VARIANT travels as JSON text) in the field metadata;
    // the Python connector reports them from it in cursor.description.
    this.schema = new Schema(
      this.cols.map((c) =>
        scalarName(c.db) === 'VARIANT'
          ? new Field(c.name, c.out, true, new Map([['Spark:DataType:SqlName', 'VARIANT']]))
          : new Field(c.name, c.out, true),
      ),
    );
  }

  /** The IPC schema message alone (TGetResultSetMetadataResp.arrowSchema). */
  schemaBytes(): Uint8Array {
    if (!this.schemaIpc) {
      const stream = ipcBytes(this.schema, []);
      this.schemaIpc = stream.subarray(0, stream.length - 8); // drop the end-of-stream marker
    }
    return this.schemaIpc;
  }

  private async fill(): Promise<boolean> {
    while (this.queue.length === 0 && !this.exhausted) {
      const b = await this.source.next();
      if (!b) this.exhausted = true;
      else if (b.numRows > 0) this.queue.push(this.source.shaped ? b : this.shape(b));
    }
    return this.queue.length > 0;
  }

  /** Up to maxRows rows as the next row set, and whether more remain. */
  async fetch(maxRows: number): Promise<{ rowSet: Record<string, unknown>; hasMore: boolean }> {
    const limit = Math.max(1, maxRows);
    const taken: RecordBatch[] = [];
    let rows = 0;
    while (rows < limit && (await this.fill())) {
      const b = this.queue[0]!;
      const want = limit - rows;
      if (b.numRows <= want) {
        taken.push(b);
        this.queue.shift();
        rows += b.numRows;
      } else {
        taken.push(b.slice(0, want));
        this.queue[0] = b.slice(want);
        rows += want;
      }
    }
    const start = this.offset;
    this.offset += rows;
    const hasMore = await this.fill();
    const rowSet: Record<string, unknown> = { startRowOffset: int64(BigInt(start)), rows: [] };
    if (this.caps.arrow) {
      rowSet.arrowBatches = taken.map((b) => {
        const bytes = this.batchBytes(b);
        return {
          batch: Buffer.from(this.caps.lz4 ? compressFrameSync(Buffer.from(bytes)) : bytes),
          rowCount: int64(BigInt(b.numRows)),
        };
      });
    } else {
      rowSet.columns = this.columnSet(taken);
    }
    return { rowSet, hasMore };
  }

  private batchBytes(b: RecordBatch): Uint8Array {
    const head = this.schemaBytes().length;
    const stream = ipcBytes(this.schema, [b]);
    return stream.subarray(head, stream.length - 8);
  }

  /** A batch in the statement service's layout reshaped to the wire schema. */
  private shape(b: RecordBatch): RecordBatch {
    const children = this.cols.map((c, i) => convert(b.getChildAt(i)!, c).data[0]!);
    const data = makeData({
      type: new Struct(this.schema.fields),
      length: b.numRows,
      nullCount: 0,
      children: children as Data[],
    });
    return new RecordBatch(this.schema, data);
  }

  private columnSet(batches: RecordBatch[]): unknown[] {
    return this.cols.map((c, i) => {
      const values: unknown[] = [];
      const nullFlags: boolean[] = [];
      for (const b of batches) {
        const v = b.getChildAt(i)!;
        for (let r = 0; r < v.length; r++) {
          const x = v.get(r) as unknown;
          nullFlags.push(x === null || x === undefined);
          values.push(x);
        }
      }
      const nulls = Buffer.alloc(Math.ceil(values.length / 8));
      nullFlags.forEach((n, r) => {
        if (n) nulls[r >> 3]! |= 1 << (r & 7);
      });
      return columnOf(c, values, nullFlags, nulls, this.caps.timeZone);
    });
  }
}

/** A thrift i64 (TBinaryProtocol writes any object with an 8-byte big-endian `buffer`). */
export function int64(v: bigint): { buffer: Buffer } {
  const buffer = Buffer.alloc(8);
  buffer.writeBigInt64BE(BigInt.asIntN(64, v));
  return { buffer };
}

function columnOf(c: Col, values: unknown[], isNull: boolean[], nulls: Buffer, tz: string): unknown {
  const t = c.out;
  const fill = <T>(f: (x: unknown) => T, empty: T): T[] => values.map((x, i) => (isNull[i] ? empty : f(x)));
  switch (t.typeId) {
    case Type.Bool:
      return { boolVal: { values: fill((x) => Boolean(x), false), nulls } };
    case Type.Int: {
      const bw = (t as unknown as { bitWidth: number }).bitWidth;
      if (bw === 8) return { byteVal: { values: fill((x) => Number(x), 0), nulls } };
      if (bw === 16) return { i16Val: { values: fill((x) => Number(x), 0), nulls } };
      if (bw === 32) return { i32Val: { values: fill((x) => Number(x), 0), nulls } };
      return { i64Val: { values: fill((x) => int64(BigInt(x as bigint)), int64(0n)), nulls } };
    }
    case Type.Float:
      return { doubleVal: { values: fill((x) => Number(x), 0), nulls } };
    case Type.Binary:
      return { binaryVal: { values: fill((x) => Buffer.from(x as Uint8Array), Buffer.alloc(0)), nulls } };
    case Type.Date:
      return {
        stringVal: { values: fill((x) => new Date(x as number).toISOString().slice(0, 10), ''), nulls },
      };
    case Type.Timestamp:
      return { stringVal: { values: fill((x) => formatTimestamp(x as number, t, tz), ''), nulls } };
    case Type.Decimal:
      return { stringVal: { values: fill((x) => decimalText(x, c.db), ''), nulls } };
    default:
      return { stringVal: { values: fill((x) => String(x), ''), nulls } };
  }
}

function formatTimestamp(ms: number, t: DataType, tz: string): string {
  const zone = (t as unknown as { timezone?: string | null }).timezone ? tz : 'UTC';
  const d = new Date(Math.floor(ms));
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(d);
  const p = Object.fromEntries(parts.map((x) => [x.type, x.value]));
  // Arrow reads a microsecond timestamp as fractional milliseconds: keep every microsecond digit (exact up
  // to year 2255 in a double), the trailing zeros dropped as Spark prints them.
  const micros = ((Math.round(ms * 1000) % 1_000_000) + 1_000_000) % 1_000_000;
  const frac = micros ? `.${String(micros).padStart(6, '0').replace(/0+$/, '')}` : '';
  return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}${frac}`;
}

function decimalText(x: unknown, db: DbType): string {
  const scale = db.kind === 'decimal' ? db.scale : 0;
  let digits = String(x);
  if (scale === 0) return digits;
  const neg = digits.startsWith('-');
  if (neg) digits = digits.slice(1);
  digits = digits.padStart(scale + 1, '0');
  return `${neg ? '-' : ''}${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
}

/** One source column (statement service layout) as the wire type. */
function convert(v: Vector, c: Col): Vector {
  const src = v.type as DataType;
  const out = c.out;
  if (DataType.isTimestamp(out) && DataType.isTimestamp(src) && src.unit === out.unit)
    return withType(v, out);
  if (DataType.isDecimal(out) && DataType.isDecimal(src) && src.scale === out.scale) return withType(v, out);
  if (sameType(src, out)) return v;
  if (DataType.isUtf8(out)) {
    if (DataType.isDecimal(src))
      return vectorFromArray(
        mapValues(v, (x) => decimalText(x, c.db)),
        new Utf8(),
      );
    return vectorFromArray(
      mapValues(v, (x) => (typeof x === 'string' ? x : String(x))),
      new Utf8(),
    );
  }
  if (isComplex(c.db) && DataType.isUtf8(src)) {
    const values = mapValues(v, (x) => fromJson(parseExact(x as string), c.db));
    return vectorFromArray(values, out);
  }
  return vectorFromArray(
    mapValues(v, (x) => scalarValue(x, out)),
    out,
  );
}

function withType(v: Vector, type: DataType): Vector {
  const data = v.data.map((d) => d.clone(type as never));
  return new (v.constructor as new (d: Data[]) => Vector)(data as Data[]);
}

function sameType(a: DataType, b: DataType): boolean {
  return a.typeId === b.typeId && a.toString() === b.toString();
}

function mapValues(v: Vector, f: (x: unknown) => unknown): unknown[] {
  const out = Array.from<unknown>({ length: v.length });
  for (let i = 0; i < v.length; i++) {
    const x = v.get(i) as unknown;
    out[i] = x === null || x === undefined ? null : f(x);
  }
  return out;
}

function scalarValue(x: unknown, t: DataType): unknown {
  if (x === null || x === undefined) return null;
  if (t.typeId === Type.Int && (t as unknown as { bitWidth: number }).bitWidth === 64)
    return typeof x === 'bigint' ? x : BigInt(Math.trunc(Number(x)));
  if (t.typeId === Type.Int || t.typeId === Type.Float)
    return typeof x === 'string' ? Number(x) : Number(x as number);
  if (t instanceof Bool) return x === true || x === 'true';
  if (DataType.isTimestamp(t) || DataType.isDate(t))
    return typeof x === 'string' ? Date.parse(x.endsWith('Z') || !DataType.isTimestamp(t) ? x : `${x}Z`) : x;
  return x;
}

/** A value of a nested column from its JSON text (as the statement service renders it) to Arrow input. */
/**
 * Nested values arrive as JSON text. A number longer than 15 characters is kept as its text (JSON.parse
 * would round a DECIMAL(20,4) or a BIGINT through a double); fromJson converts it for the column's type.
 */
const exact = jsonBigint({ storeAsString: true });
const parseExact = (text: string): unknown => exact.parse(text) as unknown;

/**
 * A decimal inside a nested value (its JSON text: a number or a string) as Decimal128's four little-endian
 * 32-bit words of the unscaled value, which is what the Arrow builder takes. Read from the decimal text, so
 * no digit goes through a float.
 */
function decimalWords(x: unknown, scale: number): Uint32Array {
  const text = typeof x === 'number' ? x.toFixed(scale) : String(x).trim();
  const m = /^(-?)(\d*)(?:\.(\d*))?$/.exec(text);
  if (!m) throw new Error(`not a decimal: ${String(x)}`);
  const frac = (m[3] ?? '').padEnd(scale, '0');
  let unscaled = BigInt(`${m[2] || '0'}${frac.slice(0, scale)}`);
  // Rounding half up beyond the scale, as a cast to the column's type would.
  if (frac.length > scale && Number(frac[scale]) >= 5) unscaled += 1n;
  if (m[1]) unscaled = -unscaled;
  let u = BigInt.asUintN(128, unscaled);
  const out = new Uint32Array(4);
  for (let i = 0; i < 4; i++) {
    out[i] = Number(u & 0xffffffffn);
    u >>= 32n;
  }
  return out;
}

function fromJson(x: unknown, t: DbType): unknown {
  if (x === null || x === undefined) return null;
  switch (t.kind) {
    case 'array':
      return (x as unknown[]).map((e) => fromJson(e, t.element));
    case 'map':
      return new Map(
        Object.entries(x as Record<string, unknown>).map(([k, val]) => [
          fromJson(parseKey(k, t.key), t.key),
          fromJson(val, t.value),
        ]),
      );
    case 'struct': {
      const o = x as Record<string, unknown>;
      const r: Record<string, unknown> = {};
      for (const f of t.fields) r[f.name] = fromJson(o[f.name], f.type);
      return r;
    }
  }
  switch (scalarName(t)) {
    case 'DECIMAL':
      return t.kind === 'decimal' ? decimalWords(x, t.scale) : String(x);
    case 'BIGINT':
      return BigInt(x as number);
    case 'TINYINT':
    case 'SMALLINT':
    case 'INT':
    case 'FLOAT':
    case 'DOUBLE':
      return Number(x);
    case 'BOOLEAN':
      return x === true || x === 'true';
    case 'DATE':
      return Date.parse(String(x));
    case 'TIMESTAMP':
    case 'TIMESTAMP_NTZ': {
      const s = String(x);
      return Date.parse(/Z$|[+-]\d\d:?\d\d$/.test(s) ? s : `${s}Z`);
    }
    case 'BINARY':
      return Buffer.from(String(x), 'base64');
    default:
      return typeof x === 'string' ? x : JSON.stringify(x);
  }
}

/** Map keys arrive as JSON object keys (strings). */
function parseKey(k: string, t: DbType): unknown {
  const n = scalarName(t);
  if (n === 'INT' || n === 'BIGINT' || n === 'SMALLINT' || n === 'TINYINT' || n === 'DOUBLE' || n === 'FLOAT')
    return Number(k);
  if (n === 'BOOLEAN') return k === 'true';
  return k;
}

/** Rows (already typed for the wire) as one shaped batch: metadata results built by this package. */
export function rowsSource(columns: ResultColumn[], rows: unknown[][], caps: Caps): BatchSource {
  let sent = false;
  return {
    shaped: true,
    async next() {
      if (sent) return null;
      sent = true;
      const fields = columns.map((c) => new Field(c.name, wireType(parseType(c.typeText), caps), true));
      const children = fields.map(
        (f, i) =>
          vectorFromArray(
            rows.map((r) => scalarValue(r[i] ?? null, f.type)),
            f.type,
          ).data[0]!,
      );
      const schema = new Schema(fields);
      return new RecordBatch(
        schema,
        makeData({ type: new Struct(fields), length: rows.length, nullCount: 0, children }),
      );
    },
  };
}
