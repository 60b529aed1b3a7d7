import * as z from 'zod';
import { compact } from '../rest.js';
import { anyList, anyObject, CREATE, DESTROY, fullName, READ, tool } from './define.js';

const UC = '/api/2.1/unity-catalog';
const enc = encodeURIComponent;
const NEEDS = ['unity-catalog'] as const;

/** Follows next_page_token so a list tool returns everything. */
async function listAll(
  get: (token?: string) => Promise<Record<string, unknown>>,
  key: string,
): Promise<unknown[]> {
  const out: unknown[] = [];
  let token: string | undefined;
  for (let i = 0; i < 1000; i++) {
    const page = await get(token);
    out.push(...((page[key] as unknown[] | undefined) ?? []));
    token = page.next_page_token as string | undefined;
    if (!token) break;
  }
  return out;
}

export const ucList = (rest: import('../rest.js').Rest, what: string, query: Record<string, string>) =>
  listAll((page_token) => rest.get(`${UC}/${what}`, { ...query, page_token }), what);

const column = z.object({
  name: z.string().describe('column name'),
  type_text: z.string().describe('Databricks type: BIGINT, STRING, DECIMAL(10,2), ARRAY<INT>, ...'),
  type_name: z.string().optional().describe('type family (INT, STRING, DECIMAL, ...); derived when omitted'),
  nullable: z.boolean().optional().describe('default true'),
  comment: z.string().optional().describe('free-text comment'),
});

