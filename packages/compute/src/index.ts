import { Hono } from 'hono';
import { defineService } from '@minilake/core';

// Placeholder until the package is built: every route of this group falls through to the 501 catch-all.
export const computeService = defineService({
  name: 'compute',
  description: 'Clusters, cluster policies, instance pools, libraries',
  create: () => ({ app: new Hono(), state: [] }),
});
