/**
 * DuckDB data chunks to Arrow record batches without per-row objects where the layout allows it:
 * fixed-width columns reuse the vector's typed array of values (copied once) and DuckDB's validity mask,
 * which has Arrow's bit layout; strings are UTF-8 encoded into one buffer with Int32 offsets. Types Arrow
 * clients would not read the same way (nested, intervals, UUIDs) travel as their JSON_ARRAY strings.
 */
import {
  Binary,
  Bool,
  DateDay,
  Decimal,
  Field,
  Float32,
  Float64,
  Int16,
  Int32,
  Int64,
  Int8,
  makeData,
  RecordBatch,
  RecordBatchStreamWriter,
  Schema,
  Struct,
  TimestampMicrosecond,
  TimestampMillisecond,
  TimestampNanosecond,
  TimestampSecond,
  Utf8,
  type Data,
  type DataType,
} from 'apache-arrow';
import { scalarString, T, type TypeLike, type VectorLike } from './render.js';

type Kind = 'fixed' | 'bool' | 'utf8' | 'decimal' | 'binary' | 'string';

export interface ArrowColumn {
  field: Field;
  kind: Kind;
  type: TypeLike;
  width: number;
  ctor?: new (n: number) => ArrayLike<number | bigint> & { set(a: ArrayLike<number | bigint>): void };
}

const POP = new Uint8Array(256).map((_, i) => {
  let c = 0;
  for (let x = i; x; x >>= 1) c += x & 1;
  return c;
});

function fixed(
  t: DataType,
  width: number,
  ctor: ArrowColumn['ctor'],
): Omit<ArrowColumn, 'field' | 'type'> & { dt: DataType } {
  return { dt: t, kind: 'fixed', width, ctor };
}

export function arrowColumn(name: string, type: TypeLike): ArrowColumn {
  let spec: { dt: DataType; kind: Kind; width: number; ctor?: ArrowColumn['ctor'] };
  switch (type.typeId) {
    case T.TINYINT:
      spec = fixed(new Int8(), 1, Int8Array as never);
      break;
    case T.SMALLINT:
      spec = fixed(new Int16(), 2, Int16Array as never);
      break;
    case T.INTEGER:
      spec = fixed(new Int32(), 4, Int32Array as never);
      break;
    case T.BIGINT:
      spec = fixed(new Int64(), 8, BigInt64Array as never);
      break;
    // Unsigned types widen to the signed type the manifest announces (Spark has no unsigned integers).
    case T.UTINYINT:
      spec = fixed(new Int16(), 2, Int16Array as never);
      break;
    case T.USMALLINT:
      spec = fixed(new Int32(), 4, Int32Array as never);
      break;
    case T.UINTEGER:
      spec = fixed(new Int64(), 8, BigInt64Array as never);
      break;
    case T.UBIGINT:
      spec = { dt: new Decimal(0, 20, 128), kind: 'decimal', width: 16 };
      break;
    case T.HUGEINT:
    case T.UHUGEINT:
      spec = { dt: new Decimal(0, 38, 128), kind: 'decimal', width: 16 };
      break;
    case T.FLOAT:
      spec = fixed(new Float32(), 4, Float32Array as never);
      break;
    case T.DOUBLE:
      spec = fixed(new Float64(), 8, Float64Array as never);
      break;
    case T.DATE:
      spec = fixed(new DateDay(), 4, Int32Array as never);
      break;
    case T.TIMESTAMP:
      spec = fixed(new TimestampMicrosecond(), 8, BigInt64Array as never);
      break;
    case T.TIMESTAMP_TZ:
      spec = fixed(new TimestampMicrosecond('Etc/UTC'), 8, BigInt64Array as never);
      break;
    case T.TIMESTAMP_S:
      spec = fixed(new TimestampSecond(), 8, BigInt64Array as never);
      break;
    case T.TIMESTAMP_MS:
      spec = fixed(new TimestampMillisecond(), 8, BigInt64Array as never);
      break;
    case T.TIMESTAMP_NS:
      spec = fixed(new TimestampNanosecond(), 8, BigInt64Array as never);
      break;
    case T.BOOLEAN:
      spec = { dt: new Bool(), kind: 'bool', width: 0 };
      break;
    case T.VARCHAR:
      spec = { dt: new Utf8(), kind: 'utf8', width: 0 };
      break;
    case T.BLOB:
      spec = { dt: new Binary(), kind: 'binary', width: 0 };
      break;
    case T.DECIMAL:
      spec = { dt: new Decimal(type.scale ?? 0, type.width ?? 18, 128), kind: 'decimal', width: 16 };
      break;
    default:
      spec = { dt: new Utf8(), kind: 'string', width: 0 };
  }
  const col: ArrowColumn = {
    field: new Field(name, spec.dt, true),
    kind: spec.kind,
    type,
    width: spec.width,
  };
  if (spec.ctor) col.ctor = spec.ctor;
  return col;
}

