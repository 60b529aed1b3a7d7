import { Hono } from 'hono';
import { defineService } from '@minilake/core';

// Placeholder until the package is built: every route of this group falls through to the 501 catch-all.
export const sqlService = defineService({
  name: 'sql',
  description: 'Statement Execution API, SQL warehouses, query history',
  create: () => ({ app: new Hono(), state: [] }),
});
