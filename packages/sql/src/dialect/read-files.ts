/**
 * `read_files(path, option => value, ...)`: Databricks' table-valued function for files in volumes, as
 * DuckDB's own readers. Before the rewrite (rewrite.ts `prepare`), each call in the text becomes the DuckDB
 * call that reads the same files the same way: `read_csv('<the volume's directory>/**\/*', header = true, ...)`.
 * It runs before the rewrite because it needs the volume's directory, whether the path is a directory (read
 * recursively, as read_files does) and, for a CSV without a header or schema, its column count (Spark names
 * such columns `_c0`, `_c1`, ...): asynchronous work the synchronous translation cannot do.
 *
 * Formats: csv, json, parquet (inferred from the file extension when `format` is not given). Options: format,
 * header, schema, inferColumnTypes, sep/delimiter, quote, escape, nullValue, dateFormat, timestampFormat,
 * multiLine; anything else is refused by name rather than ignored.
 */
import { stat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { literal } from '@minilake/engine-duckdb';
import { parseDatabricksType, toDuckDbTypeText } from '@minilake/datatypes';
import type { Session } from './session.js';
import { sqlError, unsupported } from './sql-error.js';
import { tokensOf, type Token } from './tokens.js';
import { javaToStrftime } from './translate/text.js';
import { resolveVolumes } from './volumes.js';

type Value = string | boolean | number;

const OPTIONS = new Set([
  'format',
  'header',
  'schema',
  'infercolumntypes',
  'sep',
  'delimiter',
  'quote',
  'escape',
  'nullvalue',
  'dateformat',
  'timestampformat',
  'multiline',
]);

const FORMATS: Record<string, string> = { csv: 'csv', json: 'json', parquet: 'parquet' };
const EXTENSIONS: Record<string, string> = {
  '.csv': 'csv',
  '.tsv': 'csv',
  '.json': 'json',
  '.jsonl': 'json',
  '.ndjson': 'json',
  '.parquet': 'parquet',
};

/** The text with every read_files(...) call replaced by its DuckDB reader; the text itself when it has none. */
export async function expandReadFiles(text: string, s: Session): Promise<string> {
  if (!/read_files/i.test(text)) return text;
  const toks = tokensOf(text);
  const cps = Array.from(text);
  const edits: { start: number; end: number; text: string }[] = [];
  for (let i = 0; i + 1 < toks.length; i++) {
    if (toks[i]!.text.toLowerCase() !== 'read_files' || toks[i + 1]!.type !== 'L_PAREN') continue;
    if (toks[i - 1]?.type === 'DOT') continue;
    const close = closing(toks, i + 1);
    if (close < 0) continue;
    const call = await readerFor(args(toks, i + 2, close), s);
    edits.push({ start: toks[i]!.start, end: toks[close]!.end, text: call });
    i = close;
  }
  if (edits.length === 0) return text;
  let out = '';
  let pos = 0;
  for (const e of edits) {
    out += cps.slice(pos, e.start).join('') + e.text;
    pos = e.end;
  }
  return out + cps.slice(pos).join('');
}

function closing(toks: Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < toks.length; k++) {
    if (toks[k]!.type === 'L_PAREN') depth++;
    else if (toks[k]!.type === 'R_PAREN' && --depth === 0) return k;
  }
  return -1;
}

/** The call's arguments: the path, then `name => value` options (names lower-cased). */
function args(toks: Token[], from: number, to: number): { path: string; options: Map<string, Value> } {
  const parts: Token[][] = [[]];
  let depth = 0;
  for (let k = from; k < to; k++) {
    const t = toks[k]!;
    if (t.type === 'L_PAREN') depth++;
    else if (t.type === 'R_PAREN') depth--;
    if (t.type === 'COMMA' && depth === 0) parts.push([]);
    else parts[parts.length - 1]!.push(t);
  }
  const [first, ...rest] = parts;
  if (!first || first.length !== 1 || first[0]!.type !== 'STRING')
    throw sqlError(
      'INVALID_PARAMETER_VALUE',
      '22023',
      "read_files takes the path as its first argument, a string literal: read_files('/Volumes/<catalog>/<schema>/<volume>/<path>', format => 'csv').",
    );
  const options = new Map<string, Value>();
  for (const p of rest) {
    // name => value (the arrow may tokenize as one token or as `=` and `>`)
    const arrow = p[1]?.text === '=>' ? 2 : p[1]?.text === '=' && p[2]?.text === '>' ? 3 : -1;
    if (arrow < 0 || p.length !== arrow + 1)
      throw sqlError(
        'INVALID_PARAMETER_VALUE',
        '22023',
        `read_files takes its options as named arguments with constant values (option => 'value'), not ${p.map((t) => t.text).join(' ')}.`,
      );
    const name = p[0]!.text.toLowerCase();
    const v = p[arrow]!;
    const value: Value =
      v.type === 'STRING'
        ? v.text
        : v.type === 'NUMBER'
          ? Number(v.text)
          : v.text.toLowerCase() === 'true'
            ? true
            : v.text.toLowerCase() === 'false'
              ? false
              : (() => {
                  throw sqlError(
                    'INVALID_PARAMETER_VALUE',
                    '22023',
                    `The read_files option ${p[0]!.text} takes a constant: a string, a number, true or false.`,
                  );
                })();
    if (!OPTIONS.has(name))
      throw unsupported(
        `The read_files option '${p[0]!.text}' (MiniLake reads format, header, schema, inferColumnTypes, sep, quote, escape, nullValue, dateFormat, timestampFormat and multiLine)`,
      );
    options.set(name, value);
  }
  return { path: first[0]!.text, options };
}

