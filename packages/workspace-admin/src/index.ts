import { Hono } from 'hono';
import { defineService } from '@minilake/core';

// Placeholder until the package is built: every route of this group falls through to the 501 catch-all.
export const workspaceAdminService = defineService({
  name: 'workspace-admin',
  description:
    'Workspace conf, IP access lists, git credentials, global init scripts, notification destinations, settings',
  create: () => ({ app: new Hono(), state: [] }),
});
