import { mkdtempSync } from 'node:fs';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DuckDbEngine,
  catalogAlias,
  catalogAliasToName,
  catalogFileName,
  ident,
  type CatalogChange,
} from '../src/index.js';

let engine: DuckDbEngine;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ml-duck-'));
  engine = await DuckDbEngine.open({ dir, memoryLimit: '512MB', threads: 2 });
});
afterAll(async () => engine.close());

describe('aliases and files', () => {
  it('maps reserved names to safe aliases, injectively', () => {
    expect(catalogAlias('main')).toBe('main__ml');
    expect(catalogAlias('system')).toBe('system__ml');
    expect(catalogAlias('sales')).toBe('sales');
    expect(catalogAlias('main__ml')).toBe('main__ml__ml');
    for (const n of ['main', 'temp', 'x', 'main__ml', 'a__ml', 'memory'])
      expect(catalogAliasToName(catalogAlias(n))).toBe(n);
  });
  it('keeps hostile names out of file paths', () => {
    for (const n of ['../../etc', 'a/b', 'x"; DROP TABLE y; --', 'é'.repeat(300), '..'])
      expect(catalogFileName(n)).not.toMatch(/[/\\]|\.\.|"/);
    expect(catalogFileName('x'.repeat(300)).length).toBeLessThan(200);
  });
  it('quotes identifiers', () => {
    expect(ident('default')).toBe('"default"');
    expect(ident('a"b')).toBe('"a""b"');
  });
});

describe('catalogs', () => {
  it('attaches main under an alias and runs native three-part names', async () => {
    await engine.attachCatalog('main');
    expect(engine.hasCatalog('main')).toBe(true);
    expect(engine.catalogForAlias('main__ml')).toBe('main');
    const a = ident(engine.alias('main'));
    await engine.run(`CREATE SCHEMA IF NOT EXISTS ${a}."default"`);
    await engine.run(`CREATE TABLE ${a}."default".t (id BIGINT, amount DECIMAL(10,2))`);
    await engine.run(`INSERT INTO ${a}."default".t VALUES ($id, 1.5)`, { id: 7 });
    expect(await engine.all(`SELECT id, amount::VARCHAR AS amount FROM ${a}."default".t`)).toEqual([
      { id: 7, amount: '1.50' },
    ]);
    expect(existsSync(path.join(dir, 'catalogs', 'main.duckdb'))).toBe(true);
  });
  it('detaches and deletes files; reset empties everything', async () => {
    await engine.attachCatalog('gone');
    await engine.detachCatalog('gone', { deleteFile: true });
    expect(engine.hasCatalog('gone')).toBe(false);
    expect(existsSync(path.join(dir, 'catalogs', 'gone.duckdb'))).toBe(false);
    await engine.attachCatalog('weird "name";');
    expect(engine.catalogNames()).toContain('weird "name";');
    await engine.reset();
    expect(engine.catalogNames()).toEqual([]);
  });
  it('re-attaches existing files with their data', async () => {
    await engine.attachCatalog('keep');
    await engine.run(`CREATE TABLE "keep".main.k AS SELECT 42 AS v`);
    await engine.detachCatalog('keep');
    await engine.attachCatalog('keep');
    expect(await engine.all(`SELECT v FROM "keep".main.k`)).toEqual([{ v: 42 }]);
  });
  it('moves the catalog epoch and tells listeners only when a change is notified', async () => {
    await engine.attachCatalog('epoch');
    const heard: (CatalogChange | undefined)[] = [];
    const off = engine.onChange((c) => heard.push(c));
    const e0 = engine.catalogEpoch;
    await engine.all(`SELECT comment, 'x' AS word FROM duckdb_tables() WHERE database_name = 'epoch'`);
    await engine.run(`CREATE TABLE "epoch".main.x (a INT)`);
    // The engine reads no SQL text: running DDL alone tells nobody.
    expect(engine.catalogEpoch).toBe(e0);
    expect(heard).toEqual([]);
    engine.notifyChange({ catalog: 'epoch', schema: 'main', name: 'x' });
    expect(engine.catalogEpoch).toBeGreaterThan(e0);
    expect(heard).toEqual([{ catalog: 'epoch', schema: 'main', name: 'x' }]);
    off();
    engine.notifyChange();
    expect(heard).toHaveLength(1);
  });
  it('notifies its own ATTACH and DETACH', async () => {
    const heard: (CatalogChange | undefined)[] = [];
    const off = engine.onChange((c) => heard.push(c));
    await engine.attachCatalog('comes_and_goes');
    await engine.detachCatalog('comes_and_goes', { deleteFile: true });
    off();
    expect(heard).toEqual([{ catalog: 'comes_and_goes' }, { catalog: 'comes_and_goes' }]);
  });
  it('logs described changes so caches can patch, and refuses to describe unknown ones', async () => {
    await engine.attachCatalog('described');
    const e0 = engine.catalogEpoch;
    expect(engine.changesSince(e0)).toEqual([]);
    const change = { catalog: 'described', schema: 'main', name: 'd' };
    await engine.run(`CREATE TABLE "described".main.d (a INT)`);
    engine.notifyChange(change);
    const seen = engine.changesSince(e0)!;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.every((c) => c === change)).toBe(true);
    const e1 = engine.catalogEpoch;
    await engine.run(`DROP TABLE "described".main.d`);
    engine.notifyChange();
    expect(engine.changesSince(e0)).toBeUndefined();
    expect(engine.changesSince(e1)).toBeUndefined();
    expect(engine.changesSince(engine.catalogEpoch)).toEqual([]);
    expect(engine.changesSince(engine.catalogEpoch + 1)).toBeUndefined();
  });
  it('interrupts a running query', async () => {
    const { conn, release } = await engine.acquire();
    try {
      const p = conn.run('SELECT count(*) FROM range(10000000000) a');
      setTimeout(() => conn.interrupt(), 50);
      await expect(p).rejects.toThrow(/interrupt/i);
    } finally {
      release();
    }
  });
});

