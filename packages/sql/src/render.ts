/**
 * How DuckDB values become Databricks result values: the manifest's column types, the string form every
 * JSON_ARRAY and CSV value takes (Spark's casts to STRING), and nested values as JSON text.
 */
import { duckDbTypeToDatabricks, upperTypeText } from '@minilake/datatypes';

/** DuckDB C API type ids (stable across releases). */
export const T = {
  BOOLEAN: 1,
  TINYINT: 2,
  SMALLINT: 3,
  INTEGER: 4,
  BIGINT: 5,
  UTINYINT: 6,
  USMALLINT: 7,
  UINTEGER: 8,
  UBIGINT: 9,
  FLOAT: 10,
  DOUBLE: 11,
  TIMESTAMP: 12,
  DATE: 13,
  TIME: 14,
  INTERVAL: 15,
  HUGEINT: 16,
  VARCHAR: 17,
  BLOB: 18,
  DECIMAL: 19,
  TIMESTAMP_S: 20,
  TIMESTAMP_MS: 21,
  TIMESTAMP_NS: 22,
  ENUM: 23,
  LIST: 24,
  STRUCT: 25,
  MAP: 26,
  UUID: 27,
  TIMESTAMP_TZ: 31,
  UHUGEINT: 32,
  ARRAY: 33,
  SQLNULL: 36,
} as const;

/** The parts of a DuckDB type this package reads. */
export interface TypeLike {
  typeId: number;
  toString(): string;
  width?: number;
  scale?: number;
  /** The Databricks type text when the engine's type does not tell it (`INTERVAL YEAR TO MONTH`). */
  databricks?: string;
}

/**
 * The engine's type of a column with the Databricks type the dialect found for it: an INTERVAL's fields, or
 * VOID for a bare NULL (which DuckDB types INTEGER), VARIANT for parse_json (JSON text in DuckDB).
 */
export function withDatabricksType<X extends TypeLike>(type: X, text: string | undefined): X {
  if (text === undefined || (type.typeId !== T.INTERVAL && text !== 'VOID' && text !== 'VARIANT'))
    return type;
  return Object.assign(Object.create(type) as X, { databricks: text });
}

/** The parts of a DuckDB vector this package reads. */
export interface VectorLike {
  getItem(i: number): unknown;
}

export interface ColumnInfo {
  name: string;
  position: number;
  type_name: string;
  type_text: string;
  type_precision?: number;
  type_scale?: number;
  type_interval_type?: string;
}

/** The manifest column: Databricks type names, type text in the upper case the real API uses. */
// Column types repeat across statements: parse each engine type text once (bounded, first come first kept).
const typeInfos = new Map<string, ReturnType<typeof duckDbTypeToDatabricks>>();
const TYPE_INFOS_MAX = 2000;

function databricksTypeOf(text: string): ReturnType<typeof duckDbTypeToDatabricks> {
  let info = typeInfos.get(text);
  if (!info) {
    info = duckDbTypeToDatabricks(text);
    if (typeInfos.size < TYPE_INFOS_MAX) typeInfos.set(text, info);
  }
  return info;
}

export function columnInfo(name: string, position: number, type: TypeLike): ColumnInfo {
  const col: ColumnInfo = { name, position, type_name: 'STRING', type_text: 'STRING' };
  if (type.databricks === 'VOID') return { name, position, type_name: 'NULL', type_text: 'VOID' };
  if (type.databricks === 'VARIANT') return { name, position, type_name: 'VARIANT', type_text: 'VARIANT' };
  if (type.typeId === T.INTERVAL) {
    // DuckDB has one INTERVAL; Spark's type names the fields (DAY TO SECOND is what `ts - ts` gives).
    col.type_name = 'INTERVAL';
    col.type_text = type.databricks ?? 'INTERVAL DAY TO SECOND';
    col.type_interval_type = col.type_text.replace(/^INTERVAL\s*/, '');
    return col;
  }
  try {
    const info = databricksTypeOf(type.toString());
    col.type_name = info.type_name.toUpperCase();
    col.type_text = upperTypeText(info.type_text);
    if (info.type_precision !== undefined) col.type_precision = info.type_precision;
    if (info.type_scale !== undefined) col.type_scale = info.type_scale;
  } catch {
    if (type.typeId === T.SQLNULL) {
      col.type_name = 'NULL';
      col.type_text = 'VOID';
    }
  }
  if (col.type_name === 'INTERVAL') col.type_interval_type = col.type_text.replace(/^INTERVAL\s*/, '');
  return col;
}

