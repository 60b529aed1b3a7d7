/**
 * The static registry of API groups: one line per package, in any order (the start order is derived from
 * each definition's `uses` / `optionalUses`; this order only breaks ties and orders listings).
 * MINILAKE_SERVICES picks from these names; the admin routes and the 501 catch-all are always on.
 */
import type { ServiceDefinition } from '@minilake/core';
import { computeService } from '@minilake/compute';
import { connectService } from '@minilake/connect';
import { filesService } from '@minilake/files';
import { iamService } from '@minilake/iam';
import { jobsService } from '@minilake/jobs';
import { lakeviewService } from '@minilake/lakeview';
import { mcpService } from '@minilake/mcp';
import { mlflowService } from '@minilake/mlflow';
import { reposService } from '@minilake/repos';
import { pipelinesService } from '@minilake/pipelines';
import { secretsService } from '@minilake/secrets';
import { sqlService } from '@minilake/sql';
import { sqlObjectsService } from '@minilake/sql-objects';
import { thriftService } from '@minilake/thrift';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { workspaceAdminService } from '@minilake/workspace-admin';

const ordered = [
  iamService,
  secretsService,
  unityCatalogService,
  sqlService,
  sqlObjectsService,
  thriftService,
  workspaceService,
  reposService,
  filesService,
  computeService,
  connectService,
  workspaceAdminService,
  jobsService,
  lakeviewService,
  mlflowService,
  pipelinesService,
  // Last: its tools call every other service through the host's routes.
  mcpService,
] as ServiceDefinition<unknown>[];

export const registry = new Map(ordered.map((d) => [d.name, d]));
// The services enabled by default; MCP is opt-in (MINILAKE_MCP=1, or named in MINILAKE_SERVICES).
export const serviceNames = ordered.map((d) => d.name).filter((n) => n !== 'mcp');
