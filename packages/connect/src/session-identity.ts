/**
 * MINILAKE_AUTH=tokens: a Spark Connect session reads Unity Catalog as its caller, not as the engine.
 *
 * Spark Connect gives every client session (its `session_id`, with the client's `user_context`) a server-side
 * SparkSession of its own, whose catalogs are created lazily from that session's conf. The Spark server starts
 * with the engine's token in that conf (`spark.minilake.uc.token`, and `spark.sql.catalog.<c>.token` for each
 * catalog of the time: packages/engine-spark uc.ts), which every new session inherits. So on the first call of
 * a session id, before that call reaches Spark, the router asks the session's conf (a ConfigRequest GetAll, on
 * the same upstream connection, which creates the session) and replaces every one of those tokens with the
 * caller's own bearer (a ConfigRequest Set): each catalog the session opens then asks Unity Catalog as the
 * caller, so MINILAKE_ENFORCE=1 refuses a read without SELECT as Databricks does (INSUFFICIENT_PERMISSIONS).
 * Catalogs registered later in the session (UcSession.register) copy `spark.minilake.uc.token`, the caller's.
 *
 * A session id once seen belongs to its caller: another principal's call with it is PERMISSION_DENIED (a session
 * id is the client's secret, but the session holds the first caller's token). Sessions are remembered per
 * upstream connection (a restarted Spark server is a new connection, its sessions are configured again) and
 * only the most recent MAX_SESSIONS per connection.
 *
 * When the same caller comes back with another bearer (its OAuth token refreshed), the session's token keys are
 * set again to it: its catalogs and Spark's file systems read the session's conf per call, so a session outlives
 * the token it started with. Files read by path in a volume (`/Volumes/...`) are checked by Spark's file systems
 * for the session's token (READ VOLUME / WRITE VOLUME); `dbfs:/` is open to every caller, as the DBFS root is on
 * Databricks.
 *
 * Limits, stated in the README: code a session runs (a UDF) runs in the Spark server's process: this is
 * enforcement for clients, not a sandbox.
 */
import type { ClientHttp2Session } from 'node:http2';
import { bearerToken, type Principal } from '@minilake/core';
import { frame, splitFrames, Status } from './grpc.js';
import { fields, lengthDelimited } from './protobuf.js';

const CONFIG = '/spark.connect.SparkConnectService/Config';
/** Every Spark Connect request: session_id = 1, user_context = 2. */
const REQ_SESSION_ID = 1;
const REQ_USER_CONTEXT = 2;
/** ConfigRequest.operation; Operation.set / .get_all; Set.pairs; GetAll.prefix; KeyValue.key / .value. */
const CONFIG_OPERATION = 3;
const OP_SET = 1;
const OP_GET_ALL = 5;
const PAIRS = 1;
const KEY = 1;
const VALUE = 2;
/** ConfigResponse.pairs. */
const RESP_PAIRS = 2;

/** The session conf the engine's token is in: where the catalogs of the session take theirs from. */
export const UC_TOKEN = 'spark.minilake.uc.token';
/**
 * The keys that may hold the engine's token: the catalogs', and the file systems' (fs.ts), whose value a
 * session would otherwise read back with `spark.conf.get` and call the server with as the engine. (Path reads
 * take the session's `spark.minilake.uc.token`: Hadoop caches the file system the Spark server made at its
 * start, whose own token stays the engine's.)
 */
const TOKEN_KEY = /^spark\.sql\.catalog\.[^.]+\.token$|^spark\.hadoop\.minilake\.uc\.token$/;

const MAX_SESSIONS = 10_000;
const CONFIG_TIMEOUT_MS = 60_000;

/** A refusal for the client's call. */
export interface Refusal {
  status: number;
  message: string;
}

interface Entry {
  owner: string;
  /** The bearer the session's conf holds (the latest its owner called with). */
  token: string;
  ready: Promise<void>;
}

