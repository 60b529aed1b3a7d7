import { mkdtemp, readdir, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { Hono } from 'hono';
import { DatabricksError, ManualClock, StateDb } from '@minilake/core';
import { expectDatabricksError, jsonInit, serviceApp } from '@minilake/testing';
import { secretsService } from '../src/index.js';
import { SecretsStore, secretValue } from '../src/store.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (r: Response): Promise<any> => r.json();

/** Runs `fn` and returns the DatabricksError it throws. */
function thrown(fn: () => unknown): DatabricksError {
  try {
    fn();
  } catch (e) {
    if (e instanceof DatabricksError) return e;
    throw e;
  }
  throw new Error('expected a DatabricksError');
}

describe('SecretsStore', () => {
  let clock: ManualClock;
  let store: SecretsStore;
  beforeEach(() => {
    clock = new ManualClock();
    store = new SecretsStore(StateDb.memory(), { clock, owner: 'owner@example.com' });
  });

  it('creates and deletes scopes, refusing duplicates and missing ones', () => {
    store.createScope('b-scope');
    store.createScope('a.scope_1');
    expect(store.listScopes()).toEqual([
      { name: 'a.scope_1', backend_type: 'DATABRICKS' },
      { name: 'b-scope', backend_type: 'DATABRICKS' },
    ]);
    expect(thrown(() => store.createScope('a.scope_1'))).toMatchObject({
      status: 409,
      errorCode: 'RESOURCE_ALREADY_EXISTS',
    });
    store.putSecret('b-scope', 'k', Buffer.from('v'));
    store.deleteScope('b-scope');
    expect(store.listScopes().map((s) => s.name)).toEqual(['a.scope_1']);
    // its secrets went with it: a new scope of the same name is empty
    store.createScope('b-scope');
    expect(store.listSecrets('b-scope')).toEqual([]);
    expect(thrown(() => store.deleteScope('nope'))).toMatchObject({
      status: 404,
      errorCode: 'RESOURCE_DOES_NOT_EXIST',
    });
  });

  it('puts, lists, overwrites and deletes secrets; list never holds the value', () => {
    store.createScope('s');
    clock.advance(1000);
    store.putSecret('s', 'pw', Buffer.from('hunter2'));
    store.putSecret('s', 'api', Buffer.from('tok'));
    const list = store.listSecrets('s');
    expect(list.map((e) => e.key)).toEqual(['api', 'pw']);
    expect(list[0]).toEqual({ key: 'api', last_updated_timestamp: clock.now() });
    expect(JSON.stringify(list)).not.toContain('hunter2');
    clock.advance(5000);
    store.putSecret('s', 'pw', Buffer.from('changed'));
    expect(store.readSecret('s', 'pw').toString()).toBe('changed');
    expect(store.listSecrets('s').find((e) => e.key === 'pw')!.last_updated_timestamp).toBe(clock.now());
    store.deleteSecret('s', 'pw');
    expect(store.listSecrets('s').map((e) => e.key)).toEqual(['api']);
    expect(thrown(() => store.deleteSecret('s', 'pw'))).toMatchObject({ status: 404 });
    expect(thrown(() => store.readSecret('s', 'pw'))).toMatchObject({ status: 404 });
    expect(thrown(() => store.putSecret('nope', 'k', Buffer.from('v')))).toMatchObject({ status: 404 });
    expect(thrown(() => store.putSecret('s', 'k', Buffer.alloc(128 * 1024 + 1)))).toMatchObject({
      status: 400,
      errorCode: 'INVALID_PARAMETER_VALUE',
    });
  });

  it('decodes string_value as UTF-8 and bytes_value as base64, exactly one of them', () => {
    expect(secretValue({ string_value: 'héllo' })).toEqual(Buffer.from('héllo', 'utf8'));
    expect(secretValue({ bytes_value: Buffer.from([0, 1, 255]).toString('base64') })).toEqual(
      Buffer.from([0, 1, 255]),
    );
    for (const body of [{}, { string_value: 'a', bytes_value: 'YQ==' }, { bytes_value: 'not base64!' }]) {
      const e = thrown(() => secretValue(body));
      expect(e).toMatchObject({ status: 400, errorCode: 'INVALID_PARAMETER_VALUE' });
      expect(e.message).not.toContain('not base64!');
    }
    store.createScope('s');
    store.putSecret('s', 'bin', secretValue({ bytes_value: Buffer.from([0, 1, 255]).toString('base64') }));
    expect(store.readSecret('s', 'bin')).toEqual(Buffer.from([0, 1, 255]));
  });

  it('refuses invalid scope and key names', () => {
    for (const name of ['', 'has space', 'slash/x', 'x'.repeat(129), 'émoji']) {
      expect(thrown(() => store.createScope(name))).toMatchObject({
        status: 400,
        errorCode: 'INVALID_PARAMETER_VALUE',
      });
    }
    store.createScope('s');
    expect(thrown(() => store.putSecret('s', 'bad key', Buffer.from('v')))).toMatchObject({
      status: 400,
      errorCode: 'INVALID_PARAMETER_VALUE',
    });
  });

  it('stores ACLs: the creator (or initial_manage_principal) gets MANAGE', () => {
    store.createScope('s');
    store.createScope('t', 'users');
    expect(store.listAcls('s')).toEqual([{ principal: 'owner@example.com', permission: 'MANAGE' }]);
    expect(store.listAcls('t')).toEqual([{ principal: 'users', permission: 'MANAGE' }]);
    store.putAcl('s', 'users', 'READ');
    store.putAcl('s', 'users', 'WRITE');
    expect(store.getAcl('s', 'users')).toEqual({ principal: 'users', permission: 'WRITE' });
    expect(store.listAcls('s').map((a) => a.principal)).toEqual(['owner@example.com', 'users']);
    store.deleteAcl('s', 'users');
    expect(thrown(() => store.getAcl('s', 'users'))).toMatchObject({ status: 404 });
    expect(thrown(() => store.deleteAcl('s', 'users'))).toMatchObject({ status: 404 });
    expect(thrown(() => store.listAcls('nope'))).toMatchObject({ status: 404 });
  });

  it('resolves {{secrets/scope/key}} references and fails on a missing one', () => {
    store.createScope('s');
    store.putSecret('s', 'user', Buffer.from('alice'));
    store.putSecret('s', 'pw', Buffer.from('hunter2'));
    expect(store.resolveReferences('jdbc://{{secrets/s/user}}:{{ secrets/s/pw }}@host')).toBe(
      'jdbc://alice:hunter2@host',
    );
    expect(store.resolveReferences('no references')).toBe('no references');
    expect(thrown(() => store.resolveReferences('{{secrets/s/missing}}'))).toMatchObject({
      status: 404,
      errorCode: 'RESOURCE_DOES_NOT_EXIST',
    });
    expect(thrown(() => store.resolveReferences('{{secrets/nope/pw}}'))).toMatchObject({ status: 404 });
  });
});

describe('Secrets API in process', () => {
  let app: Hono;
  const post = (p: string, body: unknown) => app.request(`/api/2.0/secrets/${p}`, jsonInit('POST', body));
  const get = (p: string, q: Record<string, string>) =>
    app.request(`/api/2.0/secrets/${p}?${new URLSearchParams(q).toString()}`);

  beforeEach(async () => {
    ({ app } = await serviceApp(secretsService, { clock: new ManualClock() }));
    expect((await post('scopes/create', { scope: 's' })).status).toBe(200);
  });

  it('serves a value to get as Databricks does (every caller has READ), never in list', async () => {
    expect((await post('put', { scope: 's', key: 'pw', string_value: 'hunter2' })).status).toBe(200);
    const bytes = Buffer.from([0, 1, 254, 255]);
    expect(
      (await post('put', { scope: 's', key: 'bin', bytes_value: bytes.toString('base64') })).status,
    ).toBe(200);
    const res = await get('get', { scope: 's', key: 'pw' });
    expect(res.status).toBe(200);
    expect(await json(res)).toEqual({ key: 'pw', value: Buffer.from('hunter2').toString('base64') });
    expect(await json(await get('get', { scope: 's', key: 'bin' }))).toEqual({
      key: 'bin',
      value: bytes.toString('base64'),
    });
    expect(JSON.stringify(await json(await get('list', { scope: 's' })))).not.toContain(
      Buffer.from('hunter2').toString('base64'),
    );
    const missingKey = await expectDatabricksError(
      await get('get', { scope: 's', key: 'nope' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    expect(missingKey.message).toBe('Failed to get secret nope for scope s.');
    await expectDatabricksError(
      await get('get', { scope: 'nope', key: 'pw' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });

  it('with MINILAKE_SECRETS_WRITE_ONLY=1 never returns a value: get is 403 and list has keys and timestamps only', async () => {
    ({ app } = await serviceApp(secretsService, {
      clock: new ManualClock(),
      config: { MINILAKE_SECRETS_WRITE_ONLY: '1' },
    }));
    expect((await post('scopes/create', { scope: 's' })).status).toBe(200);
    expect((await post('put', { scope: 's', key: 'pw', string_value: 'hunter2' })).status).toBe(200);
    const list = await json(await get('list', { scope: 's' }));
    expect(list).toEqual({ secrets: [{ key: 'pw', last_updated_timestamp: expect.any(Number) }] });
    const res = await get('get', { scope: 's', key: 'pw' });
    const text = await res.clone().text();
    expect(text).not.toContain('hunter2');
    await expectDatabricksError(res, 403, 'PERMISSION_DENIED');
    await expectDatabricksError(
      await get('get', { scope: 'nope', key: 'pw' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
  });

  it('never echoes a value in an error message', async () => {
    for (const body of [
      { scope: 's', key: 'k', bytes_value: 12345678 },
      { scope: 's', key: 'k', string_value: 12345678 },
      { scope: 's', key: 'k', string_value: { secret: 12345678 } },
      { scope: 's', key: 'k', string_value: [12345678] },
      { scope: 's', key: 'k', string_value: null },
      { scope: 's', key: 'k', bytes_value: 'x12345678' },
      { scope: 's', key: 'k', string_value: '12345678', bytes_value: 'MTIzNDU2Nzg=' },
      { scope: 's', key: 'k', string_value: '12345678'.repeat(20_000) },
    ]) {
      const err = await expectDatabricksError(await post('put', body), 400, 'INVALID_PARAMETER_VALUE');
      expect(err.message).not.toContain('12345678');
    }
    const err = await expectDatabricksError(
      await post('put', { scope: 's', key: 'k', bytes_value: 12345678 }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    expect(err.message).toContain('bytes_value');
  });

  it('answers Databricks-shaped errors', async () => {
    await expectDatabricksError(await post('scopes/create', { scope: 's' }), 409, 'RESOURCE_ALREADY_EXISTS');
    await expectDatabricksError(await post('scopes/create', {}), 400, 'INVALID_PARAMETER_VALUE');
    await expectDatabricksError(
      await post('scopes/create', { scope: 'kv', scope_backend_type: 'AZURE_KEYVAULT' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await post('scopes/delete', { scope: 'nope' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await post('put', { scope: 'nope', key: 'k', string_value: 'v' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await post('delete', { scope: 's', key: 'nope' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    await expectDatabricksError(
      await post('acls/put', { scope: 's', principal: 'users', permission: 'OWNER' }),
      400,
      'INVALID_PARAMETER_VALUE',
    );
    await expectDatabricksError(
      await get('acls/get', { scope: 's', principal: 'users' }),
      404,
      'RESOURCE_DOES_NOT_EXIST',
    );
    expect((await post('acls/put', { scope: 's', principal: 'users', permission: 'READ' })).status).toBe(200);
    expect(await json(await get('acls/get', { scope: 's', principal: 'users' }))).toEqual({
      principal: 'users',
      permission: 'READ',
    });
    expect((await json(await get('acls/list', { scope: 's' }))).items).toHaveLength(2);
    const bad = await app.request('/api/2.0/secrets/put', { method: 'POST', body: '{not json' });
    expect(bad.status).toBe(400);
  });
});

describe('Secrets persistence', () => {
  it('keeps values encrypted on disk and readable after a reopen with the same key dir', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'minilake-secrets-'));
    const stateDir = path.join(dir, 'state');
    const plain = 'plaintext-PA55W0RD-value';
    const clock = new ManualClock();

    let db = await StateDb.open(stateDir);
    let store = new SecretsStore(db, { clock, owner: 'me', keyDir: stateDir });
    store.createScope('s');
    store.putSecret('s', 'pw', Buffer.from(plain));
    store.putSecret('s', 'bin', Buffer.from(plain, 'utf8'));
    await db.flush();

    /** Every file under dir, as bytes, must not hold the value in clear text nor as base64. */
    const assertNoPlaintext = async () => {
      const files = (await readdir(dir, { recursive: true, withFileTypes: true })).filter((e) => e.isFile());
      expect(files.map((f) => f.name)).toEqual(expect.arrayContaining(['journal.jsonl', 'secrets.key']));
      for (const f of files) {
        const content = await readFile(path.join(f.parentPath, f.name));
        expect(content.includes(plain), f.name).toBe(false);
        expect(content.includes(Buffer.from(plain).toString('base64')), f.name).toBe(false);
      }
    };
    await assertNoPlaintext();
    const journal = await readFile(path.join(stateDir, 'journal.jsonl'), 'utf8');
    expect(journal).toContain('"pw"'); // the secret is there, sealed
    await db.close(); // folds the journal into snapshot.json
    await assertNoPlaintext();
    expect(await readFile(path.join(stateDir, 'snapshot.json'), 'utf8')).toContain('"s/pw"');

    db = await StateDb.open(stateDir);
    store = new SecretsStore(db, { clock, owner: 'me', keyDir: stateDir });
    expect(store.readSecret('s', 'pw').toString()).toBe(plain);
    expect(store.resolveReferences('{{secrets/s/bin}}')).toBe(plain);
    await db.close();
    await assertNoPlaintext();
  });
});
