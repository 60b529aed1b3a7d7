/**
 * Issue 30, concurrency storms on the name-keyed stores: Unity Catalog catalogs, schemas, tables (through
 * SQL, as users make them) and volumes, workspace objects, DBFS (handles too), volume files and secret
 * scopes. Why in process, and what each storm checks: see ./storm.ts. `STORM_SEED` replays another schedule.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMinilake, parseConfig, type Minilake } from '../src/index.js';
import {
  call,
  newTally,
  ok,
  pick,
  possibleFinal,
  storm,
  summary,
  type Answer,
  type Effect,
  type Json,
  type Tally,
} from './storm.js';

const seed = Number(process.env.STORM_SEED ?? 30);
let ml: Minilake;
let wh: string;
const figures: string[] = [];

beforeAll(async () => {
  ml = await createMinilake(
    parseConfig({
      MINILAKE_SERVICES: 'unity-catalog,sql,workspace,files,secrets',
      MINILAKE_LOG_LEVEL: 'silent',
    }),
  );
  const t = newTally();
  wh = (await call(ml, t, 'wh', 'POST', '/api/2.0/sql/warehouses', { name: 'storm', cluster_size: 'Small' }))
    .body.id as string;
  for (const [p, b] of [
    ['/api/2.1/unity-catalog/catalogs', { name: 'storm' }],
    ['/api/2.1/unity-catalog/schemas', { catalog_name: 'storm', name: 's' }],
    [
      '/api/2.1/unity-catalog/volumes',
      { catalog_name: 'storm', schema_name: 's', name: 'v', volume_type: 'MANAGED' },
    ],
  ] as const)
    expect((await call(ml, t, 'setup', 'POST', p, b)).status).toBe(200);
});
afterAll(async () => {
  console.log(figures.join('\n'));
  console.log([...sqlErrors].join('\n'));
  await ml?.close();
});

interface NameStorm {
  /** One client step: a write (with its effect when acknowledged) or a read. */
  step(random: () => number, t: Tally): Promise<{ a: Answer; effect?: Effect }>;
  /** After the storm: does get find it, and does the list show it? */
  state(t: Tally): Promise<{ get: boolean; list: boolean }>;
  /** Before the storm. */
  initially: Effect;
}

async function runNameStorm(label: string, s: NameStorm): Promise<void> {
  const tally = newTally();
  const writes: { a: Answer; effect: Effect }[] = [];
  const t0 = performance.now();
  await storm(
    async (random) => {
      const { a, effect } = await s.step(random, tally);
      if (effect) writes.push({ a, effect });
      return a;
    },
    { seed },
  );
  figures.push(summary(label, tally, performance.now() - t0));
  expect(tally.bad, label).toEqual([]);
  const after = await s.state(tally);
  expect(after.get, `${label}: get and list agree`).toBe(after.list);
  const allowed = possibleFinal(writes) ?? new Set([s.initially]);
  expect([...allowed], `${label}: the last acknowledged write decides`).toContain(
    after.get ? 'exists' : 'gone',
  );
  expect(writes.filter((w) => ok(w.a)).length, `${label}: some writes were acknowledged`).toBeGreaterThan(0);
  expect(tally.bad, label).toEqual([]);
}

const UC = '/api/2.1/unity-catalog';