/** Java's Double.toString / Float.toString, which Spark's cast to STRING follows. */
export function sparkDouble(x: number, isFloat = false): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  let digits: string;
  if (isFloat) {
    let p = 1;
    for (; p < 9; p++) if (Math.fround(Number(x.toPrecision(p))) === x) break;
    digits = Number(x.toPrecision(p)).toString();
    x = Number(digits);
  } else digits = String(x);
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    if (digits.includes('e')) digits = x.toFixed(20).replace(/0+$/, '');
    return digits.includes('.') ? digits : `${digits}.0`;
  }
  const [m, e] = x.toExponential().split('e') as [string, string];
  const mant = m.includes('.') ? m : `${m}.0`;
  return `${mant}E${e.startsWith('+') ? e.slice(1) : e}`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Microseconds since the epoch to `2024-01-01T10:00:00.123Z` (micro digits kept when present). */
export function isoMicros(micros: bigint, utc: boolean): string {
  let ms = micros / 1000n;
  let rest = micros % 1000n;
  if (rest < 0n) {
    rest += 1000n;
    ms -= 1n;
  }
  const d = new Date(Number(ms));
  if (Number.isNaN(d.getTime())) return micros > 0n ? 'infinity' : '-infinity';
  const y = d.getUTCFullYear();
  const year = y >= 0 && y <= 9999 ? pad(y, 4) : (y < 0 ? '-' : '+') + pad(Math.abs(y), 6);
  let s =
    `${year}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:` +
    `${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}.${pad(d.getUTCMilliseconds(), 3)}`;
  if (rest !== 0n) s += pad(Number(rest), 3);
  return utc ? `${s}Z` : s;
}

interface IntervalLike {
  months: number;
  days: number;
  micros: bigint;
}

const DAY_MICROS = 86_400_000_000n;

/**
 * An interval as Databricks renders it to a client that does not take intervals as Arrow (Spark's Hive
 * style, whatever the field range): year-month `[-]y-m`, day-time `[-]d hh:mm:ss.nnnnnnnnn`. DuckDB's value
 * has months, days and micros; a day-time interval counts a month as 30 days and a day as 24 hours.
 */
export function intervalString(v: IntervalLike, typeText = 'INTERVAL DAY TO SECOND'): string {
  if (/^INTERVAL\s+(YEAR|MONTH)/i.test(typeText)) {
    const m = v.months;
    const a = Math.abs(m);
    return `${m < 0 ? '-' : ''}${Math.floor(a / 12)}-${a % 12}`;
  }
  let us = (BigInt(v.months) * 30n + BigInt(v.days)) * DAY_MICROS + BigInt(v.micros);
  const sign = us < 0n ? '-' : '';
  if (us < 0n) us = -us;
  const days = us / DAY_MICROS;
  us %= DAY_MICROS;
  const h = us / 3_600_000_000n;
  const mi = (us / 60_000_000n) % 60n;
  const s = (us / 1_000_000n) % 60n;
  const nanos = (us % 1_000_000n) * 1000n;
  const p2 = (x: bigint) => String(x).padStart(2, '0');
  return `${sign}${days} ${p2(h)}:${p2(mi)}:${p2(s)}.${String(nanos).padStart(9, '0')}`;
}

interface DecimalLike {
  value: bigint;
  scale: number;
  toString(): string;
}
interface MicrosLike {
  micros: bigint;
}
interface BytesLike {
  bytes: Uint8Array;
}

