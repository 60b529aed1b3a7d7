/**
 * Intercepted DDL goes through Unity Catalog so the REST API sees it: the real unity-catalog service in
 * process (its own DuckDbEngine), SQL through executeDatabricksSql, checks through the UC REST routes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serviceApp } from '@minilake/testing';
import { unityCatalogService, type UnityCatalogApi } from '@minilake/unity-catalog';
import { executeDatabricksSql, SqlError, type ExecuteInput } from '../src/dialect/index.js';

let uc: UnityCatalogApi;
let app: Awaited<ReturnType<typeof serviceApp<UnityCatalogApi>>>['app'];
let lease: Awaited<ReturnType<UnityCatalogApi['engine']['acquire']>>;
let close: () => Promise<void>;

beforeAll(async () => {
  const s = await serviceApp(unityCatalogService);
  app = s.app;
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

async function sql(input: ExecuteInput | string): Promise<unknown[][]> {
  const inp = typeof input === 'string' ? { statement: input } : input;
  const r = (await executeDatabricksSql(lease.conn as never, inp, { engine: uc.engine, uc })) as unknown as {
    getRowsJson(): Promise<unknown[][]>;
  };
  return r.getRowsJson();
}

async function get(path: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await app.request(path);
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('Unity Catalog DDL from SQL', () => {
  const cat = `dl_${Date.now().toString(36)}`;

  it('CREATE CATALOG / SCHEMA are visible through the REST API', async () => {
    await sql(`CREATE CATALOG ${cat} COMMENT 'from sql'`);
    const c = await get(`/api/2.1/unity-catalog/catalogs/${cat}`);
    expect(c.status).toBe(200);
    expect(c.body.comment).toBe('from sql');
    await sql(`CREATE SCHEMA IF NOT EXISTS ${cat}.sales COMMENT 'sales data'`);
    const s = await get(`/api/2.1/unity-catalog/schemas/${cat}.sales`);
    expect(s.status).toBe(200);
    expect(s.body.comment).toBe('sales data');
    // IF NOT EXISTS on an existing schema is quiet; without it, SCHEMA_ALREADY_EXISTS.
    await sql(`CREATE SCHEMA IF NOT EXISTS ${cat}.sales`);
    const e = await sql(`CREATE SCHEMA ${cat}.sales`).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(SqlError);
    expect((e as SqlError).errorClass).toBe('SCHEMA_ALREADY_EXISTS');
  });

  it('CREATE TABLE ... USING DELTA keeps comment, properties and partitioning in UC', async () => {
    await sql({
      statement:
        "CREATE TABLE orders (id BIGINT, region STRING, amount DECIMAL(10,2)) USING DELTA PARTITIONED BY (region) COMMENT 'orders' TBLPROPERTIES ('delta.enableChangeDataFeed' = 'true'); INSERT INTO orders VALUES (1, 'EU', 9.50)",
      catalog: cat,
      schema: 'sales',
    });
    const t = await get(`/api/2.1/unity-catalog/tables/${cat}.sales.orders`);
    expect(t.status).toBe(200);
    expect(t.body.comment).toBe('orders');
    expect(t.body.data_source_format).toBe('DELTA');
    expect((t.body.properties as Record<string, string>)['delta.enableChangeDataFeed']).toBe('true');
    const rows = await sql({ statement: 'SELECT id, amount FROM orders', catalog: cat, schema: 'sales' });
    expect(rows).toEqual([['1', '9.50']]);
    await sql({ statement: "COMMENT ON TABLE orders IS 'all orders'", catalog: cat, schema: 'sales' });
    expect((await get(`/api/2.1/unity-catalog/tables/${cat}.sales.orders`)).body.comment).toBe('all orders');
  });

  it('SHOW / DESCRIBE answer with Databricks names', async () => {
    expect(await sql('SHOW CATALOGS')).toContainEqual([cat]);
    expect(await sql(`SHOW SCHEMAS IN ${cat}`)).toContainEqual(['sales']);
    expect(await sql(`SHOW TABLES IN ${cat}.sales`)).toEqual([['sales', 'orders', false]]);
    expect(await sql(`DESCRIBE TABLE ${cat}.sales.orders`)).toEqual([
      ['id', 'bigint', null],
      ['region', 'string', null],
      ['amount', 'decimal(10,2)', null],
    ]);
  });

  it('SHOW TBLPROPERTIES and DESCRIBE EXTENDED read UC metadata', async () => {
    const props = await sql(`SHOW TBLPROPERTIES ${cat}.sales.orders`);
    expect(props).toContainEqual(['delta.enableChangeDataFeed', 'true']);
    const ext = await sql(`DESCRIBE TABLE EXTENDED ${cat}.sales.orders`);
    expect(ext).toContainEqual(['Comment', 'all orders', '']);
  });

  it('GRANT / REVOKE are stored', async () => {
    await sql(`GRANT SELECT, MODIFY ON TABLE ${cat}.sales.orders TO \`analysts\``);
    const p = await get(`/api/2.1/unity-catalog/permissions/table/${cat}.sales.orders`);
    expect(p.status).toBe(200);
    expect(JSON.stringify(p.body)).toContain('analysts');
    expect(JSON.stringify(p.body)).toContain('MODIFY');
    await sql(`REVOKE MODIFY ON TABLE ${cat}.sales.orders FROM \`analysts\``);
    const p2 = await get(`/api/2.1/unity-catalog/permissions/table/${cat}.sales.orders`);
    expect(JSON.stringify(p2.body)).not.toContain('MODIFY');
  });

  it('USE CATALOG of an unknown catalog fails with NO_SUCH_CATALOG_EXCEPTION', async () => {
    const e = await sql('USE CATALOG no_such_catalog_x').catch((x: unknown) => x);
    expect((e as SqlError).errorClass).toBe('NO_SUCH_CATALOG_EXCEPTION');
    expect((e as SqlError).sqlState).toBe('42704');
  });

  it('DROP SCHEMA / CATALOG go through UC', async () => {
    await sql(`DROP SCHEMA ${cat}.sales CASCADE`);
    expect((await get(`/api/2.1/unity-catalog/schemas/${cat}.sales`)).status).toBe(404);
    await sql(`DROP CATALOG ${cat} CASCADE`);
    expect((await get(`/api/2.1/unity-catalog/catalogs/${cat}`)).status).toBe(404);
    await sql(`DROP CATALOG IF EXISTS ${cat}`);
  });
});

describe('/Volumes paths in SQL', () => {
  const cat = `vl_${Date.now().toString(36)}`;
  const vol = `/Volumes/${cat}/raw/files`;

  beforeAll(async () => {
    await sql(`CREATE CATALOG ${cat}`);
    await sql(`CREATE SCHEMA ${cat}.raw`);
    const res = await app.request('/api/2.1/unity-catalog/volumes', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ catalog_name: cat, schema_name: 'raw', name: 'files', volume_type: 'MANAGED' }),
    });
    expect(res.status).toBe(200);
    const dir = await uc.volumeDirectory(cat, 'raw', 'files');
    const { writeFile } = await import('node:fs/promises');
    await writeFile(`${dir}/people.csv`, 'id,name\n1,ann\n2,bob\n');
  });

  it('read_csv / glob / COPY TO map to the volume directory', async () => {
    expect(await sql(`SELECT id, name FROM read_csv('${vol}/people.csv') ORDER BY id`)).toEqual([
      ['1', 'ann'],
      ['2', 'bob'],
    ]);
    expect(
      await sql(`SELECT count(*) FROM read_csv_auto(['${vol}/people.csv', '${vol}/./people.csv'])`),
    ).toEqual([['4']]);
    await sql(`COPY (SELECT 42 AS x) TO '${vol}/x.parquet' (FORMAT parquet)`);
    expect(await sql(`SELECT x FROM read_parquet('${vol}/x.parquet')`)).toEqual([[42]]);
    await sql(`CREATE TABLE ${cat}.raw.people (id BIGINT, name STRING)`);
    await sql(`COPY ${cat}.raw.people FROM '${vol}/people.csv' (HEADER, DELIMITER ',')`);
    expect(await sql(`SELECT count(*) FROM ${cat}.raw.people`)).toEqual([['2']]);
    const files = (await sql(`SELECT file FROM glob('${vol}/*.csv')`)) as string[][];
    expect(files).toHaveLength(1);
    expect(files[0]![0]).not.toContain('/Volumes/');
  });

  it('refuses .. escapes and reports a missing volume', async () => {
    const e1 = await sql(`SELECT * FROM read_text('${vol}/../../../../etc/passwd')`).catch((x: unknown) => x);
    expect((e1 as SqlError).errorClass).toBe('INVALID_PARAMETER_VALUE');
    const e2 = await sql(`SELECT * FROM read_csv('/Volumes/${cat}/raw/nope/a.csv')`).catch((x: unknown) => x);
    expect((e2 as SqlError).errorClass).toBe('UC_VOLUME_NOT_FOUND');
    // A /Volumes string that is not a file argument is just a string.
    expect(await sql(`SELECT '${vol}/a.csv' AS p`)).toEqual([[`${vol}/a.csv`]]);
  });
});

describe('catalog-qualified function calls', () => {
  const cat = `fn_${Date.now().toString(36)}`;

  it('calls a UC function (REST) and a SQL-created function by catalog.schema.name', async () => {
    await sql(`CREATE CATALOG ${cat}`);
    await sql(`CREATE SCHEMA ${cat}.udf`);
    const res = await app.request('/api/2.1/unity-catalog/functions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        function_info: {
          name: 'plus_one',
          catalog_name: cat,
          schema_name: 'udf',
          input_params: { parameters: [{ name: 'x', type_text: 'int', type_name: 'INT', position: 0 }] },
          data_type: 'INT',
          full_data_type: 'INT',
          routine_body: 'SQL',
          routine_definition: 'x + 1',
          parameter_style: 'S',
          is_deterministic: true,
          sql_data_access: 'CONTAINS_SQL',
          is_null_call: false,
          security_type: 'DEFINER',
          specific_name: 'plus_one',
        },
      }),
    });
    expect(res.status).toBe(200);
    expect(await sql(`SELECT ${cat}.udf.plus_one(1) AS v`)).toEqual([[2]]);
    expect(await sql({ statement: 'SELECT udf.plus_one(41) AS v', catalog: cat })).toEqual([[42]]);
    await sql(`CREATE FUNCTION ${cat}.udf.twice(x INT) RETURNS INT RETURN x * 2`);
    expect(await sql(`SELECT ${cat}.udf.twice(${cat}.udf.plus_one(2)) AS v`)).toEqual([[6]]);
  });

  it('CREATE FUNCTION from SQL is in the Functions API at once, with the clauses Databricks documents', async () => {
    await sql(
      `CREATE FUNCTION ${cat}.udf.half(x INT COMMENT 'the input') RETURNS FLOAT LANGUAGE SQL NOT DETERMINISTIC READS SQL DATA COMMENT 'half of x' RETURN x / 2`,
    );
    const f = await get(`/api/2.1/unity-catalog/functions/${cat}.udf.half`);
    expect(f.status).toBe(200);
    expect(f.body).toMatchObject({
      name: 'half',
      full_name: `${cat}.udf.half`,
      data_type: 'FLOAT',
      full_data_type: 'float',
      routine_body: 'SQL',
      routine_definition: 'x / 2',
      is_deterministic: false,
      sql_data_access: 'READS_SQL_DATA',
      comment: 'half of x',
      input_params: {
        parameters: [{ name: 'x', type_name: 'INT', type_text: 'int', position: 0, comment: 'the input' }],
      },
    });
    const listed = await get(`/api/2.1/unity-catalog/functions?catalog_name=${cat}&schema_name=udf`);
    expect((listed.body.functions as { name: string }[]).map((x) => x.name)).toContain('half');
    expect(await sql(`SELECT ${cat}.udf.half(41) AS v`)).toEqual([[20.5]]);
    // A table function (RETURNS TABLE), called in FROM with its catalog's name.
    await sql(
      `CREATE FUNCTION ${cat}.udf.upto(n INT) RETURNS TABLE (v INT) RETURN SELECT n AS v UNION ALL SELECT n + 1`,
    );
    const t = await get(`/api/2.1/unity-catalog/functions/${cat}.udf.upto`);
    expect(t.body).toMatchObject({
      data_type: 'TABLE_TYPE',
      return_params: { parameters: [{ name: 'v', type_name: 'INT', parameter_type: 'COLUMN' }] },
    });
    expect(await sql(`SELECT v FROM ${cat}.udf.upto(3) ORDER BY v`)).toEqual([[3], [4]]);
    // OR REPLACE replaces both; without it, ROUTINE_ALREADY_EXISTS; DROP FUNCTION removes both.
    await sql(`CREATE OR REPLACE FUNCTION ${cat}.udf.half(x INT) RETURNS INT RETURN x DIV 2`);
    expect(await sql(`SELECT ${cat}.udf.half(41) AS v`)).toEqual([[20]]);
    expect((await get(`/api/2.1/unity-catalog/functions/${cat}.udf.half`)).body.is_deterministic).toBe(true);
    const again = await sql(`CREATE FUNCTION ${cat}.udf.half(x INT) RETURNS INT RETURN x`).catch(
      (e: unknown) => e,
    );
    expect((again as SqlError).errorClass).toBe('ROUTINE_ALREADY_EXISTS');
    await sql(`CREATE FUNCTION IF NOT EXISTS ${cat}.udf.half(x INT) RETURNS INT RETURN x`);
    await sql(`DROP FUNCTION ${cat}.udf.half`);
    expect((await get(`/api/2.1/unity-catalog/functions/${cat}.udf.half`)).status).toBe(404);
    await sql(`DROP FUNCTION IF EXISTS ${cat}.udf.half`);
  });

  it('names a qualified function call as Databricks prints it', async () => {
    const lease2 = lease;
    const r = (await executeDatabricksSql(
      lease2.conn as never,
      { statement: `SELECT ${cat}.udf.twice(21)` },
      {
        engine: uc.engine,
        uc,
      },
    )) as unknown as { columnNames(): string[]; getRowsJson(): Promise<unknown[][]> };
    expect(r.columnNames()).toEqual([`${cat}.udf.twice(21)`]);
    expect(await r.getRowsJson()).toEqual([[42]]);
  });

  it('schema DBPROPERTIES and COMMENT reach Unity Catalog and come back in DESCRIBE SCHEMA EXTENDED', async () => {
    await sql(
      `CREATE SCHEMA ${cat}.props COMMENT 'c1' WITH DBPROPERTIES ('RemoveAfter' = '2099', 'team' = 'data')`,
    );
    const sc = await get(`/api/2.1/unity-catalog/schemas/${cat}.props`);
    expect(sc.body).toMatchObject({ comment: 'c1', properties: { RemoveAfter: '2099', team: 'data' } });
    await sql(`ALTER SCHEMA ${cat}.props SET DBPROPERTIES ('team' = 'ml')`);
    await sql(`ALTER SCHEMA ${cat}.props UNSET DBPROPERTIES ('RemoveAfter')`);
    await sql(`COMMENT ON SCHEMA ${cat}.props IS 'c2'`);
    const after = await get(`/api/2.1/unity-catalog/schemas/${cat}.props`);
    expect(after.body).toMatchObject({ comment: 'c2', properties: { team: 'ml' } });
    const rows = await sql(`DESCRIBE SCHEMA EXTENDED ${cat}.props`);
    expect(rows).toContainEqual(['Catalog Name', cat]);
    expect(rows).toContainEqual(['Namespace Name', 'props']);
    expect(rows).toContainEqual(['Comment', 'c2']);
    expect(rows).toContainEqual(['Properties', '((team,ml))']);
    expect((rows.find((r) => r[0] === 'Owner') ?? [])[1]).toBeTruthy();
    // Databricks always prints a Location: here the folder the schema's managed data lives under.
    expect(rows.map((r) => r[0])).toEqual([
      'Catalog Name',
      'Namespace Name',
      'Comment',
      'Location',
      'Owner',
      'Properties',
    ]);
    const schemaId = (after.body as { schema_id: string }).schema_id;
    expect(String((rows.find((r) => r[0] === 'Location') ?? [])[1])).toMatch(
      new RegExp(`^file://.*/__unitystorage/schemas/${schemaId}$`),
    );
    await sql(`COMMENT ON CATALOG ${cat} IS 'the catalog'`);
    expect(await sql(`DESCRIBE CATALOG ${cat}`)).toContainEqual(['Comment', 'the catalog']);
  });
});

describe('namespace per pooled connection', () => {
  it('SELECT 1 with an unchanged namespace costs no extra round trip; USE and DDL invalidate', async () => {
    const sent: string[] = [];
    const counting = new Proxy(lease.conn as object, {
      get(target, prop, receiver) {
        const v: unknown = Reflect.get(target, prop, receiver);
        if (typeof v !== 'function') return v;
        return (...args: unknown[]) => {
          if (typeof args[0] === 'string') sent.push(args[0]);
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const run = async (statement: string, catalog?: string) => {
      const input: ExecuteInput = catalog ? { statement, catalog, schema: 'default' } : { statement };
      const r = (await executeDatabricksSql(counting as never, input, {
        engine: uc.engine,
        uc,
      })) as unknown as {
        getRowsJson(): Promise<unknown[][]>;
      };
      return r.getRowsJson();
    };
    await run('SELECT 1');
    sent.length = 0;
    // main.default does not exist in this engine: the fallback (macros only) is remembered too.
    // ... and the statement's plan is the connection's cached one: no text reaches the engine at all.
    expect(await run('SELECT 1')).toEqual([[1]]);
    expect(sent).toEqual([]);
    const cat = `ns_${Date.now().toString(36)}`;
    await run(`CREATE CATALOG ${cat}`);
    await run('SELECT 1', cat);
    sent.length = 0;
    expect(await run('SELECT current_catalog()', cat)).toEqual([[cat]]);
    expect(sent.filter((q) => q.startsWith('USE '))).toEqual([]);
    // USE inside a statement moves the connection: the next request moves it back.
    await run(`CREATE SCHEMA ${cat}.other`);
    await run(`USE ${cat}.other`, cat);
    sent.length = 0;
    expect(await run('SELECT current_schema()', cat)).toEqual([['default']]);
    expect(sent.filter((q) => q.startsWith('USE '))).toHaveLength(1);
    sent.length = 0;
    expect(await run('SELECT current_schema()', cat)).toEqual([['default']]);
    expect(sent.filter((q) => q.startsWith('USE '))).toEqual([]);
    await run(`DROP CATALOG ${cat} CASCADE`);
  });
});
