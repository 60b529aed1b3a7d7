/**
 * The seams every service package plugs into: declared dependencies (start order, peer checks, what
 * MINILAKE_SERVICES pulls in), declared folders, the one error-handling installation (trailing slashes,
 * 501 vs 404) and null-means-absent in request bodies.
 */
import { mkdir, mkdtemp, realpath, symlink } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  contextFor,
  createContext,
  defineService,
  DependencyError,
  installErrorHandling,
  MAX_BODY_DEPTH,
  namePattern,
  nestedQueryValue,
  nestedQueryValues,
  parseBase64,
  readJson,
  readQueryOrBody,
  realpathOfExisting,
  silentLogger,
  startOrder,
  v,
  withoutNulls,
  withRequired,
  type ServiceDefinition,
} from '../src/index.js';

type Def = Pick<ServiceDefinition, 'name' | 'uses' | 'optionalUses'>;
const defs = (...list: Def[]) => new Map(list.map((d) => [d.name, d]));

describe('declared dependencies', () => {
  const registry = defs(
    { name: 'jobs', uses: ['compute', 'secrets'], optionalUses: ['sql'] },
    { name: 'sql', optionalUses: ['uc'] },
    { name: 'compute', optionalUses: ['iam'] },
    { name: 'uc' },
    { name: 'secrets' },
    { name: 'iam' },
  );

  it('starts every service after the ones it uses, whatever the registry order', () => {
    const order = startOrder(registry, ['jobs', 'sql', 'compute', 'uc', 'secrets', 'iam']);
    const before = (a: string, b: string) => expect(order.indexOf(a)).toBeLessThan(order.indexOf(b));
    before('compute', 'jobs');
    before('secrets', 'jobs');
    before('sql', 'jobs');
    before('uc', 'sql');
    before('iam', 'compute');
    expect(order).toHaveLength(6);
  });

  it('pulls in what a selected service requires, transitively, but not its optional peers', () => {
    expect(withRequired(registry, ['jobs'])).toEqual(['jobs', 'compute', 'secrets']);
    expect(withRequired(registry, ['sql'])).toEqual(['sql']);
  });

  it('a cycle or an unknown name is a start-up error naming it', () => {
    const cyclic = defs({ name: 'a', uses: ['b'] }, { name: 'b', optionalUses: ['a'] });
    expect(() => startOrder(cyclic, ['a', 'b'])).toThrow(DependencyError);
    expect(() => startOrder(cyclic, ['a', 'b'])).toThrow(/cycle: a -> b -> a/);
    // An optional edge to a service that is off is no edge.
    expect(startOrder(cyclic, ['b'])).toEqual(['b']);
    expect(() => withRequired(defs({ name: 'a', uses: ['nope'] }), ['a'])).toThrow(/'a' declares 'nope'/);
  });

  /** A stand-in definition: ctx.peer looks peers up by definition, typed by its Api. */
  const def = <A>(name: string) =>
    defineService<A>({ name, description: name, create: () => ({ app: new Hono(), state: [] }) });
  const iamDef = def<{ me: number }>('iam');

  it('ctx.peer of an undeclared service fails with a message saying what to declare', () => {
    const peers = new Map<string, unknown>([['iam', { me: 1 }]]);
    const ctx = contextFor({ name: 'compute', optionalUses: ['iam'] }, { peers });
    expect(ctx.optionalPeer(iamDef)?.me).toBe(1);
    expect(() => ctx.optionalPeer(def('secrets'))).toThrow(
      /'compute' looked up peer 'secrets' without declaring it/,
    );
    // A required lookup of an optional peer is a mistake too.
    expect(() => ctx.peer(iamDef)).toThrow(/add 'iam' to its uses/);
    const off = contextFor({ name: 'compute', optionalUses: ['iam'] });
    expect(off.optionalPeer(iamDef)).toBeUndefined();
  });

  it('a required peer the host did not provide says what to enable', () => {
    const compute = def<number>('compute');
    const ctx = contextFor({ name: 'jobs', uses: ['compute'] });
    expect(() => ctx.peer(compute)).toThrow(/'jobs' needs service 'compute', which is not enabled/);
    const given = contextFor({ name: 'jobs', uses: ['compute'] }, { peers: new Map([['compute', 7]]) });
    expect(given.peer(compute)).toBe(7);
  });
});