/** A JSON fragment for a value inside a nested value (Spark's to_json rendering). */
export function jsonFragment(v: unknown, type: TypeLike | undefined): string {
  if (v === null || v === undefined) return 'null';
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'number':
      if (!Number.isFinite(v)) return JSON.stringify(sparkDouble(v));
      return type && (type.typeId === T.DOUBLE || type.typeId === T.FLOAT)
        ? sparkDouble(v, type.typeId === T.FLOAT)
        : String(v);
  }
  const o = v as Record<string, unknown>;
  const name = (o.constructor as { name?: string } | undefined)?.name ?? '';
  switch (name) {
    case 'DuckDBListValue':
    case 'DuckDBArrayValue': {
      const child = (type as unknown as { valueType?: TypeLike } | undefined)?.valueType;
      return `[${(o.items as unknown[]).map((x) => jsonFragment(x, child)).join(',')}]`;
    }
    case 'DuckDBStructValue': {
      const entries = o.entries as Record<string, unknown>;
      const types = structTypes(type);
      return `{${Object.entries(entries)
        .map(([k, x]) => `${JSON.stringify(k)}:${jsonFragment(x, types.get(k))}`)
        .join(',')}}`;
    }
    case 'DuckDBMapValue': {
      const mt = type as unknown as { keyType?: TypeLike; valueType?: TypeLike } | undefined;
      return `{${(o.entries as { key: unknown; value: unknown }[])
        .map(
          (e) =>
            `${JSON.stringify(scalarString(e.key, mt?.keyType) ?? 'null')}:${jsonFragment(e.value, mt?.valueType)}`,
        )
        .join(',')}}`;
    }
    case 'DuckDBDecimalValue':
      return String(o);
    default:
      return JSON.stringify(scalarString(v, type));
  }
}

function structTypes(type: TypeLike | undefined): Map<string, TypeLike> {
  const t = type as unknown as { entryNames?: string[]; entryTypes?: TypeLike[] } | undefined;
  const m = new Map<string, TypeLike>();
  if (t?.entryNames && t.entryTypes) t.entryNames.forEach((n, i) => m.set(n, t.entryTypes![i]!));
  return m;
}

/** The string a value becomes in JSON_ARRAY and CSV (null stays null). */
export function scalarString(v: unknown, type: TypeLike | undefined): string | null {
  if (v === null || v === undefined) return null;
  switch (typeof v) {
    case 'string':
      return v;
    case 'boolean':
      return v ? 'true' : 'false';
    case 'bigint':
      return v.toString();
    case 'number':
      return type && (type.typeId === T.DOUBLE || type.typeId === T.FLOAT)
        ? sparkDouble(v, type.typeId === T.FLOAT)
        : String(v);
  }
  const tid = type?.typeId;
  if (tid === T.INTERVAL) return intervalString(v as IntervalLike, type?.databricks);
  if (tid === T.TIMESTAMP_TZ) return isoMicros((v as MicrosLike).micros, true);
  if (tid === T.TIMESTAMP) return isoMicros((v as MicrosLike).micros, false);
  if (tid === T.TIMESTAMP_MS) return isoMicros((v as { millis: bigint }).millis * 1000n, false);
  if (tid === T.TIMESTAMP_S) return isoMicros((v as { seconds: bigint }).seconds * 1_000_000n, false);
  if (tid === T.TIMESTAMP_NS) return isoMicros((v as { nanos: bigint }).nanos / 1000n, false);
  if (tid === T.BLOB) return Buffer.from((v as BytesLike).bytes).toString('base64');
  if (tid === T.DECIMAL) return (v as DecimalLike).toString();
  if (tid === T.LIST || tid === T.ARRAY || tid === T.STRUCT || tid === T.MAP) return jsonFragment(v, type);
  const name = (v as object).constructor?.name;
  if (name === 'DuckDBListValue' || name === 'DuckDBStructValue' || name === 'DuckDBMapValue')
    return jsonFragment(v, type);
  return String(v);
}

/** A per-column function from (vector, row) to the value's string form. */
export function stringRenderer(type: TypeLike): (vec: VectorLike, i: number) => string | null {
  switch (type.typeId) {
    case T.VARCHAR:
      return (vec, i) => vec.getItem(i) as string | null;
    case T.INTEGER:
    case T.SMALLINT:
    case T.TINYINT:
    case T.UTINYINT:
    case T.USMALLINT:
    case T.UINTEGER:
    case T.BIGINT:
    case T.UBIGINT:
    case T.HUGEINT:
    case T.UHUGEINT: {
      return (vec, i) => {
        const x = vec.getItem(i);
        return x === null ? null : String(x);
      };
    }
    case T.BOOLEAN:
      return (vec, i) => {
        const x = vec.getItem(i);
        return x === null ? null : x ? 'true' : 'false';
      };
    default:
      return (vec, i) => scalarString(vec.getItem(i), type);
  }
}
