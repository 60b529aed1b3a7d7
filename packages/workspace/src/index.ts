import { Hono } from 'hono';
import { defineService } from '@minilake/core';

// Placeholder until the package is built: every route of this group falls through to the 501 catch-all.
export const workspaceService = defineService({
  name: 'workspace',
  description: 'Workspace API and workspace-files: notebooks and files on disk',
  create: () => ({ app: new Hono(), state: [] }),
});
