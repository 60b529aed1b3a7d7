/**
 * Client-session semantics the Thrift endpoint needs: temporary views follow their session across pooled
 * connections (and stay out of other sessions), and a session's namespace may name a schema not created yet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '@minilake/unity-catalog';
import { executeDatabricksSql, SqlError, type ExecuteInput } from '../src/dialect/index.js';

let uc: UnityCatalogApi;
type Lease = Awaited<ReturnType<UnityCatalogApi['engine']['acquire']>>;
let a: Lease;
let b: Lease;
let close: () => Promise<void>;

beforeAll(async () => {
  const s = await serviceApp(unityCatalogService);
  uc = s.instance.api!;
  a = await uc.engine.acquire();
  b = await uc.engine.acquire();
  close = async () => {
    a.release();
    b.release();
    await s.instance.close?.();
    await uc.engine.close();
  };
});
afterAll(async () => {
  await close();
});

async function sql(on: Lease, input: ExecuteInput): Promise<unknown[][]> {
  const r = (await executeDatabricksSql(on.conn as never, input, { engine: uc.engine, uc })) as unknown as {
    getRowsJson(): Promise<unknown[][]>;
  };
  return r.getRowsJson();
}

describe('session temporary views', () => {
  it('are seen by the session on another connection, not by other sessions', async () => {
    await sql(a, { statement: 'CREATE OR REPLACE TEMPORARY VIEW tv AS SELECT 1 AS x', session: 's1' });
    expect(await sql(b, { statement: 'SELECT x FROM tv', session: 's1' })).toEqual([[1]]);
    // Replaced: the new definition reaches the connection that had the old one.
    await sql(b, { statement: 'CREATE OR REPLACE TEMP VIEW tv AS SELECT 2 AS x', session: 's1' });
    expect(await sql(a, { statement: 'SELECT x FROM tv', session: 's1' })).toEqual([[2]]);
    const other = await sql(a, { statement: 'SELECT x FROM tv', session: 's2' }).catch((e: unknown) => e);
    expect((other as SqlError).errorClass).toBe('TABLE_OR_VIEW_NOT_FOUND');
    const none = await sql(b, { statement: 'SELECT x FROM tv' }).catch((e: unknown) => e);
    expect((none as SqlError).errorClass).toBe('TABLE_OR_VIEW_NOT_FOUND');
    const [[doc]] = (await sql(b, { statement: 'DESCRIBE TABLE EXTENDED tv AS JSON', session: 's1' })) as [
      [string],
    ];
    expect(JSON.parse(doc)).toMatchObject({ table_name: 'tv', type: 'VIEW', columns: [{ name: 'x' }] });
    await sql(a, { statement: 'DROP VIEW tv', session: 's1' });
    const gone = await sql(b, { statement: 'SELECT x FROM tv', session: 's1' }).catch((e: unknown) => e);
    expect((gone as SqlError).errorClass).toBe('TABLE_OR_VIEW_NOT_FOUND');
  });
});

describe('a session namespace that does not exist yet', () => {
  it('is no error until a statement needs it', async () => {
    const cat = `ns_${Date.now().toString(36)}`;
    await sql(a, { statement: `CREATE CATALOG ${cat}` });
    const ns = { catalog: cat, schema: 'later' };
    const strict = await sql(a, { statement: 'SELECT 1', ...ns }).catch((e: unknown) => e);
    expect((strict as SqlError).errorClass).toBe('SCHEMA_NOT_FOUND');
    const lax = { ...ns, namespaceMayBeMissing: true };
    expect(await sql(a, { statement: 'SELECT 1 AS one', ...lax })).toEqual([[1]]);
    const t = await sql(a, { statement: 'SELECT * FROM t', ...lax }).catch((e: unknown) => e);
    expect((t as SqlError).errorClass).toBe('TABLE_OR_VIEW_NOT_FOUND');
    await sql(a, { statement: `CREATE SCHEMA IF NOT EXISTS ${cat}.later`, ...lax });
    await sql(b, { statement: 'CREATE TABLE t AS SELECT 5 AS v', ...lax });
    expect(await sql(a, { statement: 'SELECT v FROM t', ...lax })).toEqual([[5]]);
  });
});
