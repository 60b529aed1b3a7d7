import { Hono } from 'hono';
import { defineService } from '@minilake/core';

// Placeholder until the package is built: every route of this group falls through to the 501 catch-all.
export const iamService = defineService({
  name: 'iam',
  description: 'SCIM users, groups, service principals; permissions; tokens',
  create: () => ({ app: new Hono(), state: [] }),
});