export function arrowSchema(cols: ArrowColumn[]): Schema {
  return new Schema(cols.map((c) => c.field));
}

interface Internals {
  items?: ArrayLike<number | bigint> & { subarray(a: number, b: number): ArrayLike<number | bigint> };
  validity?: { data?: BigUint64Array | null };
}

/** The validity bitmap (Arrow layout) and null count for the first n items, or none when all are valid. */
function validity(vec: VectorLike, n: number): { bitmap?: Uint8Array; nullCount: number } {
  const mask = (vec as unknown as Internals).validity;
  // DuckDB leaves the mask unallocated when every value is valid.
  if (mask && !mask.data) return { nullCount: 0 };
  const data = mask?.data;
  if (data) {
    const bytes = Math.ceil(n / 8);
    const bitmap = new Uint8Array(bytes);
    bitmap.set(new Uint8Array(data.buffer, data.byteOffset, bytes));
    const tail = n % 8;
    if (tail) bitmap[bytes - 1]! &= (1 << tail) - 1;
    let valid = 0;
    for (let i = 0; i < bytes; i++) valid += POP[bitmap[i]!]!;
    const nullCount = n - valid;
    return nullCount ? { bitmap, nullCount } : { nullCount: 0 };
  }
  // No mask exposed: scan (synthetic vectors, or a layout this version does not expose).
  let bitmap: Uint8Array | undefined;
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    if (vec.getItem(i) === null) {
      bitmap ??= new Uint8Array(Math.ceil(n / 8)).fill(0xff);
      bitmap[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    }
  }
  return bitmap ? { bitmap, nullCount } : { nullCount: 0 };
}

const encoder = new TextEncoder();

function utf8Data(col: ArrowColumn, strings: (string | null)[], n: number): Data {
  const offsets = new Int32Array(n + 1);
  let buf = new Uint8Array(Math.max(64, n * 16));
  let pos = 0;
  let bitmap: Uint8Array | undefined;
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    const s = strings[i];
    if (s === null || s === undefined) {
      bitmap ??= new Uint8Array(Math.ceil(n / 8)).fill(0xff);
      bitmap[i >> 3]! &= ~(1 << (i & 7));
      nullCount++;
    } else {
      if (pos + s.length * 3 > buf.length) buf = grow(buf, pos, pos + s.length * 3);
      pos += encoder.encodeInto(s, buf.subarray(pos)).written;
    }
    offsets[i + 1] = pos;
  }
  return utf8Column(col, n, nullCount, bitmap, offsets, buf.subarray(0, pos));
}

