import { Hono } from 'hono';
import { defineService } from '@minilake/core';

// Placeholder until the package is built: every route of this group falls through to the 501 catch-all.
export const unityCatalogService = defineService({
  name: 'unity-catalog',
  description: 'Unity Catalog on DuckDB: catalogs, schemas, tables, volumes, functions, grants',
  create: () => ({ app: new Hono(), state: [] }),
});
