/**
 * Issue 30, Spark Connect under MINILAKE_AUTH=tokens, in process with no Spark behind it: a gRPC call without
 * a token or with a made-up one is UNAUTHENTICATED before anything reaches Spark, a good token passes; with
 * MINILAKE_ENFORCE=1 a call routed to a cluster needs CAN_ATTACH_TO on it (PERMISSION_DENIED, then allowed
 * after a grant). Clusters run no Spark here (MINILAKE_CLUSTER_RUNTIME=none), so an allowed call ends in
 * FAILED_PRECONDITION "runs no Spark here": the answer after the permission check. Command execution
 * (/api/1.2 contexts) on a cluster is attaching to it too.
 */
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMinilake, parseConfig, type Minilake } from '../src/index.js';

const ADMIN = 'test-admin-token';
const METHOD = '/spark.connect.SparkConnectService/Config';
type Json = Record<string, any>;

async function call(ml: Minilake, token: string, method: string, path: string, body?: unknown) {
  const res = await ml.app.request(path, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: (text ? JSON.parse(text) : {}) as Json };
}

let ml: Minilake;
let server: http2.Http2Server;
let url = '';
let sp: { app: string; token: string };
let clusterId = '';

/** One gRPC call to the host's gRPC handler; its status and message (trailers-only or in the trailers). */
function grpc(
  token: string | undefined,
  extra: http2.OutgoingHttpHeaders = {},
): Promise<{ status: number; message: string }> {
  return new Promise((resolve, reject) => {
    const c = http2.connect(url);
    c.on('error', reject);
    const req = c.request({
      ':method': 'POST',
      ':path': METHOD,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...(token !== undefined ? { authorization: `Bearer ${token}` } : {}),
      ...extra,
    });
    let got: http2.IncomingHttpHeaders = {};
    req.on('response', (h) => (got = h['grpc-status'] !== undefined ? h : got));
    req.on('trailers', (t) => (got = t['grpc-status'] !== undefined ? t : got));
    req.on('data', () => undefined);
    req.on('end', () => {
      c.close();
      resolve({
        status: Number(got['grpc-status']),
        message: decodeURIComponent(String(got['grpc-message'] ?? '')),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  ml = await createMinilake(
    parseConfig({
      MINILAKE_SERVICES: 'connect,compute',
      MINILAKE_AUTH: 'tokens',
      MINILAKE_ENFORCE: '1',
      MINILAKE_ADMIN_TOKEN: ADMIN,
      MINILAKE_CLUSTER_RUNTIME: 'none',
      MINILAKE_LOG_LEVEL: 'silent',
    }),
  );
  expect(ml.grpc).toBeDefined();
  server = http2.createServer();
  server.on('stream', (stream, headers) => ml.grpc!(stream, headers));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const created = await call(ml, ADMIN, 'POST', '/api/2.0/preview/scim/v2/ServicePrincipals', {
    displayName: 'ci-bot',
  });
  expect(created.status).toBe(201);
  const obo = await call(ml, ADMIN, 'POST', '/api/2.0/token-management/on-behalf-of/tokens', {
    application_id: created.body.applicationId,
    lifetime_seconds: 600,
  });
  expect(obo.status).toBe(200);
  sp = { app: created.body.applicationId, token: obo.body.token_value };
  const cluster = await call(ml, ADMIN, 'POST', '/api/2.1/clusters/create', {
    cluster_name: 'shared',
    spark_version: '15.4.x-scala2.12',
    node_type_id: 'i3.xlarge',
    num_workers: 0,
  });
  expect(cluster.status, JSON.stringify(cluster.body)).toBe(200);
  clusterId = cluster.body.cluster_id;
});

afterAll(async () => {
  server?.close();
  await ml?.close();
});

describe('Spark Connect with MINILAKE_AUTH=tokens', () => {
  it('answers UNAUTHENTICATED without a token and for a made-up one', async () => {
    expect(await grpc(undefined)).toEqual({
      status: 16,
      message: 'Credential was not sent or was of an unsupported type for this API.',
    });
    expect(await grpc('made-up')).toEqual({ status: 16, message: 'Invalid access token.' });
    // Also on a cluster call: nothing about the cluster is told before the token is.
    expect((await grpc('made-up', { 'x-databricks-cluster-id': clusterId })).status).toBe(16);
  });

  it('lets a good token through (an unknown cluster is then NOT_FOUND)', async () => {
    for (const token of [ADMIN, sp.token]) {
      const r = await grpc(token, { 'x-databricks-cluster-id': '0101-000000-nope' });
      expect(r).toEqual({ status: 5, message: 'Cluster 0101-000000-nope does not exist' });
    }
  });
});

describe('Spark Connect with MINILAKE_ENFORCE=1', () => {
  it('command execution (/api/1.2) on a cluster needs CAN_ATTACH_TO as well', async () => {
    const refused = await call(ml, sp.token, 'POST', '/api/1.2/contexts/create', {
      clusterId,
      language: 'python',
    });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toBe(
      `User ${sp.app} does not have Attach To or Admin permissions on cluster ${clusterId}`,
    );
    const admin = await call(ml, ADMIN, 'POST', '/api/1.2/contexts/create', {
      clusterId,
      language: 'python',
    });
    expect(admin.status).not.toBe(403);
  });

  it('refuses a cluster to a caller without CAN_ATTACH_TO, then allows it after a grant', async () => {
    const onCluster = { 'x-databricks-cluster-id': clusterId };
    expect(await grpc(sp.token, onCluster)).toEqual({
      status: 7,
      message: `You do not have permission to attach to cluster ${clusterId}`,
    });
    // The admin (and creator) passes: the call goes on to the cluster's Spark, which does not run here.
    const admin = await grpc(ADMIN, onCluster);
    expect(admin.status).toBe(9);
    expect(admin.message).toContain('runs no Spark here');

    const grant = await call(ml, ADMIN, 'PATCH', `/api/2.0/permissions/clusters/${clusterId}`, {
      access_control_list: [{ service_principal_name: sp.app, permission_level: 'CAN_ATTACH_TO' }],
    });
    expect(grant.status, JSON.stringify(grant.body)).toBe(200);
    const allowed = await grpc(sp.token, onCluster);
    expect(allowed.status).toBe(9);
    expect(allowed.message).toContain('runs no Spark here');
  });
});
