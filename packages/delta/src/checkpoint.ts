/**
 * Classic single-file checkpoints written by MiniLake: the replayed state of a version (protocol, metaData,
 * every live add) as one Parquet file, `<version>.checkpoint.parquet`, plus the `_last_checkpoint` hint. DuckDB
 * writes the file (read_json of the actions with the checkpoint schema, then COPY), so Spark, delta-rs and our
 * reader read it. Tombstones (remove actions) and app transactions are not carried: readers do not need them,
 * and VACUUM here works from the files on disk.
 */
import { randomUUID } from 'node:crypto';
import { rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { literal } from '@minilake/engine-duckdb';
import { type Action, LOG_DIR, type SqlRunner } from './log.js';
import type { DeltaReader, DeltaSnapshot } from './snapshot.js';

/** delta.checkpointInterval of the table (Delta's default: every 10 commits). */
export function checkpointInterval(snap: DeltaSnapshot): number {
  const n = Number(snap.metadata.configuration?.['delta.checkpointInterval']);
  return Number.isInteger(n) && n > 0 ? n : 10;
}

export function checkpointFileName(version: number): string {
  return `${String(version).padStart(20, '0')}.checkpoint.parquet`;
}

const MAP = 'MAP(VARCHAR, VARCHAR)';
const DV =
  'STRUCT(storageType VARCHAR, pathOrInlineDv VARCHAR, "offset" INTEGER, sizeInBytes INTEGER, cardinality BIGINT)';
/** The checkpoint's columns, typed as Delta's PROTOCOL.md specifies them. */
const COLUMNS: [string, string][] = [
  ['txn', 'STRUCT(appId VARCHAR, version BIGINT, lastUpdated BIGINT)'],
  [
    'add',
    `STRUCT(path VARCHAR, partitionValues ${MAP}, size BIGINT, modificationTime BIGINT, dataChange BOOLEAN, stats VARCHAR, tags ${MAP}, deletionVector ${DV})`,
  ],
  [
    'remove',
    `STRUCT(path VARCHAR, deletionTimestamp BIGINT, dataChange BOOLEAN, extendedFileMetadata BOOLEAN, partitionValues ${MAP}, size BIGINT, deletionVector ${DV})`,
  ],
  [
    'metaData',
    `STRUCT(id VARCHAR, name VARCHAR, description VARCHAR, format STRUCT(provider VARCHAR, options ${MAP}), schemaString VARCHAR, partitionColumns VARCHAR[], configuration ${MAP}, createdTime BIGINT)`,
  ],
  [
    'protocol',
    'STRUCT(minReaderVersion INTEGER, minWriterVersion INTEGER, readerFeatures VARCHAR[], writerFeatures VARCHAR[])',
  ],
];

/**
 * Writes the checkpoint of `version` (unless one is there already) and points `_last_checkpoint` at it. The
 * file appears under its final name only when complete (written aside, then renamed).
 */
export async function writeCheckpoint(
  sql: SqlRunner,
  reader: DeltaReader,
  root: string,
  version: number,
): Promise<void> {
  const snap = await reader.snapshot(root, version);
  const log = path.join(root, LOG_DIR);
  const final = path.join(log, checkpointFileName(version));
  const exists = await stat(final).then(
    () => true,
    () => false,
  );
  const actions: Action[] = [
    { protocol: snap.protocol },
    { metaData: snap.metadata },
    ...snap.files.map((f) => ({ add: { ...f, dataChange: false } })),
  ];
  if (!exists) {
    const tmp = path.join(log, `.ml-${randomUUID()}`);
    try {
      await writeFile(`${tmp}.json`, actions.map((a) => JSON.stringify(a)).join('\n') + '\n');
      const cols = COLUMNS.map(([n, t]) => `${literal(n)}: ${literal(t)}`).join(', ');
      await sql.all(
        `COPY (SELECT ${COLUMNS.map(([n]) => `"${n}"`).join(', ')} FROM read_json(${literal(`${tmp}.json`)}, format = 'newline_delimited', columns = {${cols}})) TO ${literal(`${tmp}.parquet`)} (FORMAT parquet, COMPRESSION snappy)`,
      );
      await rename(`${tmp}.parquet`, final);
    } finally {
      await rm(`${tmp}.json`, { force: true });
      await rm(`${tmp}.parquet`, { force: true });
    }
  }
  const size = (await stat(final)).size;
  // The hint too appears whole (written aside, then renamed): a reader never parses half of it.
  const hint = path.join(log, `.ml-${randomUUID()}.last_checkpoint`);
  try {
    await writeFile(
      hint,
      JSON.stringify({ version, size: actions.length, sizeInBytes: size, numOfAddFiles: snap.files.length }),
    );
    await rename(hint, path.join(log, '_last_checkpoint'));
  } finally {
    await rm(hint, { force: true });
  }
}
