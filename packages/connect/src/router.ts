/**
 * Where a Spark Connect call goes. Databricks routes by the `x-databricks-cluster-id` header (cluster mode)
 * or `x-databricks-session-id` (serverless); plain Spark Connect clients send neither. Here:
 * - a cluster id names an all-purpose cluster whose Spark Connect server (its driver) takes the call. A
 *   TERMINATED cluster is started, as Databricks does; while it starts the call waits a while and then
 *   answers UNAVAILABLE, which Spark Connect clients retry. An unknown cluster is NOT_FOUND; with
 *   MINILAKE_ENFORCE=1 a caller without CAN_ATTACH_TO on it is PERMISSION_DENIED (the host authenticated
 *   the call and runs it as its principal, MINILAKE_AUTH=tokens).
 * - everything else goes to the warm serverless Spark Connect server serverless job tasks use.
 * The AnalyzePlan reply with the Spark version gets the Databricks runtime version (field 800 of
 * SparkVersion, which only Databricks servers fill): Databricks Connect refuses a serverless session without
 * one. A cluster reports its own `spark_version`; serverless reports the runtime the client was built for.
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import {
  DatabricksError,
  EngineUnavailable,
  requestPrincipal,
  type GrpcSpliceTarget,
  type Logger,
} from '@minilake/core';
import type { ComputeApi } from '@minilake/compute';
import type { SparkEngine } from '@minilake/engine-spark';
import { frame, refuse, splitFrames, Status } from './grpc.js';
import { appendInside, fields, lengthDelimited } from './protobuf.js';
import { pipeCall, type Upstreams } from './proxy.js';
import { SessionIdentity } from './session-identity.js';

const SERVICE = '/spark.connect.SparkConnectService/';
/** AnalyzePlanRequest.client_type / .spark_version; AnalyzePlanResponse.spark_version; SparkVersion.dbr_version. */
const REQ_CLIENT_TYPE = 3;
const REQ_SPARK_VERSION = 10;
const RESP_SPARK_VERSION = 8;
const DBR_VERSION = 800;

export interface RouterDeps {
  compute: ComputeApi;
  spark: SparkEngine;
  upstreams: Upstreams;
  logger: Logger;
  /** How long a call waits for a starting cluster before it answers UNAVAILABLE (the client retries). */
  holdMs: number;
  /** The runtime a serverless session reports when the client does not say which it was built for. */
  newestRuntime: string;
}

/** A header's single value. */
function header(h: IncomingHttpHeaders, name: string): string | undefined {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
}

function readAll(stream: ServerHttp2Stream): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (c: Buffer) => chunks.push(c));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}

/** `dbconnect/16.1.7` in the client type Databricks Connect sends: `16.1.x-scala2.12`. */
export function runtimeOfClient(clientType: string | undefined): string | undefined {
  const m = /\bdbconnect\/(\d+)\.(\d+)/.exec(clientType ?? '');
  return m ? `${m[1]}.${m[2]}.x-scala2.12` : undefined;
}

/** The reply with `dbr_version` set inside its SparkVersion (unchanged when it has none or one already). */
export function withRuntimeVersion(body: Buffer, runtime: string): Buffer {
  const msgs = splitFrames(body);
  if (!msgs || msgs.length !== 1) return body;
  const msg = msgs[0]!;
  const sv = fields(msg).find((f) => f.number === RESP_SPARK_VERSION && f.wireType === 2);
  if (!sv) return body;
  const inner = msg.subarray(sv.payloadStart!, sv.end);
  if (fields(inner).some((f) => f.number === DBR_VERSION)) return body;
  const out = appendInside(msg, RESP_SPARK_VERSION, lengthDelimited(DBR_VERSION, Buffer.from(runtime)));
  return out ? frame(out) : body;
}

export class Router {
  /** MINILAKE_AUTH=tokens: each Spark Connect session acts as its caller in Unity Catalog. */
  private readonly identity = new SessionIdentity();

  constructor(private readonly d: RouterDeps) {}

  handle(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): void {
    void this.route(stream, headers).catch((e: unknown) => {
      this.d.logger.warn('Spark Connect call failed before it reached Spark', { error: String(e) });
      refuse(stream, Status.INTERNAL, (e as Error).message ?? String(e));
    });
  }

