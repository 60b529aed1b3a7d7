/**
 * A gRPC connection spliced to its Spark server: the fast way in for Databricks Connect.
 *
 * Proxying every call through node:http2 (a server stream in, a client stream out) costs about 0.8 ms of
 * this process's time per call, and `spark.sql(...).collect()` is four calls. A Spark Connect client
 * (grpc-core: Databricks Connect, PySpark) sends every call of a channel with the same metadata, so the
 * first call decides for the whole connection: when the service says its calls may go straight to one
 * server (a running cluster's driver, nothing to check or rewrite per call: see ServiceInstance.grpcSplice),
 * the connection's bytes are piped, as they are, to a TCP connection of its own to that server. Otherwise
 * (or when the first request does not come at once) the bytes go back where they were read from and the
 * HTTP/2 server serves the connection as before, call by call.
 *
 * Once spliced, the client's side is still read frame by frame (the response side is not): each later call's
 * headers are decoded (HPACK, kept in step with the server's decoder) and shown to the target, which records
 * the cluster's activity and may refuse a call bound elsewhere: then the connection closes, and the client's
 * next connection is routed again.
 */
import net from 'node:net';
import type { IncomingHttpHeaders } from 'node:http2';
import type { Duplex } from 'node:stream';
import hpack from 'hpack.js';

/** Where a spliced connection goes, and what it is told of each later call. */
export interface SpliceTarget {
  port: number;
  /** A later call on the connection: false closes the connection (its calls belong elsewhere). */
  call(headers: IncomingHttpHeaders): boolean;
}

/** Decides from a connection's first call; undefined: serve it call by call. */
export type SpliceDecider = (headers: IncomingHttpHeaders) => Promise<SpliceTarget | undefined>;

const PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n');
/** A SETTINGS frame with no settings: length 0, type 4, no flags, stream 0. */
const EMPTY_SETTINGS = Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0]);
const HEADERS = 0x1;
const SETTINGS = 0x4;
const CONTINUATION = 0x9;
const ACK = 0x1;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;
/** What may be read before the first call's headers are complete; a client that sends more is not ours. */
const MAX_PREFIX = 64 * 1024;
/** A client that sends no call at once (it only connected) is served the usual way. */
const FIRST_CALL_WAIT_MS = 100;
/** A client that does not acknowledge the greeting is not an HTTP/2 client. */
const ACK_WAIT_MS = 10_000;

/**
 * The client's side of a connection: reads its HTTP/2 frames as they pass, decodes each header block (a
 * HEADERS frame and its CONTINUATIONs) in order as the server's decoder does, and takes the first SETTINGS
 * ACK (the answer to the greeting) out of the bytes to pass on.
 */
export class ClientSide {
  /** Whether the greeting's ACK has been taken out (from then on every byte passes as it came). */
  acked = false;
  private pending: Buffer = Buffer.alloc(0);
  private prefaceLeft = PREFACE.length;
  private block: Buffer[] = [];
  /** Bytes held back until the ACK is found, and where the unparsed `pending` starts within them. */
  private held: Buffer[] = [];
  private heldSize = 0;
  private readonly decoder = hpack.decompressor.create({ table: { maxSize: 1 << 20 } });
  private failed: Error | undefined;

  constructor() {
    this.decoder.on('error', (e: Error) => (this.failed = e));
  }

  /**
   * The calls whose headers `chunk` completes, and the bytes that may pass on now (none while the ACK is
   * awaited); throws on bytes that are not HTTP/2.
   */
  feed(chunk: Buffer): { calls: IncomingHttpHeaders[]; pass: Buffer | undefined } {
    let data = chunk;
    if (this.prefaceLeft > 0) {
      const n = Math.min(this.prefaceLeft, data.length);
      const at = PREFACE.length - this.prefaceLeft;
      if (!data.subarray(0, n).equals(PREFACE.subarray(at, at + n)))
        throw new Error('not an HTTP/2 connection');
      this.prefaceLeft -= n;
      data = data.subarray(n);
    }
    if (!this.acked) {
      this.held.push(chunk);
      this.heldSize += chunk.length;
    }
    this.pending = this.pending.length ? Buffer.concat([this.pending, data]) : data;
    const calls: IncomingHttpHeaders[] = [];
    let pass: Buffer | undefined = this.acked ? chunk : undefined;
    while (this.pending.length >= 9) {
      const length = this.pending.readUIntBE(0, 3);
      if (this.pending.length < 9 + length) break;
      const type = this.pending[3]!;
      const flags = this.pending[4]!;
      const payload = this.pending.subarray(9, 9 + length);
      if (type === SETTINGS && flags & ACK && !this.acked) {
        // Everything held, but this frame: it starts where the unparsed bytes start.
        const all = Buffer.concat(this.held);
        const at = this.heldSize - this.pending.length;
        pass = Buffer.concat([all.subarray(0, at), all.subarray(at + 9 + length)]);
        this.acked = true;
        this.held = [];
        this.heldSize = 0;
      }
      this.pending = this.pending.subarray(9 + length);
      if (type === HEADERS) {
        let start = 0;
        let end = payload.length;
        if (flags & PADDED) end -= payload[start++]!;
        if (flags & PRIORITY) start += 5;
        if (start > end) throw new Error('malformed HEADERS frame');
        this.block = [payload.subarray(start, end)];
      } else if (type === CONTINUATION) {
        this.block.push(payload);
      } else continue;
      if (flags & END_HEADERS) {
        calls.push(this.decode(Buffer.concat(this.block)));
        this.block = [];
      }
    }
    // Keep only what is unread, as a copy: the chunk may be reused by the stream it came from.
    if (this.pending.length) this.pending = Buffer.from(this.pending);
    return { calls, pass };
  }