/** One column of a chunk (its first n rows) as Arrow data. */
export function columnData(col: ArrowColumn, vec: VectorLike, n: number): Data {
  switch (col.kind) {
    case 'fixed': {
      const items = (vec as unknown as Internals).items;
      const out = new col.ctor!(n);
      const sameKind = items && typeof items[0] === typeof (out as ArrayLike<number | bigint>)[0];
      if (items && items.length >= n && (n === 0 || sameKind)) out.set(items.subarray(0, n));
      else for (let i = 0; i < n; i++) (out as unknown as unknown[])[i] = toFixed(vec.getItem(i), col);
      const { bitmap, nullCount } = validity(vec, n);
      return makeData({
        type: col.field.type as Int32,
        length: n,
        nullCount,
        ...(bitmap ? { nullBitmap: bitmap } : {}),
        data: out as never,
      });
    }
    case 'bool': {
      const data = new Uint8Array(Math.ceil(n / 8));
      let bitmap: Uint8Array | undefined;
      let nullCount = 0;
      for (let i = 0; i < n; i++) {
        const x = vec.getItem(i);
        if (x === null) {
          bitmap ??= new Uint8Array(Math.ceil(n / 8)).fill(0xff);
          bitmap[i >> 3]! &= ~(1 << (i & 7));
          nullCount++;
        } else if (x) data[i >> 3]! |= 1 << (i & 7);
      }
      return makeData({
        type: col.field.type as Bool,
        length: n,
        nullCount,
        ...(bitmap ? { nullBitmap: bitmap } : {}),
        data,
      });
    }
    case 'decimal': {
      const words = new BigInt64Array(n * 2);
      const v = vec as unknown as { getScaledValue?(i: number): number | bigint | null };
      let bitmap: Uint8Array | undefined;
      let nullCount = 0;
      for (let i = 0; i < n; i++) {
        const item = v.getScaledValue ? v.getScaledValue(i) : vec.getItem(i);
        const raw =
          item === null || typeof item === 'number' || typeof item === 'bigint'
            ? item
            : (item as { value: bigint }).value;
        if (raw === null) {
          bitmap ??= new Uint8Array(Math.ceil(n / 8)).fill(0xff);
          bitmap[i >> 3]! &= ~(1 << (i & 7));
          nullCount++;
          continue;
        }
        const b = BigInt(raw);
        words[2 * i] = BigInt.asIntN(64, b);
        words[2 * i + 1] = BigInt.asIntN(64, b >> 64n);
      }
      return makeData({
        type: col.field.type as Decimal,
        length: n,
        nullCount,
        ...(bitmap ? { nullBitmap: bitmap } : {}),
        data: new Uint32Array(words.buffer),
      });
    }
    case 'binary': {
      const parts: Uint8Array[] = [];
      const offsets = new Int32Array(n + 1);
      let pos = 0;
      let bitmap: Uint8Array | undefined;
      let nullCount = 0;
      for (let i = 0; i < n; i++) {
        const x = vec.getItem(i) as { bytes: Uint8Array } | null;
        if (x === null) {
          bitmap ??= new Uint8Array(Math.ceil(n / 8)).fill(0xff);
          bitmap[i >> 3]! &= ~(1 << (i & 7));
          nullCount++;
        } else {
          parts.push(x.bytes);
          pos += x.bytes.length;
        }
        offsets[i + 1] = pos;
      }
      const data = new Uint8Array(pos);
      let p = 0;
      for (const part of parts) {
        data.set(part, p);
        p += part.length;
      }
      return makeData({
        type: col.field.type as Binary,
        length: n,
        nullCount,
        ...(bitmap ? { nullBitmap: bitmap } : {}),
        valueOffsets: offsets,
        data,
      });
    }
    case 'utf8':
      return varcharData(col, vec, n);
    default: {
      const strings = Array.from<string | null>({ length: n });
      for (let i = 0; i < n; i++) strings[i] = scalarString(vec.getItem(i), col.type);
      return utf8Data(col, strings, n);
    }
  }
}

/**
 * VARCHAR without decoding: DuckDB's 16-byte string_t keeps strings of up to 12 bytes inline, so their UTF-8
 * bytes are copied straight from the vector; longer ones are read through the public accessor.
 */
