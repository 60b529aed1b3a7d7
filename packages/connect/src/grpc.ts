/**
 * The little of gRPC a byte-level proxy needs: status codes, answers that are only a status (a "trailers-only"
 * response: HTTP 200 with `grpc-status` in the headers and the stream ended, which is how a gRPC server
 * refuses a call), and the 5-byte message framing.
 */
import http2, { type ServerHttp2Stream } from 'node:http2';

/** https://grpc.github.io/grpc/core/md_doc_statuscodes.html */
export const Status = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  NOT_FOUND: 5,
  PERMISSION_DENIED: 7,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** grpc-message is percent-encoded UTF-8 (the spec's "Percent-Encoded" rule: printable ASCII but '%'). */
export function encodeGrpcMessage(msg: string): string {
  let out = '';
  for (const b of Buffer.from(msg, 'utf8')) {
    out +=
      b >= 0x20 && b <= 0x7e && b !== 0x25
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** Ends a call with only a status; a stream that already answered is reset instead. */
export function refuse(stream: ServerHttp2Stream, status: number, message: string): void {
  if (stream.destroyed || stream.closed) return;
  if (stream.headersSent) {
    stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
    return;
  }
  try {
    stream.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': String(status),
        'grpc-message': encodeGrpcMessage(message),
      },
      { endStream: true },
    );
  } catch {
    // The client went away meanwhile.
  }
}

/** Whether request headers are a gRPC call (`application/grpc`, `application/grpc+proto`, ...). */
export function isGrpc(headers: http2.IncomingHttpHeaders): boolean {
  const ct = headers['content-type'];
  return typeof ct === 'string' && ct.startsWith('application/grpc');
}

/** The messages of a complete gRPC body (uncompressed frames only; undefined when one is compressed or cut). */
export function splitFrames(body: Buffer): Buffer[] | undefined {
  const out: Buffer[] = [];
  let i = 0;
  while (i < body.length) {
    if (i + 5 > body.length) return undefined;
    if (body[i] !== 0) return undefined;
    const len = body.readUInt32BE(i + 1);
    if (i + 5 + len > body.length) return undefined;
    out.push(body.subarray(i + 5, i + 5 + len));
    i += 5 + len;
  }
  return out;
}

export function frame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}
