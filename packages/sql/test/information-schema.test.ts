/**
 * information_schema from Unity Catalog: the real unity-catalog service in process, SQL through
 * executeDatabricksSql, the views checked against what the DDL made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '@minilake/unity-catalog';
import { executeDatabricksSql, SqlError } from '../src/dialect/index.js';

let uc: UnityCatalogApi;
let lease: Awaited<ReturnType<UnityCatalogApi['engine']['acquire']>>;
let close: () => Promise<void>;

beforeAll(async () => {
  const s = await serviceApp(unityCatalogService);
  uc = s.instance.api!;
  lease = await uc.engine.acquire();
  close = async () => {
    lease.release();
    await s.instance.close?.();
    await uc.engine.close();
  };
});
afterAll(async () => {
  await close();
});

interface Res {
  rows: Record<string, unknown>[];
  columns: string[];
}
async function sql(statement: string, catalog?: string): Promise<Res> {
  const r = (await executeDatabricksSql(
    lease.conn as never,
    { statement, ...(catalog ? { catalog } : {}) },
    { engine: uc.engine, uc },
  )) as unknown as { getRowObjectsJson(): Promise<Record<string, unknown>[]>; columnNames(): string[] };
  return { columns: r.columnNames(), rows: await r.getRowObjectsJson() };
}
const fail = (statement: string) =>
  sql(statement).then(
    () => undefined,
    (e: unknown) => e as SqlError,
  );

describe('information_schema', () => {
  const cat = `is_${Date.now().toString(36)}`;
  const other = `${cat}_b`;

  beforeAll(async () => {
    await sql(`CREATE CATALOG ${cat} COMMENT 'c'`);
    await sql(`CREATE CATALOG ${other}`);
    await sql(`CREATE SCHEMA ${cat}.sales COMMENT 'sales data'`);
    await sql(
      `CREATE TABLE ${cat}.sales.orders (id BIGINT NOT NULL COMMENT 'key', amount DECIMAL(10,2), note STRING) COMMENT 'all orders'`,
    );
    await sql(`CREATE VIEW ${cat}.sales.big AS SELECT id FROM ${cat}.sales.orders WHERE amount > 10`);
    await sql(`CREATE TABLE ${other}.default.t (x INT)`);
  });

  it('system.information_schema.tables lists every catalog with Databricks columns', async () => {
    const r = await sql(
      `SELECT * FROM system.information_schema.tables WHERE table_catalog IN ('${cat}', '${other}') ORDER BY table_catalog, table_name`,
    );
    expect(r.columns.slice(0, 8)).toEqual([
      'table_catalog',
      'table_schema',
      'table_name',
      'table_type',
      'is_insertable_into',
      'commit_action',
      'table_owner',
      'comment',
    ]);
    expect(r.columns).toContain('last_altered');
    expect(r.columns).toContain('data_source_format');
    expect(
      r.rows.map((x) => [x.table_catalog, x.table_schema, x.table_name, x.table_type, x.is_insertable_into]),
    ).toEqual([
      [cat, 'sales', 'big', 'VIEW', 'NO'],
      [cat, 'sales', 'orders', 'MANAGED', 'YES'],
      [other, 'default', 't', 'MANAGED', 'YES'],
    ]);
    expect(r.rows[1]!.comment).toBe('all orders');
    expect(typeof r.rows[1]!.last_altered).toBe('string');
  });

  it('<catalog>.information_schema is scoped to the catalog; schemata and catalogs', async () => {
    const t = await sql(`SELECT table_name FROM ${cat}.information_schema.tables ORDER BY 1`);
    expect(t.rows.map((x) => x.table_name)).toEqual(['big', 'orders']);
    const s = await sql(`SELECT schema_name, comment FROM ${cat}.information_schema.schemata ORDER BY 1`);
    expect(s.rows.map((x) => x.schema_name)).toEqual(['default', 'information_schema', 'sales']);
    expect(s.rows.find((x) => x.schema_name === 'sales')!.comment).toBe('sales data');
    const c = await sql(
      `SELECT catalog_name, comment FROM system.information_schema.catalogs WHERE catalog_name = '${cat}'`,
    );
    expect(c.rows).toEqual([{ catalog_name: cat, comment: 'c' }]);
    // Unqualified: the session's catalog.
    const u = await sql('SELECT count(*) AS n FROM information_schema.tables', other);
    expect(u.rows).toEqual([{ n: '1' }]);
  });

  it('columns: types, nullability, 0-based positions, comments', async () => {
    const r = await sql(
      `SELECT column_name, ordinal_position, is_nullable, data_type, full_data_type, numeric_precision, numeric_scale, comment
       FROM ${cat}.information_schema.columns WHERE table_schema = 'sales' AND table_name = 'orders' ORDER BY ordinal_position`,
    );
    expect(r.rows).toEqual([
      {
        column_name: 'id',
        ordinal_position: 0,
        is_nullable: 'NO',
        data_type: 'BIGINT',
        full_data_type: 'bigint',
        numeric_precision: 64,
        numeric_scale: 0,
        comment: 'key',
      },
      {
        column_name: 'amount',
        ordinal_position: 1,
        is_nullable: 'YES',
        data_type: 'DECIMAL',
        full_data_type: 'decimal(10,2)',
        numeric_precision: 10,
        numeric_scale: 2,
        comment: null,
      },
      {
        column_name: 'note',
        ordinal_position: 2,
        is_nullable: 'YES',
        data_type: 'STRING',
        full_data_type: 'string',
        numeric_precision: null,
        numeric_scale: null,
        comment: null,
      },
    ]);
  });

  it('views carry their definition; joins between views work', async () => {
    const v = await sql(
      `SELECT table_name, view_definition FROM system.information_schema.views WHERE table_catalog = '${cat}'`,
    );
    expect(v.rows.map((x) => x.table_name)).toEqual(['big']);
    expect(String(v.rows[0]!.view_definition)).toMatch(/amount > 10/);
    const j = await sql(
      `SELECT t.table_name, count(c.column_name) AS n FROM ${cat}.information_schema.tables t
       JOIN ${cat}.information_schema.columns c USING (table_catalog, table_schema, table_name)
       GROUP BY t.table_name ORDER BY 1`,
    );
    expect(j.rows).toEqual([
      { table_name: 'big', n: '1' },
      { table_name: 'orders', n: '3' },
    ]);
  });

  it('row_filters and column_masks are empty views with Databricks columns', async () => {
    const r = await sql(
      `SELECT table_catalog, table_schema, table_name, filter_name, target_columns FROM ${cat}.information_schema.row_filters`,
    );
    expect(r.rows).toEqual([]);
    const m = await sql(
      `SELECT column_name, mask_name, using_columns FROM system.information_schema.column_masks WHERE table_catalog = '${cat}'`,
    );
    expect(m.columns).toEqual(['column_name', 'mask_name', 'using_columns']);
  });

  it('table_privileges shows grants', async () => {
    await sql(`GRANT SELECT ON TABLE ${cat}.sales.orders TO \`analysts\``);
    const r = await sql(
      `SELECT grantee, table_name, privilege_type FROM ${cat}.information_schema.table_privileges`,
    );
    expect(r.rows).toEqual([{ grantee: 'analysts', table_name: 'orders', privilege_type: 'SELECT' }]);
  });

  it('unknown views and catalogs fail as on Databricks; the views are read-only; system stays reserved', async () => {
    expect((await fail('SELECT * FROM system.information_schema.nope'))?.errorClass).toBe(
      'TABLE_OR_VIEW_NOT_FOUND',
    );
    expect((await fail('SELECT * FROM nope_cat.information_schema.tables'))?.errorClass).toBe(
      'NO_SUCH_CATALOG_EXCEPTION',
    );
    expect(
      (await fail(`INSERT INTO ${cat}.information_schema.tables (table_name) VALUES ('x')`))?.errorClass,
    ).toBe('EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE');
    expect(await fail('CREATE TABLE system.information_schema.x (a INT)')).toBeInstanceOf(SqlError);
    expect(await fail('CREATE SCHEMA system.mine')).toBeInstanceOf(SqlError);
    expect(uc.store.listCatalogs().map((c) => c.name)).not.toContain('system');
  });
});

describe('DESCRIBE TABLE ... AS JSON', () => {
  const cat = `dj_${Date.now().toString(36)}`;

  it('answers one json_metadata row with Databricks document shape', async () => {
    await sql(`CREATE CATALOG ${cat}`);
    await sql(
      `CREATE TABLE ${cat}.default.t (id BIGINT NOT NULL COMMENT 'key', amount DECIMAL(10,2), tags ARRAY<STRING>, attrs MAP<STRING, INT>, s STRUCT<a: INT, b: STRING>, ts TIMESTAMP) COMMENT 'the t'`,
    );
    const r = await sql(`DESCRIBE TABLE EXTENDED ${cat}.default.t AS JSON`);
    expect(r.columns).toEqual(['json_metadata']);
    const doc = JSON.parse(String(r.rows[0]!.json_metadata)) as Record<string, unknown>;
    expect(doc).toMatchObject({
      table_name: 't',
      catalog_name: cat,
      schema_name: 'default',
      namespace: ['default'],
      type: 'MANAGED',
      provider: 'delta',
      comment: 'the t',
    });
    expect(doc.columns).toEqual([
      { name: 'id', type: { name: 'bigint' }, comment: 'key', nullable: false },
      { name: 'amount', type: { name: 'decimal', precision: 10, scale: 2 }, nullable: true },
      {
        name: 'tags',
        type: {
          name: 'array',
          element_type: { name: 'string', collation: 'UTF8_BINARY' },
          element_nullable: true,
        },
        nullable: true,
      },
      {
        name: 'attrs',
        type: {
          name: 'map',
          key_type: { name: 'string', collation: 'UTF8_BINARY' },
          value_type: { name: 'int' },
          value_nullable: true,
        },
        nullable: true,
      },
      {
        name: 's',
        type: {
          name: 'struct',
          fields: [
            { name: 'a', type: { name: 'int' }, nullable: true },
            { name: 'b', type: { name: 'string', collation: 'UTF8_BINARY' }, nullable: true },
          ],
        },
        nullable: true,
      },
      { name: 'ts', type: { name: 'timestamp_ltz' }, nullable: true },
    ]);
    const plain = JSON.parse(String((await sql(`DESCRIBE ${cat}.default.t AS JSON`)).rows[0]!.json_metadata));
    expect(plain.provider).toBeUndefined();
    expect(plain.columns).toHaveLength(6);
  });

  it('a view carries its text; a missing table is TABLE_OR_VIEW_NOT_FOUND', async () => {
    await sql(`CREATE VIEW ${cat}.default.v AS SELECT id FROM ${cat}.default.t`);
    const doc = JSON.parse(
      String((await sql(`DESCRIBE EXTENDED ${cat}.default.v AS JSON`)).rows[0]!.json_metadata),
    ) as Record<string, unknown>;
    expect(doc.type).toBe('VIEW');
    expect(String(doc.view_text)).toMatch(/SELECT id/i);
    expect((await fail(`DESCRIBE TABLE EXTENDED ${cat}.default.nope AS JSON`))?.errorClass).toBe(
      'TABLE_OR_VIEW_NOT_FOUND',
    );
  });
});