describe('declared folders', () => {
  it('ctx.dir is the service folder; ctx.folder gives declared folders only', () => {
    const ctx = contextFor({ name: 'files', folders: ['dbfs'] }, { dataDir: '/tmp/ml-data' });
    expect(ctx.dir).toBe(path.resolve('/tmp/ml-data/files'));
    expect(ctx.folder('dbfs')).toBe(path.resolve('/tmp/ml-data/dbfs'));
    expect(() => ctx.folder('volumes')).toThrow(/'files' asked for folder 'volumes' without declaring it/);
    // An embedder's bare context knows no declarations and checks nothing.
    expect(createContext({ dataDir: '/tmp/x' }).folder('duckdb')).toBe(path.resolve('/tmp/x/duckdb'));
  });
});

describe('one error-handling installation', () => {
  const app = new Hono();
  installErrorHandling(app, silentLogger); // before the routes, as an embedder may call it
  app.post('/api/2.0/sql/statements', async (c) => c.json({ got: await c.req.json() }));
  app.get('/api/2.0/sql/statements/:id', (c) => c.json({ id: c.req.param('id') }));
  app.get('/api/2.0/fs/directories/*', (c) => c.json({ path: c.req.path }));

  it('a trailing slash reaches the route, body and all', async () => {
    const res = await app.request('/api/2.0/sql/statements/', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ statement: 'SELECT 1' }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ got: { statement: 'SELECT 1' } });
    expect(await (await app.request('/api/2.0/sql/statements/abc/?x=1')).json()).toEqual({ id: 'abc' });
  });

  it('a route that matches with its slash is not rerouted', async () => {
    expect(await (await app.request('/api/2.0/fs/directories/Volumes/a/')).json()).toEqual({
      path: '/api/2.0/fs/directories/Volumes/a/',
    });
  });

  it('unknown /api paths are 501 NOT_IMPLEMENTED; other paths 404 ENDPOINT_NOT_FOUND', async () => {
    const api = await app.request('/api/2.0/nothing/');
    expect(api.status).toBe(501);
    expect(((await api.json()) as { error_code: string }).error_code).toBe('NOT_IMPLEMENTED');
    const other = await app.request('/favicon.ico');
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error_code: string }).error_code).toBe('ENDPOINT_NOT_FOUND');
  });
});

