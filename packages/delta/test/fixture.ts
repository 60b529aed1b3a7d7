/**
 * What the Delta writer suites share: a DuckDB engine in a fresh temporary folder with a reader on it, the
 * events table's schema, and Spark (when installed) running SQL over Delta folders through
 * `fixtures/spark_sql.py`, which prints one JSON array of rows per statement.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DuckDbEngine } from '@minilake/engine-duckdb';
import { locateInstall, settingsFrom } from '@minilake/engine-spark';
import { afterAll, beforeAll } from 'vitest';
import { DeltaReader, parseSchemaString } from '../src/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The Spark install from packages/engine-spark/install.sh, or undefined (its tests skip, naming it). */
export const install = await locateInstall(
  settingsFrom({ MINILAKE_CACHE: process.env.MINILAKE_CACHE }),
).catch(() => undefined);

/** id BIGINT, name STRING, day DATE. */
export const schema = parseSchemaString(
  JSON.stringify({
    type: 'struct',
    fields: [
      { name: 'id', type: 'long', nullable: true, metadata: {} },
      { name: 'name', type: 'string', nullable: true, metadata: {} },
      { name: 'day', type: 'date', nullable: true, metadata: {} },
    ],
  }),
);

export interface DeltaFixture {
  dir: string;
  engine: DuckDbEngine;
  reader: DeltaReader;
}

/**
 * Opens the engine before the file's tests and removes everything after them; the fields are set once
 * `beforeAll` has run.
 */
export function deltaFixture(prefix: string): DeltaFixture {
  const f = {} as DeltaFixture;
  beforeAll(async () => {
    f.dir = await mkdtemp(path.join(os.tmpdir(), prefix));
    f.engine = await DuckDbEngine.open({ dir: path.join(f.dir, 'duckdb') });
    f.reader = new DeltaReader({ sql: f.engine });
  });
  afterAll(async () => {
    await f.engine?.close();
    if (f.dir) await rm(f.dir, { recursive: true, force: true });
  });
  return f;
}

/** Each statement's rows as Spark returns them (values as strings), in order. */
export async function sparkSql(statements: string[], timeoutMs: number): Promise<unknown[][][]> {
  const { stdout } = await promisify(execFile)(
    install!.python,
    [path.join(here, 'fixtures', 'spark_sql.py'), install!.jars.join(','), ...statements],
    { timeout: timeoutMs },
  );
  return stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as unknown[][]);
}