export class GrpcCallError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** The request's session id and its raw `user_context` field (tag included), or undefined when it has none. */
export function sessionOf(msg: Buffer): { sessionId: string; userContext?: Buffer } | undefined {
  let sessionId: string | undefined;
  let userContext: Buffer | undefined;
  for (const f of fields(msg)) {
    if (f.wireType !== 2) continue;
    if (f.number === REQ_SESSION_ID && sessionId === undefined)
      sessionId = msg.subarray(f.payloadStart!, f.end).toString('utf8');
    else if (f.number === REQ_USER_CONTEXT && userContext === undefined)
      userContext = msg.subarray(f.start, f.end);
  }
  if (!sessionId) return undefined;
  return userContext ? { sessionId, userContext } : { sessionId };
}

const str = (n: number, s: string) => lengthDelimited(n, Buffer.from(s, 'utf8'));

/** A ConfigRequest for the session with `operation` (an Operation message's bytes). */
export function configRequest(sessionId: string, userContext: Buffer | undefined, operation: Buffer): Buffer {
  return Buffer.concat([
    str(REQ_SESSION_ID, sessionId),
    userContext ?? Buffer.alloc(0),
    lengthDelimited(CONFIG_OPERATION, operation),
  ]);
}

export const getAllOperation = () => lengthDelimited(OP_GET_ALL, Buffer.alloc(0));

export function setOperation(pairs: [string, string][]): Buffer {
  const kvs = pairs.map(([k, v]) => lengthDelimited(PAIRS, Buffer.concat([str(KEY, k), str(VALUE, v)])));
  return lengthDelimited(OP_SET, Buffer.concat(kvs));
}

/** The key/value pairs of a ConfigResponse. */
export function responsePairs(msg: Buffer): Map<string, string> {
  const out = new Map<string, string>();
  for (const f of fields(msg)) {
    if (f.number !== RESP_PAIRS || f.wireType !== 2) continue;
    const kv = msg.subarray(f.payloadStart!, f.end);
    let key: string | undefined;
    let value: string | undefined;
    for (const g of fields(kv)) {
      const s = kv.subarray(g.payloadStart ?? g.end, g.end).toString('utf8');
      if (g.number === KEY) key = s;
      else if (g.number === VALUE) value = s;
    }
    if (key !== undefined && value !== undefined) out.set(key, value);
  }
  return out;
}

/**
 * The conf to set: every token key of the session that holds the engine's token (`spark.minilake.uc.token`
 * names it), now the caller's, so the session can neither act as the engine nor read its token. None when the session has no Unity Catalog conf (no plugin jar).
 */
export function tokenPairs(conf: Map<string, string>, callerToken: string): [string, string][] {
  const engine = conf.get(UC_TOKEN);
  if (engine === undefined) return [];
  const out: [string, string][] = [[UC_TOKEN, callerToken]];
  for (const [k, v] of conf) if (v === engine && TOKEN_KEY.test(k)) out.push([k, callerToken]);
  return out;
}

/** One unary call on an upstream connection: the reply message, or a GrpcCallError with the server's status. */
export function unaryCall(session: ClientHttp2Session, path: string, msg: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    let req: ReturnType<ClientHttp2Session['request']>;
    try {
      req = session.request({
        ':method': 'POST',
        ':path': path,
        'content-type': 'application/grpc',
        te: 'trailers',
      });
    } catch (e) {
      reject(new GrpcCallError(Status.UNAVAILABLE, (e as Error).message));
      return;
    }
    const chunks: Buffer[] = [];
    let status: string | undefined;
    let message = '';
    const take = (h: Record<string, unknown>) => {
      if (h['grpc-status'] !== undefined) status = String(h['grpc-status']);
      if (h['grpc-message'] !== undefined) message = decodeURIComponent(String(h['grpc-message']));
    };
    req.setTimeout(CONFIG_TIMEOUT_MS, () => req.close());
    req.on('response', take);
    req.on('trailers', take);
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', (e) => reject(new GrpcCallError(Status.UNAVAILABLE, e.message)));
    req.on('close', () => {
      if (status !== '0') {
        reject(new GrpcCallError(status ? Number(status) : Status.UNAVAILABLE, message || 'no answer'));
        return;
      }
      const msgs = splitFrames(Buffer.concat(chunks));
      if (!msgs || msgs.length !== 1) reject(new GrpcCallError(Status.INTERNAL, 'unexpected Config reply'));
      else resolve(msgs[0]!);
    });
    req.end(frame(msg));
  });
}