describe('null means absent', () => {
  const Create = v.object({
    instance_pool_name: v.string(),
    custom_tags: v.optional(v.record(v.string(), v.string())),
    spec: v.optional(v.object({ autoscale: v.optional(v.object({ min: v.number() })), n: v.number() })),
    list: v.optional(v.array(v.nullable(v.number()))),
  });
  const app = new Hono();
  installErrorHandling(app, silentLogger);
  app.post('/create', async (c) => c.json(await readJson(c, Create)));
  app.post('/get', async (c) => c.json(await readQueryOrBody(c, v.object({ name: v.optional(v.string()) }))));

  it('an optional field sent as null is absent, at any depth; nulls in arrays stay', async () => {
    const res = await app.request('/create', {
      method: 'POST',
      body: JSON.stringify({
        instance_pool_name: 'p',
        custom_tags: null,
        spec: { autoscale: null, n: 1 },
        list: [1, null],
      }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ instance_pool_name: 'p', spec: { n: 1 }, list: [1, null] });
    const body = await app.request('/get', { method: 'POST', body: JSON.stringify({ name: null }) });
    expect(await body.json()).toEqual({});
  });

  it('a required field sent as null is still missing: a 400 naming it', async () => {
    const res = await app.request('/create', {
      method: 'POST',
      body: JSON.stringify({ instance_pool_name: null }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toContain('instance_pool_name');
    expect(withoutNulls(null)).toBeNull();
  });

  it('a body nesting deeper than MAX_BODY_DEPTH is a 400 MALFORMED_REQUEST, not a stack overflow', async () => {
    const nested = (levels: number) =>
      `{"instance_pool_name":"p","spec":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    const deep = await app.request('/create', { method: 'POST', body: nested(100_000) });
    expect(deep.status).toBe(400);
    expect(await deep.json()).toMatchObject({ error_code: 'MALFORMED_REQUEST' });
    const justOver = await app.request('/get', { method: 'POST', body: nested(MAX_BODY_DEPTH) });
    expect(justOver.status).toBe(400);
    // The deepest body allowed: the top object and MAX_BODY_DEPTH - 1 levels below it.
    expect(withoutNulls(JSON.parse(nested(MAX_BODY_DEPTH - 1)))).toMatchObject({ instance_pool_name: 'p' });
  });
});

describe('shared parsers', () => {
  it('base64: whitespace ignored, padding optional, impossible lengths and bad characters refused', () => {
    expect(parseBase64('aGVsbG8=')?.toString()).toBe('hello');
    expect(parseBase64('aGVs\nbG8=')?.toString()).toBe('hello');
    expect(parseBase64('aGVsbG8')?.toString()).toBe('hello');
    expect(parseBase64('')?.length).toBe(0);
    expect(parseBase64('x12345678')).toBeUndefined();
    expect(parseBase64('not base64!')).toBeUndefined();
    expect(parseBase64('aGVsbG8=x')).toBeUndefined();
    // The fast path (one line, standard alphabet) and the full check agree on the edge cases.
    expect(parseBase64('aGVs!G8=')).toBeUndefined();
    expect(parseBase64('aGVsbG8-')).toBeUndefined();
    expect(parseBase64('aG=sbG8=')).toBeUndefined();
    expect(parseBase64('aGVsbG8==')).toBeUndefined();
    const block = Buffer.alloc(3 << 18, 0xab);
    expect(parseBase64(block.toString('base64'))?.equals(block)).toBe(true);
  });

  it('name patterns: SQL LIKE for the REST APIs, the SHOW syntax for SQL', () => {
    const like = namePattern('sales_%', 'sql');
    expect(like.test('SALES_2024')).toBe(true);
    expect(like.test('sales')).toBe(false);
    expect(namePattern('a*', 'sql').test('abc')).toBe(true);
    expect(namePattern('a.b', 'sql').test('axb')).toBe(false);
    const show = namePattern('tmp* | final', 'show');
    expect(show.test('tmp_1')).toBe(true);
    expect(show.test('FINAL')).toBe(true);
    expect(show.test('other')).toBe(false);
    expect(namePattern('a_b', 'show').test('axb')).toBe(false);
  });

  it('nested query parameters in both spellings, repeated or comma-separated', () => {
    const url =
      'http://x/list?filter_by.states=A&filter_by.states=B,C&filter_by[states]=D&filter_by.pinned=true';
    expect(nestedQueryValues(url, 'filter_by.states')).toEqual(['A', 'B', 'C', 'D']);
    expect(nestedQueryValue(url, 'filter_by.pinned')).toBe('true');
    expect(nestedQueryValue('http://x/?filter_by[range][start]=5', 'filter_by.range.start')).toBe('5');
    expect(nestedQueryValue(url, 'filter_by.none')).toBeUndefined();
  });

  it('the real path of a path that does not exist yet resolves symlinks on the part that does', async () => {
    const root = await mkdtemp(path.join(os.tmpdir(), 'ml-real-'));
    await mkdir(path.join(root, 'target'));
    await symlink(path.join(root, 'target'), path.join(root, 'link'));
    const real = await realpath(root);
    expect(await realpathOfExisting(path.join(root, 'link', 'new', 'file'))).toBe(
      path.join(real, 'target', 'new', 'file'),
    );
    expect(await realpathOfExisting(path.join(root, 'missing'))).toBe(path.join(real, 'missing'));
  });
});
