/**
 * @minilake/connect: Databricks Connect against MiniLake. Spark Connect calls (gRPC, from the host's Spark
 * Connect port or its own port over TLS) go to the driver of the cluster they name, or to the warm
 * serverless Spark Connect server; `/api/1.2` runs Python and SQL commands in execution contexts on a
 * cluster, each a REPL whose `spark` is a session on the cluster's driver.
 */
import { defineService, numberSetting, textSetting, type SettingsOf } from '@minilake/core';
import { computeService } from '@minilake/compute';
import { sparkSettings } from '@minilake/engine-spark';

export const CONNECT_GRPC_SERVICE = 'spark.connect.SparkConnectService';

/** Nothing for other services yet: clients reach it over gRPC and /api/1.2. */
export type ConnectApi = Record<string, never>;

export const connectSettings = {
  // Read by the host, which opens the port beside its own and hands its calls to this service.
  MINILAKE_SPARK_CONNECT_PORT: textSetting({
    doc:
      'Spark Connect for Databricks Connect and PySpark (`sc://localhost:15002`, h2c and TLS); `0` picks a free port, ' +
      "`off` none. The start-up lines print it. Databricks Connect's own way (`remote(host, token, cluster_id)`, " +
      "`.serverless()`) uses MiniLake's port over TLS: trust `<dataDir>/tls/cert.pem` with " +
      '`GRPC_DEFAULT_SSL_ROOTS_FILE_PATH` ([connect](packages/connect/README.md)).',
    default: '15002',
    pattern: [/^(off|\d{1,5})$/i, 'must be a port number (0 picks a free one) or off'],
  }),
  MINILAKE_CONNECT_HOLD: numberSetting({
    doc: 'Seconds a Spark Connect call waits for a starting cluster before answering `UNAVAILABLE` (clients retry).',
    default: 20,
  }),
  // The Spark engine's: serverless sessions and execution contexts use it.
  ...sparkSettings,
};
export type ConnectSettings = SettingsOf<typeof connectSettings>;

export const connectService = defineService<ConnectApi, typeof connectSettings>({
  name: 'connect',
  description:
    'Databricks Connect: Spark Connect routed to clusters and serverless Spark, /api/1.2 command execution',
  uses: [computeService.name],
  // files: dbfs:/ in the sessions.
  optionalUses: ['files'],
  settings: connectSettings,
  paths: ['/api/1.2'],
  grpcServices: [CONNECT_GRPC_SERVICE],
  async create(ctx) {
    return (await import('./create.js')).createConnect(ctx);
  },
});
