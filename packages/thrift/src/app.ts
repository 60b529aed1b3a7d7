/**
 * The Thrift endpoint Databricks SQL warehouses expose: `POST /sql/1.0/warehouses/<id>` (and the cluster form
 * `/sql/protocolv1/o/<org>/<cluster>`), TCLIService over TBinaryProtocol, one HTTP POST per call
 * (Content-Type application/x-thrift). Fidelity notes:
 * - The generated TCLIService processor and types shipped in `@databricks/sql` decode and encode every
 *   message; this package only implements the handler.
 * - An unknown warehouse is HTTP 404 before any Thrift is read (the connectors report the status).
 * - Cluster paths run on the warehouse of the same id if there is one, else on the starter warehouse.
 * - Query history names the client by the first word of its User-Agent (PyDatabricksSqlConnector/4.9.0).
 */
import { createRequire } from 'node:module';
import { Hono } from 'hono';
import { DatabricksError } from '@minilake/core';
import type { ThriftService } from './service.js';

const require = createRequire(import.meta.url);
const thrift = require('thrift') as {
  TBufferedTransport: new (buf?: Buffer, onFlush?: (msg: Buffer) => void) => unknown;
  TBinaryProtocol: new (t: unknown) => unknown;
};
const TCLIService = require('@databricks/sql/thrift/TCLIService.js') as {
  Processor: new (handler: unknown) => { process(input: unknown, output: unknown): void };
};

/** Runs one Thrift call through the generated processor and resolves with the encoded reply. */
export function processThrift(handler: unknown, body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const input = new thrift.TBufferedTransport() as {
      inBuf: Buffer;
      writeCursor: number;
    };
    input.inBuf = body;
    input.writeCursor = body.length;
    const output = new thrift.TBinaryProtocol(new thrift.TBufferedTransport(undefined, resolve));
    try {
      new TCLIService.Processor(handler).process(new thrift.TBinaryProtocol(input), output);
    } catch (e) {
      reject(e instanceof Error ? e : new Error(String(e)));
    }
  });
}

export interface ThriftAppOptions {
  service: ThriftService;
  /** The warehouse a path names, or undefined when there is none (404). */
  resolveWarehouse(kind: 'warehouse' | 'cluster', id: string): string | undefined;
}

export function thriftApp(o: ThriftAppOptions): Hono {
  const app = new Hono();
  const serve = async (kind: 'warehouse' | 'cluster', id: string, req: Request): Promise<Response> => {
    const warehouseId = o.resolveWarehouse(kind, id);
    if (!warehouseId)
      throw new DatabricksError(
        404,
        'RESOURCE_DOES_NOT_EXIST',
        kind === 'warehouse'
          ? `SQL warehouse ${id} does not exist.`
          : `No SQL warehouse serves cluster ${id}.`,
      );
    const body = Buffer.from(await req.arrayBuffer());
    let reply: Buffer;
    try {
      const client = req.headers.get('user-agent')?.split(' ')[0] || 'Thrift';
      reply = await processThrift(o.service.handler(warehouseId, client), body);
    } catch {
      throw new DatabricksError(
        400,
        'INVALID_PARAMETER_VALUE',
        'The request body is not a TCLIService call.',
      );
    }
    return new Response(new Uint8Array(reply), {
      status: 200,
      headers: { 'content-type': 'application/x-thrift' },
    });
  };
  app.post('/sql/1.0/warehouses/:id', (c) => serve('warehouse', c.req.param('id'), c.req.raw));
  app.post('/sql/protocolv1/o/:org/:cluster', (c) => serve('cluster', c.req.param('cluster'), c.req.raw));
  return app;
}