function varcharData(col: ArrowColumn, vec: VectorLike, n: number): Data {
  const dv = (vec as unknown as { dataView?: DataView; itemOffset?: number }).dataView;
  if (!dv || (vec as unknown as { itemOffset?: number }).itemOffset) {
    const strings = Array.from<string | null>({ length: n });
    for (let i = 0; i < n; i++) strings[i] = vec.getItem(i) as string | null;
    return utf8Data(col, strings, n);
  }
  const { bitmap, nullCount } = validity(vec, n);
  const raw = new Uint8Array(dv.buffer, dv.byteOffset, dv.byteLength);
  const offsets = new Int32Array(n + 1);
  let buf = new Uint8Array(Math.max(64, n * 12));
  let pos = 0;
  for (let i = 0; i < n; i++) {
    if (!bitmap || (bitmap[i >> 3]! >> (i & 7)) & 1) {
      const at = i * 16;
      const len = dv.getUint32(at, true);
      if (len <= 12) {
        if (pos + len > buf.length) buf = grow(buf, pos, pos + len);
        for (let k = 0; k < len; k++) buf[pos + k] = raw[at + 4 + k]!;
        pos += len;
      } else {
        const str = vec.getItem(i) as string;
        if (pos + str.length * 3 > buf.length) buf = grow(buf, pos, pos + str.length * 3);
        pos += encoder.encodeInto(str, buf.subarray(pos)).written;
      }
    }
    offsets[i + 1] = pos;
  }
  return utf8Column(col, n, nullCount, bitmap, offsets, buf.subarray(0, pos));
}

function utf8Column(
  col: ArrowColumn,
  n: number,
  nullCount: number,
  bitmap: Uint8Array | undefined,
  offsets: Int32Array,
  bytes: Uint8Array,
): Data {
  return makeData({
    type: col.field.type as Utf8,
    length: n,
    nullCount,
    ...(bitmap ? { nullBitmap: bitmap } : {}),
    valueOffsets: offsets,
    data: bytes,
  });
}

function grow(buf: Uint8Array, used: number, need: number): Uint8Array<ArrayBuffer> {
  const next = new Uint8Array(Math.max(need, buf.length * 2));
  next.set(buf.subarray(0, used));
  return next;
}

function toFixed(x: unknown, col: ArrowColumn): number | bigint {
  if (x === null || x === undefined) return col.width === 8 && col.ctor !== (Float64Array as never) ? 0n : 0;
  if (typeof x === 'object') {
    const o = x as { micros?: bigint; days?: number; millis?: bigint; seconds?: bigint; nanos?: bigint };
    return o.micros ?? o.millis ?? o.seconds ?? o.nanos ?? o.days ?? 0;
  }
  if (col.ctor === (BigInt64Array as never) || col.ctor === (BigUint64Array as never))
    return BigInt(x as number);
  return Number(x);
}

export function recordBatch(
  schema: Schema,
  cols: ArrowColumn[],
  vectors: VectorLike[],
  n: number,
): RecordBatch {
  const children = cols.map((c, i) => columnData(c, vectors[i]!, n));
  const data = makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children });
  return new RecordBatch(schema, data);
}

/** An Arrow IPC stream (schema, batches, end-of-stream marker) as bytes. */
export function ipcStream(schema: Schema, batches: RecordBatch[]): Uint8Array {
  const writer = new RecordBatchStreamWriter();
  writer.reset(undefined, schema);
  for (const b of batches) writer.write(b);
  writer.finish();
  return writer.toUint8Array(true);
}

/**
 * The same IPC stream as its pieces (message headers, each column buffer, padding), without joining them:
 * the buffers are views of the batches' own arrays, so a chunk that goes to a file is written with one
 * `writev` instead of being copied into a 16 MB buffer first.
 */
export async function ipcStreamParts(schema: Schema, batches: RecordBatch[]): Promise<Uint8Array[]> {
  const writer = new RecordBatchStreamWriter();
  writer.reset(undefined, schema);
  for (const b of batches) writer.write(b);
  writer.finish();
  const parts: Uint8Array[] = [];
  for await (const part of writer) parts.push(part);
  return parts;
}