  /**
   * A connection whose first call names a RUNNING cluster the caller may attach to can go straight to the
   * cluster's driver (the host asks only when calls need no authentication, MINILAKE_AUTH is not `tokens`):
   * nothing is rewritten on a cluster's calls that a client needs (Databricks Connect checks a cluster's
   * runtime through clusters/get), and each later call only restarts the cluster's autotermination countdown.
   * A call naming another cluster (or none) closes the connection; the client's next one is routed again.
   * Anything else (a cluster to start or to refuse, serverless) is served call by call (`handle`).
   */
  splice(headers: IncomingHttpHeaders): GrpcSpliceTarget | undefined {
    const clusterId = header(headers, 'x-databricks-cluster-id');
    if (!clusterId || !(header(headers, ':path') ?? '').startsWith(SERVICE)) return undefined;
    const port = this.d.compute.sparkPort(clusterId);
    if (port === undefined) return undefined;
    try {
      this.d.compute.checkAccess(clusterId, 'CAN_ATTACH_TO');
    } catch {
      return undefined;
    }
    this.d.compute.recordActivity(clusterId);
    return {
      port,
      call: (h) => {
        if (header(h, 'x-databricks-cluster-id') !== clusterId) return false;
        this.d.compute.recordActivity(clusterId);
        return true;
      },
    };
  }

  private async route(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const path = header(headers, ':path') ?? '';
    if (!path.startsWith(SERVICE)) {
      refuse(stream, Status.UNIMPLEMENTED, `Unknown gRPC method ${path}`);
      return;
    }
    const clusterId = header(headers, 'x-databricks-cluster-id');
    let port: number;
    let runtime: string | undefined;
    if (clusterId) {
      const cluster = this.d.compute.getCluster(clusterId);
      if (!cluster) {
        refuse(stream, Status.NOT_FOUND, `Cluster ${clusterId} does not exist`);
        return;
      }
      // Attaching needs CAN_ATTACH_TO (MINILAKE_ENFORCE=1), checked before anything waits on Spark. The
      // gRPC refusal has its own words, not the clusters REST API's (quoted from a Databricks Connect client in
      // mosaicml/llm-foundry#1703, whose test matches "do not have permission to attach to cluster").
      try {
        this.d.compute.checkAccess(clusterId, 'CAN_ATTACH_TO');
      } catch (e) {
        if (!(e instanceof DatabricksError) || e.status !== 403) throw e;
        refuse(
          stream,
          Status.PERMISSION_DENIED,
          `You do not have permission to attach to cluster ${clusterId}`,
        );
        return;
      }
      runtime = String(cluster.spark_version ?? '');
      const target = await this.d.compute.awaitSpark(clusterId, this.d.holdMs);
      if ('problem' in target) {
        refuse(stream, target.retry ? Status.UNAVAILABLE : Status.FAILED_PRECONDITION, target.problem);
        return;
      }
      port = target.port;
      // Work on the cluster: its autotermination countdown starts again, as on Databricks.
      this.d.compute.recordActivity(clusterId);
    } else {
      try {
        port = await this.d.spark.connectPort();
      } catch (e) {
        // Not retryable: the message names the install command.
        refuse(
          stream,
          e instanceof EngineUnavailable ? Status.FAILED_PRECONDITION : Status.UNAVAILABLE,
          (e as Error).message,
        );
        return;
      }
    }
    if (stream.destroyed) return;
    const session = this.d.upstreams.get(port);
    const unavailable = clusterId
      ? `The Spark driver of cluster ${clusterId} is not reachable`
      : 'The serverless Spark Connect server is not reachable';
    // Only when the host authenticated the call (MINILAKE_AUTH=tokens): the body is read to see its session.
    const principal = requestPrincipal();
    let read: Buffer | undefined;
    if (principal) {
      read = await readAll(stream);
      const no = await this.identity.admit(session, principal, header(headers, 'authorization'), read);
      if (no) {
        refuse(stream, no.status, no.message);
        return;
      }
      if (stream.destroyed) return;
    }
    if (path === `${SERVICE}AnalyzePlan`) {
      const body = read ?? (await readAll(stream));
      const msgs = splitFrames(body);
      const msg = msgs?.length === 1 ? msgs[0]! : undefined;
      const asksVersion = msg !== undefined && fields(msg).some((f) => f.number === REQ_SPARK_VERSION);
      if (asksVersion && !clusterId)
        runtime = runtimeOfClient(stringField(msg!, REQ_CLIENT_TYPE)) ?? this.d.newestRuntime;
      pipeCall(stream, headers, session, {
        body,
        unavailable,
        ...(asksVersion && runtime ? { rewrite: (b) => withRuntimeVersion(b, runtime!) } : {}),
      });
      return;
    }
    pipeCall(stream, headers, session, read ? { body: read, unavailable } : { unavailable });
  }
}

/** A top-level string field of a message. */
function stringField(msg: Buffer, number: number): string | undefined {
  const f = fields(msg).find((x) => x.number === number && x.wireType === 2);
  return f ? msg.subarray(f.payloadStart!, f.end).toString('utf8') : undefined;
}
