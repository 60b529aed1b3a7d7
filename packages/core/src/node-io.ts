/**
 * A narrow seam to the Node request and response under `@hono/node-server`, for the few routes that move
 * bulk bytes (Files API uploads and downloads). Hono hands a handler web streams: every 64 KiB socket chunk
 * then crosses a Node→web adapter on the way in, and a web→Node reader loop on the way out, which cost the
 * Files API most of its throughput (profile in bench/README.md, "files"). Streaming the Node objects
 * directly keeps the bytes in Node streams end to end.
 *
 * Under `app.request()` (in-process tests, embedders without a Node server) there are no Node objects: both
 * helpers fall back to the web Request/Response, so behaviour is the same, only slower.
 */
import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';

interface NodeBindings {
  incoming?: IncomingMessage;
  outgoing?: ServerResponse;
}

const bindings = (c: Context): NodeBindings => (c.env ?? {}) as NodeBindings;

/** The request body as a Node stream: the socket's own IncomingMessage when the body is still unread. */
export function requestBodyStream(c: Context): Readable {
  const { incoming } = bindings(c);
  if (incoming && typeof incoming.pipe === 'function' && !incoming.readableDidRead && !c.req.raw.bodyUsed) {
    return incoming;
  }
  const body = c.req.raw.body;
  return body ? Readable.fromWeb(body as WebReadableStream) : Readable.from([]);
}

/**
 * Sends `body` with `status` and `headers` (which should carry content-length). With a Node response the
 * stream is piped straight into the socket and the handler resolves when the last byte is handed over (a
 * client that goes away mid-body just ends the stream); otherwise it becomes a web Response.
 */
export async function sendStream(
  c: Context,
  status: number,
  headers: Record<string, string>,
  body: Readable,
): Promise<Response> {
  const { outgoing } = bindings(c);
  if (!outgoing || typeof outgoing.writeHead !== 'function' || outgoing.headersSent) {
    return new Response(Readable.toWeb(body) as unknown as ReadableStream, { status, headers });
  }
  outgoing.writeHead(status, headers as OutgoingHttpHeaders);
  try {
    await pipeline(body, outgoing);
  } catch {
    // The client disconnected or the file read failed after the headers went out: pipeline has destroyed
    // both streams, which is all that can be done once a status line is on the wire.
  }
  return RESPONSE_ALREADY_SENT;
}