export const ucTools = [
  tool({
    name: 'create_catalog',
    title: 'Create catalog',
    description: 'Creates a Unity Catalog catalog (its own DuckDB database file) with a default schema.',
    needs: NEEDS,
    input: {
      name: z.string().min(1).describe('catalog name'),
      comment: z.string().optional().describe('free-text comment'),
    },
    output: { catalog: anyObject.describe('CatalogInfo') },
    hints: CREATE,
    run: async (a, { rest }) => ({ catalog: await rest.post(`${UC}/catalogs`, compact(a)) }),
  }),
  tool({
    name: 'list_catalogs',
    title: 'List catalogs',
    description: 'Every catalog.',
    needs: NEEDS,
    input: {},
    output: { catalogs: anyList('CatalogInfo records') },
    hints: READ,
    run: async (_a, { rest }) => ({ catalogs: await ucList(rest, 'catalogs', {}) }),
  }),
  tool({
    name: 'get_catalog',
    title: 'Get catalog',
    description: 'One catalog by name.',
    needs: NEEDS,
    input: { name: z.string().describe('catalog name') },
    output: { catalog: anyObject.describe('CatalogInfo') },
    hints: READ,
    run: async ({ name }, { rest }) => ({ catalog: await rest.get(`${UC}/catalogs/${enc(name)}`) }),
  }),
  tool({
    name: 'delete_catalog',
    title: 'Delete catalog',
    description: 'Deletes a catalog; with force also every schema, table and volume in it.',
    needs: NEEDS,
    input: {
      name: z.string().describe('catalog name'),
      force: z.boolean().optional().describe('delete a catalog that is not empty (default false)'),
    },
    output: { name: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ name, force }, { rest }) {
      await rest.delete(`${UC}/catalogs/${enc(name)}`, { force });
      return { name, deleted: true };
    },
  }),
  tool({
    name: 'create_schema',
    title: 'Create schema',
    description: 'Creates a schema in a catalog.',
    needs: NEEDS,
    input: {
      name: z.string().min(1).describe('schema name'),
      catalog_name: z.string().min(1).describe('catalog it goes in'),
      comment: z.string().optional().describe('free-text comment'),
    },
    output: { schema: anyObject.describe('SchemaInfo') },
    hints: CREATE,
    run: async (a, { rest }) => ({ schema: await rest.post(`${UC}/schemas`, compact(a)) }),
  }),
  tool({
    name: 'list_schemas',
    title: 'List schemas',
    description: 'The schemas of a catalog.',
    needs: NEEDS,
    input: { catalog_name: z.string().describe('catalog name') },
    output: { schemas: anyList('SchemaInfo records') },
    hints: READ,
    run: async ({ catalog_name }, { rest }) => ({ schemas: await ucList(rest, 'schemas', { catalog_name }) }),
  }),
  tool({
    name: 'get_schema',
    title: 'Get schema',
    description: 'One schema by its full name catalog.schema.',
    needs: NEEDS,
    input: { full_name: z.string().describe('catalog.schema') },
    output: { schema: anyObject.describe('SchemaInfo') },
    hints: READ,
    run: async ({ full_name }, { rest }) => ({ schema: await rest.get(`${UC}/schemas/${enc(full_name)}`) }),
  }),
  tool({
    name: 'delete_schema',
    title: 'Delete schema',
    description: 'Deletes a schema; with force also its tables and volumes.',
    needs: NEEDS,
    input: {
      full_name: z.string().describe('catalog.schema'),
      force: z.boolean().optional().describe('delete a schema that is not empty (default false)'),
    },
    output: { full_name: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ full_name, force }, { rest }) {
      await rest.delete(`${UC}/schemas/${enc(full_name)}`, { force });
      return { full_name, deleted: true };
    },
  }),
  tool({
    name: 'create_table',
    title: 'Create table',
    description:
      'Creates a table through the Unity Catalog API. A MANAGED table is a real, empty table you can INSERT into with run_sql (or fill with seed_table); an EXTERNAL table records metadata at storage_location.',
    needs: NEEDS,
    input: {
      name: z.string().min(1).describe('table name'),
      catalog_name: z.string().min(1).describe('catalog'),
      schema_name: z.string().min(1).describe('schema'),
      columns: z.array(column).describe('columns in order'),
      table_type: z.enum(['MANAGED', 'EXTERNAL']).describe('MANAGED (data in MiniLake) or EXTERNAL'),
      data_source_format: z.string().optional().describe('DELTA (default), PARQUET, CSV, JSON, ...'),
      storage_location: z.string().optional().describe('required for EXTERNAL tables'),
      comment: z.string().optional().describe('free-text comment'),
    },
    output: { table: anyObject.describe('TableInfo') },
    hints: CREATE,
    async run(a, { rest }) {
      const columns = a.columns.map((c, position) => compact({ ...c, position }));
      return { table: await rest.post(`${UC}/tables`, compact({ ...a, columns })) };
    },
  }),
  tool({
    name: 'list_tables',
    title: 'List tables',
    description: 'The tables and views of a schema.',
    needs: NEEDS,
    input: { catalog_name: z.string().describe('catalog'), schema_name: z.string().describe('schema') },
    output: { tables: anyList('TableInfo records') },
    hints: READ,
    run: async ({ catalog_name, schema_name }, { rest }) => ({
      tables: await ucList(rest, 'tables', { catalog_name, schema_name }),
    }),
  }),
  tool({
    name: 'describe_table',
    title: 'Describe table',
    description: 'One table: columns with types, type, format, location, comment, properties.',
    needs: NEEDS,
    input: { full_name: fullName('table') },
    output: { table: anyObject.describe('TableInfo') },
    hints: READ,
    run: async ({ full_name }, { rest }) => ({ table: await rest.get(`${UC}/tables/${enc(full_name)}`) }),
  }),
  tool({
    name: 'table_exists',
    title: 'Table exists',
    description:
      'Whether a table exists (false for a missing table; an error only for a missing schema or catalog).',
    needs: NEEDS,
    input: { full_name: fullName('table') },
    output: { full_name: z.string(), table_exists: z.boolean() },
    hints: READ,
    async run({ full_name }, { rest }) {
      const r = await rest.get<{ table_exists: boolean }>(`${UC}/tables/${enc(full_name)}/exists`);
      return { full_name, table_exists: r.table_exists === true };
    },
  }),
  tool({
    name: 'delete_table',
    title: 'Delete table',
    description: 'Drops a table and its data.',
    needs: NEEDS,
    input: { full_name: fullName('table') },
    output: { full_name: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ full_name }, { rest }) {
      await rest.delete(`${UC}/tables/${enc(full_name)}`);
      return { full_name, deleted: true };
    },
  }),
  tool({
    name: 'create_volume',
    title: 'Create volume',
    description:
      'Creates a volume: a folder of files at /Volumes/<catalog>/<schema>/<volume>/ that upload_file writes and SQL reads (read_csv, read_parquet).',
    needs: NEEDS,
    input: {
      name: z.string().min(1).describe('volume name'),
      catalog_name: z.string().min(1).describe('catalog'),
      schema_name: z.string().min(1).describe('schema'),
      volume_type: z.enum(['MANAGED', 'EXTERNAL']).optional().describe('default MANAGED'),
      storage_location: z.string().optional().describe('required for EXTERNAL volumes'),
      comment: z.string().optional().describe('free-text comment'),
    },
    output: { volume: anyObject.describe('VolumeInfo') },
    hints: CREATE,
    run: async (a, { rest }) => ({
      volume: await rest.post(`${UC}/volumes`, compact({ volume_type: 'MANAGED', ...a })),
    }),
  }),
  tool({
    name: 'list_volumes',
    title: 'List volumes',
    description: 'The volumes of a schema.',
    needs: NEEDS,
    input: { catalog_name: z.string().describe('catalog'), schema_name: z.string().describe('schema') },
    output: { volumes: anyList('VolumeInfo records') },
    hints: READ,
    run: async ({ catalog_name, schema_name }, { rest }) => ({
      volumes: await ucList(rest, 'volumes', { catalog_name, schema_name }),
    }),
  }),
  tool({
    name: 'get_volume',
    title: 'Get volume',
    description: 'One volume by its full name.',
    needs: NEEDS,
    input: { full_name: fullName('volume') },
    output: { volume: anyObject.describe('VolumeInfo') },
    hints: READ,
    run: async ({ full_name }, { rest }) => ({ volume: await rest.get(`${UC}/volumes/${enc(full_name)}`) }),
  }),
  tool({
    name: 'delete_volume',
    title: 'Delete volume',
    description: 'Deletes a volume and its files.',
    needs: NEEDS,
    input: { full_name: fullName('volume') },
    output: { full_name: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ full_name }, { rest }) {
      await rest.delete(`${UC}/volumes/${enc(full_name)}`);
      return { full_name, deleted: true };
    },
  }),
];
