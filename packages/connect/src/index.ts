/**
 * @minilake/connect: Databricks Connect against MiniLake. Spark Connect calls (gRPC, from the host's Spark
 * Connect port or its own port over TLS) go to the driver of the cluster they name, or to the warm
 * serverless Spark Connect server; `/api/1.2` runs Python and SQL commands in execution contexts on a
 * cluster, each a REPL whose `spark` is a session on the cluster's driver.
 */
import { defineService } from '@minilake/core';
import { computeService } from '@minilake/compute';

export const CONNECT_GRPC_SERVICE = 'spark.connect.SparkConnectService';

/** Nothing for other services yet: clients reach it over gRPC and /api/1.2. */
export type ConnectApi = Record<string, never>;

export const connectService = defineService<ConnectApi>({
  name: 'connect',
  description:
    'Databricks Connect: Spark Connect routed to clusters and serverless Spark, /api/1.2 command execution',
  uses: [computeService.name],
  configDefaults: {
    // Seconds a Spark Connect call waits for a starting cluster before it answers UNAVAILABLE (clients retry).
    MINILAKE_CONNECT_HOLD: '20',
  },
  paths: ['/api/1.2'],
  grpcServices: [CONNECT_GRPC_SERVICE],
  async create(ctx) {
    return (await import('./create.js')).createConnect(ctx);
  },
});
