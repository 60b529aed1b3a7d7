/**
 * Spark Connect sessions given their caller's identity (MINILAKE_AUTH=tokens), against a real HTTP/2 server
 * standing in for a Spark Connect server's Config method (GetAll answers a session conf, Set records what it
 * was asked): the first call of a session replaces the engine's token with the caller's, later calls cost
 * nothing more, another principal cannot use the session, and a failed Config refuses the call and is tried
 * again.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@minilake/core';
import { frame, splitFrames, Status } from '../src/grpc.js';
import { fields, lengthDelimited } from '../src/protobuf.js';
import { Upstreams } from '../src/proxy.js';
import {
  responsePairs,
  SessionIdentity,
  sessionOf,
  setOperation,
  tokenPairs,
} from '../src/session-identity.js';

const ENGINE = 'engine-token';
let conf: [string, string][] = [];
let failConfig = false;
/** What the fake server was asked: [operation, session id, user_context bytes (hex), pairs set]. */
const asked: { op: 'get_all' | 'set'; session: string; userContext: string; pairs: [string, string][] }[] =
  [];

const str = (n: number, s: string) => lengthDelimited(n, Buffer.from(s));
const kv = (k: string, v: string) => Buffer.concat([str(1, k), str(2, v)]);

function onConfig(stream: ServerHttp2Stream) {
  const chunks: Buffer[] = [];
  stream.on('data', (c: Buffer) => chunks.push(c));
  stream.on('end', () => {
    if (failConfig) {
      stream.respond(
        {
          ':status': 200,
          'content-type': 'application/grpc',
          'grpc-status': '14',
          'grpc-message': 'no%20driver',
        },
        { endStream: true },
      );
      return;
    }
    const msg = splitFrames(Buffer.concat(chunks))![0]!;
    const s = sessionOf(msg)!;
    const opField = fields(msg).find((f) => f.number === 3)!;
    const op = msg.subarray(opField.payloadStart!, opField.end);
    const inner = fields(op)[0]!;
    const entry = {
      op: inner.number === 5 ? ('get_all' as const) : ('set' as const),
      session: s.sessionId,
      userContext: s.userContext?.toString('hex') ?? '',
      pairs: [] as [string, string][],
    };
    if (entry.op === 'set') {
      // Set.pairs are KeyValue messages, the shape of ConfigResponse.pairs.
      const set = op.subarray(inner.payloadStart!, inner.end);
      const asResponse = Buffer.concat(
        fields(set).map((f) => lengthDelimited(2, set.subarray(f.payloadStart!, f.end))),
      );
      entry.pairs = [...responsePairs(asResponse)];
    }
    asked.push(entry);
    const reply = Buffer.concat([
      str(1, s.sessionId),
      ...(entry.op === 'get_all' ? conf.map(([k, v]) => lengthDelimited(2, kv(k, v))) : []),
    ]);
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.on('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(frame(reply));
  });
}

let upstream: http2.Http2Server;
let port = 0;
const upstreams = new Upstreams();

beforeAll(async () => {
  upstream = http2.createServer();
  upstream.on('stream', (stream, headers) => {
    if (String(headers[':path']).endsWith('/Config')) onConfig(stream);
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  port = (upstream.address() as AddressInfo).port;
});

afterAll(async () => {
  upstreams.close();
  await new Promise((r) => upstream.close(r));
});

const who = (userName: string, kind: Principal['kind'] = 'service_principal'): Principal => ({
  kind,
  userName,
  id: userName,
  displayName: userName,
  groups: ['users'],
});
const userContext = lengthDelimited(2, str(1, 'alice'));
/** An ExecutePlanRequest's first fields: session_id, user_context, then a plan. */
const request = (session: string) =>
  frame(Buffer.concat([str(1, session), userContext, lengthDelimited(3, Buffer.from([8, 1]))]));

describe('session identity', () => {
  it('replaces the engine token in a new session, once, with the caller user_context', async () => {
    conf = [
      ['spark.minilake.uc.token', ENGINE],
      ['spark.sql.catalog.main', 'dev.minilake.spark.MiniLakeCatalog'],
      ['spark.sql.catalog.main.token', ENGINE],
      ['spark.sql.catalog.mine.token', 'set-by-someone'],
      ['spark.hadoop.minilake.uc.token', ENGINE],
    ];
    asked.length = 0;
    const ids = new SessionIdentity();
    const up = upstreams.get(port);
    expect(await ids.admit(up, who('sp-1'), 'Bearer tok-sp-1', request('s-1'))).toBeUndefined();
    expect(asked.map((a) => a.op)).toEqual(['get_all', 'set']);
    expect(asked.every((a) => a.session === 's-1' && a.userContext === userContext.toString('hex'))).toBe(
      true,
    );
    // The file systems' key too: the session must not read the engine's token back with spark.conf.get.
    expect(asked[1]!.pairs).toEqual([
      ['spark.minilake.uc.token', 'tok-sp-1'],
      ['spark.sql.catalog.main.token', 'tok-sp-1'],
      ['spark.hadoop.minilake.uc.token', 'tok-sp-1'],
    ]);
    // The session's later calls go straight through.
    expect(await ids.admit(up, who('sp-1'), 'Bearer tok-sp-1', request('s-1'))).toBeUndefined();
    expect(asked).toHaveLength(2);
    // Another principal cannot use it; a session of its own is configured with its token.
    expect(await ids.admit(up, who('bob', 'user'), 'Bearer tok-bob', request('s-1'))).toMatchObject({
      status: Status.PERMISSION_DENIED,
    });
    expect(await ids.admit(up, who('bob', 'user'), 'Bearer tok-bob', request('s-2'))).toBeUndefined();
    expect(asked.at(-1)!.pairs[0]).toEqual(['spark.minilake.uc.token', 'tok-bob']);
  });

  it('gives the session its caller’s refreshed token, once, and refuses a call without a bearer', async () => {
    conf = [
      ['spark.minilake.uc.token', 'old-oauth'],
      ['spark.sql.catalog.main.token', 'old-oauth'],
    ];
    asked.length = 0;
    const ids = new SessionIdentity();
    const up = upstreams.get(port);
    expect(await ids.admit(up, who('sp-1'), 'Bearer old-oauth', request('s-r'))).toBeUndefined();
    asked.length = 0; // the fake's conf still says old-oauth, as the session's would after the first Set
    expect(await ids.admit(up, who('sp-1'), 'Bearer new-oauth', request('s-r'))).toBeUndefined();
    expect(asked.map((a) => a.op)).toEqual(['get_all', 'set']);
    expect(asked[1]!.pairs).toEqual([
      ['spark.minilake.uc.token', 'new-oauth'],
      ['spark.sql.catalog.main.token', 'new-oauth'],
    ]);
    conf = [
      ['spark.minilake.uc.token', 'new-oauth'],
      ['spark.sql.catalog.main.token', 'new-oauth'],
    ];
    expect(await ids.admit(up, who('sp-1'), 'Bearer new-oauth', request('s-r'))).toBeUndefined();
    expect(asked).toHaveLength(2);
    expect(await ids.admit(up, who('sp-1'), undefined, request('s-r'))).toMatchObject({
      status: Status.UNAUTHENTICATED,
    });
  });

  it('sets nothing in a session without Unity Catalog conf', async () => {
    conf = [['spark.sql.shuffle.partitions', '4']];
    asked.length = 0;
    const ids = new SessionIdentity();
    expect(await ids.admit(upstreams.get(port), who('sp-1'), 'Bearer t', request('s-3'))).toBeUndefined();
    expect(asked.map((a) => a.op)).toEqual(['get_all']);
  });

  it('refuses the call when the session cannot be configured, and tries again on the next', async () => {
    conf = [['spark.minilake.uc.token', ENGINE]];
    asked.length = 0;
    const ids = new SessionIdentity();
    failConfig = true;
    expect(await ids.admit(upstreams.get(port), who('sp-1'), 'Bearer t', request('s-4'))).toEqual({
      status: Status.UNAVAILABLE,
      message: "Could not give the Spark session the caller's identity: no driver",
    });
    failConfig = false;
    expect(await ids.admit(upstreams.get(port), who('sp-1'), 'Bearer t', request('s-4'))).toBeUndefined();
    expect(asked.map((a) => a.op)).toEqual(['get_all', 'set']);
  });

  it('refuses a call whose session it cannot read', async () => {
    const ids = new SessionIdentity();
    const up = upstreams.get(port);
    expect(await ids.admit(up, who('sp-1'), 'Bearer t', frame(Buffer.from([8, 1])))).toMatchObject({
      status: Status.INVALID_ARGUMENT,
    });
    expect(await ids.admit(up, who('sp-1'), 'Bearer t', Buffer.from([1, 0, 0, 0, 1, 0]))).toMatchObject({
      status: Status.INVALID_ARGUMENT,
    });
  });

  it('picks only the token keys that hold the engine token', () => {
    expect(tokenPairs(new Map([['spark.sql.catalog.x.token', ENGINE]]), 'c')).toEqual([]);
    expect(
      tokenPairs(
        new Map([
          ['spark.minilake.uc.token', ENGINE],
          ['spark.sql.catalog.x.uri', ENGINE],
          ['spark.sql.catalog.y.token', ENGINE],
          ['spark.hadoop.minilake.uc.token', ENGINE],
          ['spark.hadoop.minilake.uc.uri', ENGINE],
        ]),
        'c',
      ),
    ).toEqual([
      ['spark.minilake.uc.token', 'c'],
      ['spark.sql.catalog.y.token', 'c'],
      ['spark.hadoop.minilake.uc.token', 'c'],
    ]);
    expect(setOperation([['k', 'v']]).toString('hex')).toBe(
      lengthDelimited(1, lengthDelimited(1, kv('k', 'v'))).toString('hex'),
    );
  });
});