describe('storms on one name', () => {
  it('catalogs: create / get / update / delete of one catalog never answer 5xx (the DuckDB ATTACH while detaching)', async () => {
    await runNameStorm('catalogs', {
      initially: 'gone',
      async step(random, t) {
        switch (
          pick(random, [
            'create',
            'create',
            'delete',
            'delete',
            'get',
            'update',
            'list',
            'sql',
            'sql-create',
            'sql-drop',
          ] as const)
        ) {
          case 'create':
            return {
              a: await call(ml, t, 'create', 'POST', `${UC}/catalogs`, { name: 'one' }),
              effect: 'exists',
            };
          // SQL reading every attached database (what holds a detached file open) and SQL making the catalog.
          case 'sql':
            return { a: await sql(t, 'SELECT count(*) FROM information_schema.schemata') };
          case 'sql-create': {
            const a = await sql(t, 'CREATE CATALOG IF NOT EXISTS one');
            return {
              a: { ...a, status: a.body.status?.state === 'SUCCEEDED' ? 200 : 409 },
              effect: 'exists',
            };
          }
          case 'sql-drop': {
            const a = await sql(t, 'DROP CATALOG IF EXISTS one CASCADE');
            return { a: { ...a, status: a.body.status?.state === 'SUCCEEDED' ? 200 : 409 }, effect: 'gone' };
          }
          case 'delete':
            return {
              a: await call(ml, t, 'delete', 'DELETE', `${UC}/catalogs/one?force=true`),
              effect: 'gone',
            };
          case 'update':
            return {
              a: await call(ml, t, 'update', 'PATCH', `${UC}/catalogs/one`, { comment: String(random()) }),
            };
          case 'get':
            return { a: await call(ml, t, 'get', 'GET', `${UC}/catalogs/one`) };
          case 'list':
            return { a: await call(ml, t, 'list', 'GET', `${UC}/catalogs`) };
        }
      },
      async state(t) {
        const list = await call(ml, t, 'list', 'GET', `${UC}/catalogs`);
        return {
          get: ok(await call(ml, t, 'get', 'GET', `${UC}/catalogs/one`)),
          list: (list.body.catalogs ?? []).some((c: Json) => c.name === 'one'),
        };
      },
    });
    // The catalog, whatever state the storm left, still takes SQL.
    const t = newTally();
    await call(ml, t, 'create', 'POST', `${UC}/catalogs`, { name: 'one' });
    const r = await sql(t, 'CREATE SCHEMA IF NOT EXISTS one.after_storm');
    expect(r.body.status?.state, JSON.stringify(r.body)).toBe('SUCCEEDED');
  });

  it('schemas', async () => {
    await runNameStorm('schemas', {
      initially: 'gone',
      async step(random, t) {
        switch (pick(random, ['create', 'delete', 'get', 'update', 'list'] as const)) {
          case 'create':
            return {
              a: await call(ml, t, 'create', 'POST', `${UC}/schemas`, { catalog_name: 'storm', name: 'one' }),
              effect: 'exists',
            };
          case 'delete':
            return {
              a: await call(ml, t, 'delete', 'DELETE', `${UC}/schemas/storm.one?force=true`),
              effect: 'gone',
            };
          case 'update':
            return { a: await call(ml, t, 'update', 'PATCH', `${UC}/schemas/storm.one`, { comment: 'c' }) };
          case 'get':
            return { a: await call(ml, t, 'get', 'GET', `${UC}/schemas/storm.one`) };
          case 'list':
            return { a: await call(ml, t, 'list', 'GET', `${UC}/schemas?catalog_name=storm`) };
        }
      },
      async state(t) {
        const list = await call(ml, t, 'list', 'GET', `${UC}/schemas?catalog_name=storm`);
        return {
          get: ok(await call(ml, t, 'get', 'GET', `${UC}/schemas/storm.one`)),
          list: (list.body.schemas ?? []).some((c: Json) => c.name === 'one'),
        };
      },
    });
  });

  it('tables through SQL (CREATE / INSERT / DROP) and the tables API', async () => {
    const acked = (a: Answer) => ok(a) && a.body.status?.state === 'SUCCEEDED';
    await runNameStorm('tables', {
      initially: 'gone',
      async step(random, t) {
        switch (pick(random, ['create', 'drop', 'insert', 'get', 'delete', 'comment'] as const)) {
          case 'create': {
            const a = await sql(t, 'CREATE TABLE IF NOT EXISTS storm.s.one (a INT)');
            return { a: { ...a, status: acked(a) ? 200 : 409 }, effect: 'exists' };
          }
          case 'drop': {
            const a = await sql(t, 'DROP TABLE IF EXISTS storm.s.one');
            return { a: { ...a, status: acked(a) ? 200 : 409 }, effect: 'gone' };
          }
          case 'insert':
            return { a: await sql(t, 'INSERT INTO storm.s.one VALUES (1)') };
          case 'comment':
            return {
              a: await call(ml, t, 'update', 'PATCH', `${UC}/tables/storm.s.one`, {
                owner: 'dev@minilake.local',
              }),
            };
          case 'delete':
            return { a: await call(ml, t, 'delete', 'DELETE', `${UC}/tables/storm.s.one`), effect: 'gone' };
          case 'get':
            return { a: await call(ml, t, 'get', 'GET', `${UC}/tables/storm.s.one`) };
        }
      },
      async state(t) {
        const list = await call(ml, t, 'list', 'GET', `${UC}/tables?catalog_name=storm&schema_name=s`);
        const got = ok(await call(ml, t, 'get', 'GET', `${UC}/tables/storm.s.one`));
        // SQL sees what the API sees.
        const q = await sql(
          t,
          "SELECT count(*) FROM storm.information_schema.tables WHERE table_schema = 's' AND table_name = 'one'",
        );
        expect(q.body.result?.data_array, JSON.stringify(q.body)).toEqual([[got ? '1' : '0']]);
        return { get: got, list: (list.body.tables ?? []).some((x: Json) => x.name === 'one') };
      },
    });
  });

  it('volumes', async () => {
    await runNameStorm('volumes', {
      initially: 'gone',
      async step(random, t) {
        switch (pick(random, ['create', 'delete', 'get', 'update', 'list'] as const)) {
          case 'create':
            return {
              a: await call(ml, t, 'create', 'POST', `${UC}/volumes`, {
                catalog_name: 'storm',
                schema_name: 's',
                name: 'one',
                volume_type: 'MANAGED',
              }),
              effect: 'exists',
            };
          case 'delete':
            return { a: await call(ml, t, 'delete', 'DELETE', `${UC}/volumes/storm.s.one`), effect: 'gone' };
          case 'update':
            return { a: await call(ml, t, 'update', 'PATCH', `${UC}/volumes/storm.s.one`, { comment: 'c' }) };
          case 'get':
            return { a: await call(ml, t, 'get', 'GET', `${UC}/volumes/storm.s.one`) };
          case 'list':
            return { a: await call(ml, t, 'list', 'GET', `${UC}/volumes?catalog_name=storm&schema_name=s`) };
        }
      },
      async state(t) {
        const list = await call(ml, t, 'list', 'GET', `${UC}/volumes?catalog_name=storm&schema_name=s`);
        return {
          get: ok(await call(ml, t, 'get', 'GET', `${UC}/volumes/storm.s.one`)),
          list: (list.body.volumes ?? []).some((x: Json) => x.name === 'one'),
        };
      },
    });
  });

  it('workspace objects', async () => {
    const path = '/Users/dev@minilake.local/storm/one';
    const content = Buffer.from('print(1)\n').toString('base64');
    await runNameStorm('workspace', {
      initially: 'gone',
      async step(random, t) {
        switch (pick(random, ['import', 'import', 'delete', 'get', 'export', 'list', 'mkdirs'] as const)) {
          case 'import':
            return {
              a: await call(ml, t, 'import', 'POST', '/api/2.0/workspace/import', {
                path,
                format: 'SOURCE',
                language: 'PYTHON',
                content,
                overwrite: true,
              }),
              effect: 'exists',
            };
          case 'delete':
            return {
              a: await call(ml, t, 'delete', 'POST', '/api/2.0/workspace/delete', { path }),
              effect: 'gone',
            };
          case 'mkdirs':
            return {
              a: await call(ml, t, 'mkdirs', 'POST', '/api/2.0/workspace/mkdirs', { path: `${path}-dir` }),
            };
          case 'get':
            return {
              a: await call(
                ml,
                t,
                'get',
                'GET',
                `/api/2.0/workspace/get-status?path=${encodeURIComponent(path)}`,
              ),
            };
          case 'export':
            return {
              a: await call(
                ml,
                t,
                'export',
                'GET',
                `/api/2.0/workspace/export?path=${encodeURIComponent(path)}`,
              ),
            };
          case 'list':
            return {
              a: await call(
                ml,
                t,
                'list',
                'GET',
                `/api/2.0/workspace/list?path=${encodeURIComponent('/Users/dev@minilake.local/storm')}`,
              ),
            };
        }
      },
      async state(t) {
        const list = await call(
          ml,
          t,
          'list',
          'GET',
          `/api/2.0/workspace/list?path=${encodeURIComponent('/Users/dev@minilake.local/storm')}`,
        );
        return {
          get: ok(
            await call(ml, t, 'get', 'GET', `/api/2.0/workspace/get-status?path=${encodeURIComponent(path)}`),
          ),
          list: (list.body.objects ?? []).some((x: Json) => x.path === path),
        };
      },
    });
  });

  it('DBFS: put, streaming handles (create / add-block / close) and delete of one path', async () => {
    const path = '/storm/one.txt';
    const data = Buffer.from('x'.repeat(64)).toString('base64');
    await runNameStorm('dbfs', {
      initially: 'gone',
      async step(random, t) {
        switch (pick(random, ['put', 'handle', 'delete', 'get', 'read', 'list'] as const)) {
          case 'put':
            return {
              a: await call(ml, t, 'put', 'POST', '/api/2.0/dbfs/put', {
                path,
                contents: data,
                overwrite: true,
              }),
              effect: 'exists',
            };
          case 'handle': {
            // The whole upload is one write; acknowledged when close says so.
            const c = await call(ml, t, 'create', 'POST', '/api/2.0/dbfs/create', { path, overwrite: true });
            if (!ok(c)) return { a: c };
            const b = await call(ml, t, 'add-block', 'POST', '/api/2.0/dbfs/add-block', {
              handle: c.body.handle,
              data,
            });
            const z = await call(ml, t, 'close', 'POST', '/api/2.0/dbfs/close', { handle: c.body.handle });
            return { a: { ...z, start: c.start, status: ok(b) ? z.status : b.status }, effect: 'exists' };
          }
          case 'delete':
            return {
              a: await call(ml, t, 'delete', 'POST', '/api/2.0/dbfs/delete', { path }),
              effect: 'gone',
            };
          case 'get':
            return { a: await call(ml, t, 'get', 'GET', `/api/2.0/dbfs/get-status?path=${path}`) };
          case 'read':
            return { a: await call(ml, t, 'read', 'GET', `/api/2.0/dbfs/read?path=${path}`) };
          case 'list':
            return { a: await call(ml, t, 'list', 'GET', '/api/2.0/dbfs/list?path=/storm') };
        }
      },
      async state(t) {
        const list = await call(ml, t, 'list', 'GET', '/api/2.0/dbfs/list?path=/storm');
        const got = await call(ml, t, 'get', 'GET', `/api/2.0/dbfs/get-status?path=${path}`);
        if (ok(got)) {
          // Never a torn file: what is there is one whole upload.
          const r = await call(ml, t, 'read', 'GET', `/api/2.0/dbfs/read?path=${path}`);
          expect([0, 64]).toContain(r.body.bytes_read ?? 0);
        }
        return { get: ok(got), list: (list.body.files ?? []).some((x: Json) => x.path === path) };
      },
    });
  });

  it('volume files (Files API)', async () => {
    const file = '/api/2.0/fs/files/Volumes/storm/s/v/one.bin';
    const bytes = new Uint8Array(4096).fill(7);
    await runNameStorm('volume files', {
      initially: 'gone',
      async step(random, t) {
        switch (pick(random, ['put', 'delete', 'head', 'get', 'list'] as const)) {
          case 'put':
            return {
              a: await call(ml, t, 'upload', 'PUT', `${file}?overwrite=true`, undefined, {
                bytes,
                type: 'application/octet-stream',
              }),
              effect: 'exists',
            };
          case 'delete':
            return { a: await call(ml, t, 'delete', 'DELETE', file), effect: 'gone' };
          case 'head':
            return { a: await call(ml, t, 'head', 'HEAD', file) };
          case 'get':
            return { a: await call(ml, t, 'download', 'GET', file) };
          case 'list':
            return { a: await call(ml, t, 'list', 'GET', '/api/2.0/fs/directories/Volumes/storm/s/v') };
        }
      },
      async state(t) {
        const list = await call(ml, t, 'list', 'GET', '/api/2.0/fs/directories/Volumes/storm/s/v');
        const head = await ml.app.request(file, { method: 'HEAD' });
        if (head.ok) expect(head.headers.get('content-length')).toBe('4096');
        return { get: head.ok, list: (list.body.contents ?? []).some((x: Json) => x.name === 'one.bin') };
      },
    });
  });

  it('secret scopes (and secrets in them)', async () => {
    await runNameStorm('secret scopes', {
      initially: 'gone',
      async step(random, t) {
        switch (pick(random, ['create', 'delete', 'put', 'list-secrets', 'list'] as const)) {
          case 'create':
            return {
              a: await call(ml, t, 'create', 'POST', '/api/2.0/secrets/scopes/create', { scope: 'one' }),
              effect: 'exists',
            };
          case 'delete':
            return {
              a: await call(ml, t, 'delete', 'POST', '/api/2.0/secrets/scopes/delete', { scope: 'one' }),
              effect: 'gone',
            };
          case 'put':
            return {
              a: await call(ml, t, 'put', 'POST', '/api/2.0/secrets/put', {
                scope: 'one',
                key: 'k',
                string_value: 'v',
              }),
            };
          case 'list-secrets':
            return { a: await call(ml, t, 'list-secrets', 'GET', '/api/2.0/secrets/list?scope=one') };
          case 'list':
            return { a: await call(ml, t, 'list', 'GET', '/api/2.0/secrets/scopes/list') };
        }
      },
      async state(t) {
        const list = await call(ml, t, 'list', 'GET', '/api/2.0/secrets/scopes/list');
        return {
          get: ok(await call(ml, t, 'get', 'GET', '/api/2.0/secrets/list?scope=one')),
          list: (list.body.scopes ?? []).some((x: Json) => x.name === 'one'),
        };
      },
    });
  });
});

/**
 * One statement. A statement that failed answers 200 with its error in `status.error`: that error must be a
 * user's (a missing or existing object, a conflict to retry), never an internal one.
 */
async function sql(t: Tally, statement: string): Promise<Answer> {
  const a = await call(ml, t, 'sql', 'POST', '/api/2.0/sql/statements', {
    warehouse_id: wh,
    statement,
    wait_timeout: '30s',
  });
  const error = a.body.status?.error as Json | undefined;
  if (error) {
    sqlErrors.add(`${error.error_code}: ${String(error.message).slice(0, 160)}`);
    if (error.error_code === 'INTERNAL_ERROR' || /Unique file handle|INTERNAL/i.test(String(error.message)))
      t.bad.push(`${statement}: ${error.error_code} ${error.message}`);
  }
  return a;
}
const sqlErrors = new Set<string>();
