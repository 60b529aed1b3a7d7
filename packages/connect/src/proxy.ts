/**
 * A byte-level gRPC proxy on node:http2: each client call becomes one stream on a long-lived HTTP/2
 * connection to the Spark Connect server it is routed to. Request and response bodies are piped (with
 * HTTP/2 flow control as back-pressure) and never decoded, headers and trailers pass through, so a Spark
 * error reaches the client exactly as Spark sent it (status, message, `grpc-status-details-bin` with its
 * error class). One reply may be rewritten on the way (`rewrite`): the AnalyzePlan answer that carries the
 * Spark version, to add the Databricks runtime version Databricks Connect checks.
 */
import http2, {
  type ClientHttp2Session,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';
import { refuse, Status } from './grpc.js';

const { NGHTTP2_CANCEL, NGHTTP2_FLAG_END_STREAM, NGHTTP2_INTERNAL_ERROR } = http2.constants;

/**
 * Flow-control windows of the upstream connection: the default 64 KiB would make a large result (a 1M-row
 * toPandas) wait on window updates; Spark Connect batches are up to a few MiB.
 */
const WINDOW = 16 * 1024 * 1024;

/** Request headers that belong to the client's connection or to MiniLake, not to the Spark server. */
const HOP = new Set([
  ':authority',
  ':scheme',
  'authorization',
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
]);

/** One HTTP/2 connection per Spark Connect server, opened on first use and dropped when it closes. */
export class Upstreams {
  private readonly sessions = new Map<number, ClientHttp2Session>();

  get(port: number): ClientHttp2Session {
    const open = this.sessions.get(port);
    if (open && !open.closed && !open.destroyed) return open;
    const s = http2.connect(`http://127.0.0.1:${port}`, {
      settings: { initialWindowSize: WINDOW },
    });
    s.on('connect', () => s.setLocalWindowSize(WINDOW));
    // Errors surface on the streams; a connection that failed is simply opened again next time.
    s.on('error', () => undefined);
    s.on('close', () => {
      if (this.sessions.get(port) === s) this.sessions.delete(port);
    });
    s.unref();
    this.sessions.set(port, s);
    return s;
  }

  /** Closes the connection to a server that went away (a terminated cluster). */
  drop(port: number): void {
    const s = this.sessions.get(port);
    this.sessions.delete(port);
    s?.destroy();
  }

  close(): void {
    for (const s of this.sessions.values()) s.destroy();
    this.sessions.clear();
  }
}

export interface PipeOptions {
  /** Extra request headers for the upstream call. */
  headers?: OutgoingHttpHeaders;
  /** The whole request body, already read from the client (a unary call the router had to look into). */
  body?: Buffer;
  /** Rewrites a whole (unary) response body; the body is buffered only when this is given. */
  rewrite?: (body: Buffer) => Buffer;
  /** Said to the client when the server cannot be reached. */
  unavailable: string;
}

export function pipeCall(
  stream: ServerHttp2Stream,
  headers: IncomingHttpHeaders,
  session: ClientHttp2Session,
  opts: PipeOptions,
): void {
  const out: OutgoingHttpHeaders = {};
  for (const [k, v] of Object.entries(headers)) if (v !== undefined && !HOP.has(k)) out[k] = v;
  Object.assign(out, opts.headers);
  let up: http2.ClientHttp2Stream;
  try {
    up = session.request(out);
  } catch (e) {
    refuse(stream, Status.UNAVAILABLE, `${opts.unavailable}: ${(e as Error).message}`);
    return;
  }
  let trailers: OutgoingHttpHeaders | undefined;
  let finished = false;
  up.on('response', (h, flags) => {
    const rh: OutgoingHttpHeaders = {};
    for (const [k, v] of Object.entries(h))
      if (v !== undefined && (k === ':status' || !k.startsWith(':'))) rh[k] = v;
    if (stream.destroyed) return;
    try {
      // A trailers-only answer (an error before any message) ends with its headers.
      if (flags & NGHTTP2_FLAG_END_STREAM) {
        finished = true;
        stream.respond(rh, { endStream: true });
      } else stream.respond(rh, { waitForTrailers: true });
    } catch {
      up.close(NGHTTP2_CANCEL);
    }
  });
  up.on('trailers', (t) => {
    trailers = {};
    for (const [k, v] of Object.entries(t))
      if (v !== undefined && v !== null && !k.startsWith(':')) trailers[k] = v as string | string[];
  });
  stream.on('wantTrailers', () => {
    finished = true;
    try {
      stream.sendTrailers(
        trailers ?? {
          'grpc-status': String(Status.INTERNAL),
          'grpc-message': 'The Spark server ended the call without a status',
        },
      );
    } catch {
      // The client reset the stream meanwhile.
    }
  });
  if (opts.rewrite) {
    const chunks: Buffer[] = [];
    up.on('data', (c: Buffer) => chunks.push(c));
    up.on('end', () => {
      if (stream.destroyed || finished) return;
      let body: Buffer = Buffer.concat(chunks);
      try {
        body = opts.rewrite!(body);
      } catch {
        // Not what we expected to rewrite: pass it on unchanged.
      }
      stream.end(body);
    });
  } else {
    up.pipe(stream);
  }
  if (opts.body) up.end(opts.body);
  else stream.pipe(up);
  up.on('error', (e) => {
    if (!stream.headersSent) refuse(stream, Status.UNAVAILABLE, `${opts.unavailable}: ${e.message}`);
    else if (!stream.destroyed) stream.close(NGHTTP2_INTERNAL_ERROR);
  });
  up.on('close', () => {
    // The server reset the call (or the connection died) after answering: pass the reset on.
    if (!finished && stream.headersSent && !stream.destroyed && !stream.writableEnded)
      stream.close(up.rstCode || NGHTTP2_INTERNAL_ERROR);
    else if (!stream.headersSent && !stream.destroyed)
      refuse(stream, Status.UNAVAILABLE, `${opts.unavailable}: the connection closed`);
  });
  stream.on('error', () => undefined);
  stream.on('close', () => {
    // The client cancelled (or went away): cancel the server's call too.
    if (!up.closed && !up.destroyed) up.close(stream.rstCode || NGHTTP2_CANCEL);
  });
}