const bool = (v: Value | undefined, dflt: boolean): boolean =>
  v === undefined ? dflt : typeof v === 'boolean' ? v : String(v).toLowerCase() === 'true';

async function readerFor(call: { path: string; options: Map<string, Value> }, s: Session): Promise<string> {
  const { path: p, options: o } = call;
  if (!/^(dbfs:)?\/Volumes\//.test(p))
    throw unsupported(
      `read_files on '${p}' (MiniLake reads files in volumes: /Volumes/<catalog>/<schema>/<volume>/...)`,
    );
  const real = (await resolveVolumes([p], s)).get(p)!;
  const glob = /[*?[{]/.test(real);
  const isDir =
    !glob &&
    (await stat(real)
      .then((st) => st.isDirectory())
      .catch(() => false));
  if (
    !glob &&
    !isDir &&
    !(await stat(real)
      .then(() => true)
      .catch(() => false))
  )
    throw sqlError('PATH_NOT_FOUND', '42K03', `Path does not exist: ${p}.`);
  // A directory is read with everything under it, as read_files discovers files recursively.
  const target = isDir ? `${real.replace(/\/+$/, '')}/**/*` : real;
  const format = String(o.get('format') ?? (await inferFormat(real, isDir)) ?? '').toLowerCase();
  if (!format)
    throw sqlError(
      'INVALID_PARAMETER_VALUE',
      '22023',
      `read_files cannot tell the format of '${p}' from its files' extensions: give it, e.g. format => 'csv'.`,
    );
  if (!FORMATS[format])
    throw unsupported(`read_files with format '${format}' (MiniLake reads csv, json and parquet)`);
  const schema = o.get('schema');
  const columns = schema === undefined ? undefined : columnsOf(String(schema));
  const infer = bool(o.get('infercolumntypes'), true);
  const named: string[] = [];
  const put = (k: string, v: string) => named.push(`${k} = ${v}`);
  if (format === 'parquet') {
    if (columns) throw unsupported('read_files with a schema for parquet files (they carry their own)');
    return `read_parquet(${literal(target)})`;
  }
  if (format === 'json') {
    put('format', literal('auto'));
    if (columns) put('columns', columns);
    else if (!infer) throw unsupported('read_files with inferColumnTypes => false for json');
    for (const k of ['dateformat', 'timestampformat'])
      if (o.has(k)) put(k, literal(javaToStrftime(String(o.get(k)))));
    return `read_json(${literal(target)}, ${named.join(', ')})`;
  }
  const header = bool(o.get('header'), false);
  put('header', header ? 'true' : 'false');
  const sep = o.get('sep') ?? o.get('delimiter');
  if (sep !== undefined) put('delim', literal(String(sep)));
  if (o.has('quote')) put('quote', literal(String(o.get('quote'))));
  if (o.has('escape')) put('escape', literal(String(o.get('escape'))));
  if (o.has('nullvalue')) put('nullstr', literal(String(o.get('nullvalue'))));
  if (o.has('dateformat')) put('dateformat', literal(javaToStrftime(String(o.get('dateformat')))));
  if (o.has('timestampformat'))
    put('timestampformat', literal(javaToStrftime(String(o.get('timestampformat')))));
  if (columns) put('columns', columns);
  else {
    if (!infer) put('all_varchar', 'true');
    if (!header) {
      // Spark's names for the columns of a file without a header: _c0, _c1, ...
      const n = await csvWidth(s, `read_csv(${literal(target)}, ${named.join(', ')})`);
      put('names', `[${Array.from({ length: n }, (_, k) => literal(`_c${k}`)).join(', ')}]`);
    }
  }
  return `read_csv(${literal(target)}, ${named.join(', ')})`;
}

/** `id INT, name STRING` -> DuckDB's `columns` struct {'id': 'INTEGER', 'name': 'VARCHAR'}. */
function columnsOf(schema: string): string {
  let node;
  try {
    node = parseDatabricksType(`struct<${schema}>`);
  } catch (e) {
    throw sqlError(
      'PARSE_SYNTAX_ERROR',
      '42601',
      `The read_files schema '${schema}' is not a list of columns and types (id INT, name STRING): ${(e as Error).message}`,
    );
  }
  if (node.kind !== 'struct')
    throw sqlError('INVALID_PARAMETER_VALUE', '22023', `Bad read_files schema '${schema}'.`);
  return `{${node.fields.map((f) => `${literal(f.name)}: ${literal(toDuckDbTypeText(f.type))}`).join(', ')}}`;
}

/** The format the files' extension names: the path's own, or the first file found under the directory. */
async function inferFormat(real: string, isDir: boolean): Promise<string | undefined> {
  const byExt = (f: string) => EXTENSIONS[path.extname(f.replace(/\.(gz|zst|snappy)$/, '')).toLowerCase()];
  if (!isDir) return byExt(real);
  const entries = await readdir(real, { recursive: true, withFileTypes: true }).catch(() => []);
  for (const e of entries) if (e.isFile() && !/^[._]/.test(e.name)) return byExt(e.name);
  return undefined;
}

async function csvWidth(s: Session, reader: string): Promise<number> {
  const r = await s.conn.runAndReadAll(`DESCRIBE SELECT * FROM ${reader}`);
  return r.getRows().length;
}