describe('write-write conflicts', () => {
  it('runRetryingConflicts retries a DROP that lost to an open transaction, and answers 409 ABORTED when it keeps losing', async () => {
    await engine.attachCatalog('conflicts');
    const s = `${ident(engine.alias('conflicts'))}.s`;
    const other = await engine.acquire();
    try {
      for (const outcome of ['commits', 'stays open'] as const) {
        await engine.run(`CREATE SCHEMA IF NOT EXISTS ${s}`);
        await engine.run(`CREATE TABLE ${s}.t (a INT)`);
        // A DROP of a table in the schema, not yet committed: DuckDB refuses the schema's DROP meanwhile.
        await other.conn.run('BEGIN TRANSACTION');
        await other.conn.run(`DROP TABLE ${s}.t`);
        await expect(engine.run(`DROP SCHEMA ${s} CASCADE`)).rejects.toThrow(/write-write conflict/);
        if (outcome === 'commits') {
          setTimeout(() => void other.conn.run('COMMIT'), 8);
          await engine.runRetryingConflicts(`DROP SCHEMA ${s} CASCADE`);
          expect(
            await engine.all(
              `SELECT 1 FROM duckdb_schemas() WHERE database_name = 'conflicts' AND schema_name = 's'`,
            ),
          ).toEqual([]);
        } else {
          await expect(engine.runRetryingConflicts(`DROP SCHEMA ${s} CASCADE`)).rejects.toMatchObject({
            status: 409,
            errorCode: 'ABORTED',
          });
          await other.conn.run('ROLLBACK');
        }
      }
    } finally {
      other.release();
    }
  });
});

describe('the connection pool', () => {
  it('bounds statements, but the engine’s own queries never wait behind them (a held pool deadlocked)', async () => {
    const small = await DuckDbEngine.open({
      dir: mkdtempSync(path.join(os.tmpdir(), 'ml-pool-')),
      poolSize: 1,
    });
    try {
      const held = await small.acquire();
      // A second statement waits for the one connection...
      let second: Awaited<ReturnType<DuckDbEngine['acquire']>> | undefined;
      const waiting = small.acquire().then((c) => (second = c));
      // ...while metadata work, which a statement holding the pool may itself be waiting on, goes through.
      expect(await small.all('SELECT 42 AS x')).toEqual([{ x: 42 }]);
      await small.withConnection(async (conn) => {
        await conn.run('SELECT 1');
        expect(await small.all('SELECT 2 AS y')).toEqual([{ y: 2 }]); // nested, too
      });
      expect(second).toBeUndefined();
      held.release();
      await waiting;
      expect(second).toBeDefined();
      second!.release();
    } finally {
      await small.close();
    }
  });
});

describe('checkpoint', () => {
  it('waits for another connection’s uncommitted DDL, and names a transaction held open too long', async () => {
    await engine.attachCatalog('ckpt');
    const a = ident(engine.alias('ckpt'));
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let began!: () => void;
    const begun = new Promise<void>((r) => (began = r));
    // A connection with a CREATE TABLE not yet committed, as a statement's tail or a reconcile holds one.
    const writer = engine.withConnection(async (conn) => {
      await conn.run('BEGIN TRANSACTION');
      await conn.run(`CREATE TABLE ${a}.main.late (x INT)`);
      began();
      await held;
      await conn.run('COMMIT');
    });
    await begun;
    await expect(engine.checkpoint(100)).rejects.toMatchObject({
      errorCode: 'ABORTED',
      message: expect.stringContaining("Catalog 'ckpt'"),
    });
    const waiting = engine.checkpoint();
    setTimeout(release, 200);
    await expect(waiting).resolves.toBeUndefined();
    await writer;
    expect(await engine.all(`SELECT count(*)::INT AS n FROM ${a}.main.late`)).toEqual([{ n: 0 }]);
  });
});
