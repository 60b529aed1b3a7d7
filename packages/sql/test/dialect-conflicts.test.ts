/**
 * Concurrent DDL and DML on one name (issue 30's storms found it): DuckDB's optimistic concurrency fails the
 * statement that commits second with a write-write conflict. Outside a BEGIN the dialect runs it again, so
 * the client sees what Databricks answers (success, already exists, not found); one that keeps losing is
 * DELTA_METADATA_CHANGED, never INTERNAL_ERROR.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPolyglot, SqlError } from '../src/dialect/index.js';
import { isWriteConflictError, mapDuckError } from '../src/dialect/engine-errors.js';
import { engine, openDuck, runSql } from './dialect-helpers.js';

let duck: Awaited<ReturnType<typeof openDuck>>;
beforeAll(async () => {
  await loadPolyglot();
  duck = await openDuck();
});
afterAll(async () => {
  await duck.close();
});

describe('write-write conflicts', () => {
  it('map to DELTA_METADATA_CHANGED (SQLSTATE 2D521), which a client retries', () => {
    for (const raw of [
      'TransactionContext Error: Catalog write-write conflict on create with "Schema\0s\0s\0Table\0s\0one"',
      'TransactionContext Error: Failed to commit: Transaction conflict: attempting to insert into table "one" but it has been dropped by a different transaction',
    ]) {
      const e = mapDuckError(raw) as SqlError;
      expect(e.errorClass).toBe('DELTA_METADATA_CHANGED');
      expect(e.sqlState).toBe('2D521');
      expect(e.message).toMatch(/^\[DELTA_METADATA_CHANGED\] .*try the operation again/);
      expect(isWriteConflictError(e)).toBe(true);
    }
    expect(isWriteConflictError(mapDuckError('Catalog Error: Table with name x does not exist!'))).toBe(
      false,
    );
  });

  it('6 connections creating, filling and dropping one table at once: no INTERNAL_ERROR', async () => {
    const leases = await Promise.all(Array.from({ length: 6 }, () => engine.acquire()));
    const errors: string[] = [];
    try {
      await Promise.all(
        leases.map(async (lease, i) => {
          for (let round = 0; round < 20; round++) {
            const sql = [
              'CREATE TABLE IF NOT EXISTS main.default.one (a INT)',
              'INSERT INTO main.default.one VALUES (1)',
              'DROP TABLE IF EXISTS main.default.one',
            ][(i + round) % 3]!;
            try {
              await runSql(lease.conn as never, sql);
            } catch (e) {
              expect(e).toBeInstanceOf(SqlError);
              errors.push((e as SqlError).errorClass);
            }
          }
        }),
      );
    } finally {
      for (const l of leases) l.release();
    }
    // An INSERT may find the table dropped; nothing else may fail, least of all as an internal error.
    expect(errors.filter((c) => c !== 'TABLE_OR_VIEW_NOT_FOUND' && c !== 'DELTA_METADATA_CHANGED')).toEqual(
      [],
    );
  });
});
