/**
 * The static registry of API groups, in creation order (a service comes after the ones it uses).
 * MINILAKE_SERVICES picks from these names; the admin routes and the 501 catch-all are always on.
 */
import type { ServiceDefinition } from '@minilake/core';
import { computeService } from '@minilake/compute';
import { filesService } from '@minilake/files';
import { iamService } from '@minilake/iam';
import { jobsService } from '@minilake/jobs';
import { secretsService } from '@minilake/secrets';
import { sqlService } from '@minilake/sql';
import { unityCatalogService } from '@minilake/unity-catalog';
import { workspaceService } from '@minilake/workspace';
import { workspaceAdminService } from '@minilake/workspace-admin';

const ordered = [
  iamService,
  secretsService,
  unityCatalogService,
  sqlService,
  workspaceService,
  filesService,
  computeService,
  workspaceAdminService,
  jobsService,
] as ServiceDefinition<unknown>[];

export const registry = new Map(ordered.map((d) => [d.name, d]));
export const serviceNames = ordered.map((d) => d.name);