  private decode(block: Buffer): IncomingHttpHeaders {
    this.decoder.write(block);
    this.decoder.execute();
    if (this.failed) throw this.failed;
    const headers: Record<string, string | string[]> = {};
    for (let h = this.decoder.read(); h; h = this.decoder.read()) {
      const prev = headers[h.name];
      headers[h.name] = prev === undefined ? h.value : ([] as string[]).concat(prev, h.value);
    }
    return headers;
  }
}

/**
 * Wraps a connection listener (the HTTP/2 server's): a connection whose first call `decide` accepts is
 * spliced to its target, every other goes to `serve` with its bytes (but the greeting's ACK) put back
 * unread. `live` holds the spliced sockets, for the host to close them on shutdown.
 */
export function splicing<S extends Duplex>(
  decide: SpliceDecider,
  serve: (socket: S) => void,
  live: Set<Duplex>,
): (socket: S) => void {
  return (socket) => {
    const client = new ClientSide();
    const pass: Buffer[] = [];
    const calls: IncomingHttpHeaders[] = [];
    let size = 0;
    let waited = false;
    let deciding = false;
    const stopReading = () => {
      clearTimeout(timer);
      socket.off('data', onData);
      socket.pause();
    };
    const giveBack = () => {
      stopReading();
      if (pass.length) socket.unshift(Buffer.concat(pass));
      serve(socket);
    };
    const next = () => {
      if (deciding || !client.acked) return;
      const first = calls[0];
      if (first === undefined) {
        if (waited || size > MAX_PREFIX) giveBack();
        return;
      }
      deciding = true;
      stopReading();
      decide(first).then(
        (target) => {
          if (!target) return giveBack();
          // Calls that came in the same bytes as the first are the target's too.
          if (calls.slice(1).every((h) => target.call(h)))
            splice(socket, target, Buffer.concat(pass), client, live);
          else socket.destroy();
        },
        () => giveBack(),
      );
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      try {
        const fed = client.feed(chunk);
        if (fed.pass) pass.push(fed.pass);
        calls.push(...fed.calls);
      } catch {
        return socket.destroy();
      }
      next();
    };
    const timer = setTimeout(() => {
      waited = true;
      next();
      if (!client.acked) timer.refresh();
    }, FIRST_CALL_WAIT_MS);
    setTimeout(() => {
      if (!client.acked) socket.destroy();
    }, ACK_WAIT_MS).unref();
    socket.on('data', onData);
    socket.write(EMPTY_SETTINGS);
    socket.resume();
  };
}

function splice(
  client: Duplex,
  target: SpliceTarget,
  prefix: Buffer,
  side: ClientSide,
  live: Set<Duplex>,
): void {
  const server = net.connect({ port: target.port, host: '127.0.0.1', noDelay: true });
  if (client instanceof net.Socket) client.setNoDelay(true);
  live.add(client);
  const end = () => {
    live.delete(client);
    client.destroy();
    server.destroy();
  };
  server.on('error', end);
  server.on('close', end);
  client.on('error', end);
  client.on('close', end);
  server.write(prefix);
  server.pipe(client);
  client.on('data', (chunk: Buffer) => {
    let fed: ReturnType<ClientSide['feed']>;
    try {
      fed = side.feed(chunk);
    } catch {
      return end();
    }
    for (const h of fed.calls) if (!target.call(h)) return end();
    if (fed.pass && !server.write(fed.pass)) client.pause();
  });
  server.on('drain', () => client.resume());
  client.resume();
}