/** Puts the caller's token into a new session's conf (see the file comment). */
export async function configureSession(
  upstream: ClientHttp2Session,
  sessionId: string,
  userContext: Buffer | undefined,
  callerToken: string,
): Promise<void> {
  const all = await unaryCall(upstream, CONFIG, configRequest(sessionId, userContext, getAllOperation()));
  const pairs = tokenPairs(responsePairs(all), callerToken);
  if (pairs.length)
    await unaryCall(upstream, CONFIG, configRequest(sessionId, userContext, setOperation(pairs)));
}

/** The sessions seen per upstream connection and whose they are. */
export class SessionIdentity {
  private readonly seen = new WeakMap<ClientHttp2Session, Map<string, Entry>>();

  constructor(private readonly configure = configureSession) {}

  /**
   * Before a call of an authenticated caller (`principal`, its `authorization` header) goes to `upstream`:
   * undefined when it may go, a refusal otherwise. `body` is the call's whole request body.
   */
  async admit(
    upstream: ClientHttp2Session,
    principal: Principal,
    authorization: string | undefined,
    body: Buffer,
  ): Promise<Refusal | undefined> {
    const msgs = splitFrames(body);
    let s: ReturnType<typeof sessionOf>;
    try {
      s = msgs?.length ? sessionOf(msgs[0]!) : undefined;
    } catch {
      s = undefined;
    }
    // Fail closed: a call whose session is unknown to us cannot be given the caller's identity.
    if (!s)
      return {
        status: Status.INVALID_ARGUMENT,
        message: 'A Spark Connect request needs a session_id (compressed requests are not supported)',
      };
    let sessions = this.seen.get(upstream);
    if (!sessions) this.seen.set(upstream, (sessions = new Map()));
    const owner = `${principal.kind}:${principal.userName}`;
    let entry = sessions.get(s.sessionId);
    if (entry && entry.owner !== owner)
      return {
        status: Status.PERMISSION_DENIED,
        message: `Session ${s.sessionId} belongs to another principal`,
      };
    const token = bearerToken(authorization);
    if (!token) return { status: Status.UNAUTHENTICATED, message: 'No bearer token' };
    if (!entry) {
      entry = { owner, token, ready: this.configure(upstream, s.sessionId, s.userContext, token) };
      sessions.set(s.sessionId, entry);
      if (sessions.size > MAX_SESSIONS) sessions.delete(sessions.keys().next().value!);
    } else if (entry.token !== token) {
      // The same caller with a new bearer (its OAuth token refreshed, a new PAT): the session's conf takes it,
      // where its catalogs and file systems read it per call (MiniLakeCatalog, VolumesFileSystem), so a long
      // session outlives the token it started with. Its GetAll finds the old bearer where the engine's was.
      const fresh = token;
      entry.token = fresh;
      entry.ready = entry.ready.then(() => this.configure(upstream, s.sessionId, s.userContext, fresh));
    }
    try {
      await entry.ready;
      return undefined;
    } catch (e) {
      // Not configured: the next call of the session tries again.
      if (sessions.get(s.sessionId) === entry) sessions.delete(s.sessionId);
      const status = e instanceof GrpcCallError ? e.status : Status.UNAVAILABLE;
      return {
        status,
        message: `Could not give the Spark session the caller's identity: ${(e as Error).message}`,
      };
    }
  }
}
