import { Hono } from 'hono';
import { defineService } from '@minilake/core';

// Placeholder until the package is built: every route of this group falls through to the 501 catch-all.
export const filesService = defineService({
  name: 'files',
  description: 'DBFS and the Files API, including Unity Catalog volumes',
  create: () => ({ app: new Hono(), state: [] }),
});
