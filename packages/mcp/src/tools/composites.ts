/**
 * Composites: one call for what takes an SDK client four or five. They are built only from the REST routes
 * the other tools use, so their errors are the same Databricks errors.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { compact, RestError } from '../rest.js';
import { anyList, DESTROY, READ, tool, type ToolEnv } from './define.js';
import { runStatement } from './sql.js';
import { ucList } from './unity-catalog.js';

const UC = '/api/2.1/unity-catalog';
const enc = encodeURIComponent;

/** Databricks SQL identifier quoting (backticks, a backtick doubled), for names placed into statement text. */
export const quoteName = (name: string): string => `\`${name.replaceAll('`', '``')}\``;

export function splitFullName(full: string): [string, string, string] {
  const parts = full.split('.');
  if (parts.length !== 3 || parts.some((p) => p === ''))
    throw new RestError(
      400,
      'INVALID_PARAMETER_VALUE',
      `'${full}' is not a three-part name catalog.schema.table.`,
    );
  return parts as [string, string, string];
}

const exists = async (f: () => Promise<unknown>): Promise<boolean> => {
  try {
    await f();
    return true;
  } catch (e) {
    if (e instanceof RestError && e.status === 404) return false;
    throw e;
  }
};

interface Named {
  name: string;
  full_name?: string;
  [k: string]: unknown;
}

export async function catalogTree(env: ToolEnv, catalog: string, includeColumns: boolean) {
  const info = await env.rest.get<Named>(`${UC}/catalogs/${enc(catalog)}`);
  const schemas = (await ucList(env.rest, 'schemas', { catalog_name: catalog })) as Named[];
  const out = [];
  for (const s of schemas) {
    const tables = (await ucList(env.rest, 'tables', {
      catalog_name: catalog,
      schema_name: s.name,
    })) as Named[];
    let volumes: Named[] = [];
    try {
      volumes = (await ucList(env.rest, 'volumes', {
        catalog_name: catalog,
        schema_name: s.name,
      })) as Named[];
    } catch {
      // volumes are optional in the tree
    }
    out.push(
      compact({
        name: s.name,
        comment: s.comment,
        tables: tables.map((t) =>
          compact({
            name: t.name,
            full_name: t.full_name,
            table_type: t.table_type,
            data_source_format: t.data_source_format,
            comment: t.comment,
            columns: includeColumns
              ? ((t.columns as Named[] | undefined) ?? []).map((c) =>
                  compact({ name: c.name, type_text: c.type_text, nullable: c.nullable, comment: c.comment }),
                )
              : undefined,
          }),
        ),
        volumes: volumes.map((v) =>
          compact({ name: v.name, full_name: v.full_name, volume_type: v.volume_type }),
        ),
      }),
    );
  }
  return { catalog: info.name, comment: info.comment, schemas: out };
}

/** A cell as the text a statement parameter carries; null stays NULL, nested values become JSON text. */
function cellText(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

const ROWS_PER_INSERT = 200;

export const compositeTools = [
  tool({
    name: 'describe_catalog_tree',
    title: 'Describe catalog tree',
    description:
      'The whole hierarchy of a catalog in one call: its schemas, their tables (with columns and types) and volumes.',
    needs: ['unity-catalog'],
    input: {
      catalog: z.string().describe('catalog name'),
      include_columns: z.boolean().optional().describe('include every table column (default true)'),
    },
    output: {
      catalog: z.string(),
      comment: z.string().optional(),
      schemas: anyList(
        '{name, tables: [{name, full_name, table_type, columns: [{name, type_text}]}], volumes}',
      ),
    },
    hints: READ,
    run: ({ catalog, include_columns }, env) => catalogTree(env, catalog, include_columns ?? true),
  }),
  tool({
    name: 'seed_table',
    title: 'Seed a table',
    description:
      'Creates a table with exactly the rows you give (values bound as statement parameters, cast to the column types). With recreate (default true) an existing table is dropped first; with recreate=false the rows are appended to an existing table. The schema must exist (setup_fixture makes it).',
    needs: ['unity-catalog', 'sql'],
    input: {
      full_name: z.string().describe('catalog.schema.table'),
      columns: z
        .array(
          z.object({
            name: z.string().min(1).describe('column name'),
            type_text: z
              .string()
              .min(1)
              .describe('Databricks type: BIGINT, STRING, DECIMAL(10,2), DATE, ...'),
          }),
        )
        .min(1)
        .describe('columns in order'),
      rows: z
        .array(z.union([z.array(z.unknown()), z.record(z.string(), z.unknown())]))
        .describe('rows: arrays in column order, or objects keyed by column name; null is NULL'),
      recreate: z.boolean().optional().describe('drop an existing table first (default true)'),
    },
    output: {
      full_name: z.string(),
      rows_inserted: z.number(),
      created: z.boolean().describe('true when the table was (re)created'),
      warehouse_id: z.string(),
    },
    hints: DESTROY,
    async run({ full_name, columns, rows, recreate }, env) {
      const [catalog, schema, name] = splitFullName(full_name);
      const path = `${UC}/tables/${enc(full_name)}`;
      // Every row's shape is checked before anything changes.
      const cells = rows.map((row, i) => {
        const values = Array.isArray(row)
          ? row
          : columns.map((c) => (row as Record<string, unknown>)[c.name]);
        if (values.length !== columns.length)
          throw new RestError(
            400,
            'INVALID_PARAMETER_VALUE',
            `Row ${i} has ${values.length} values; the table has ${columns.length} columns.`,
          );
        return values.map(cellText);
      });
      const present =
        (await env.rest.get<{ table_exists?: boolean }>(`${path}/exists`)).table_exists === true;
      const create = !present || (recreate ?? true);
      // All or nothing: a new table is filled under a staging name and takes its name only once every row is
      // in (a failure drops it, and a table it replaces is untouched); an append first checks every value
      // against the column types with a SELECT, so a bad value fails before any row lands.
      const stagingName = `__ml_seed_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
      const tableName = create ? stagingName : name;
      const tablePath = `${UC}/tables/${enc(`${catalog}.${schema}.${tableName}`)}`;
      if (create)
        await env.rest.post(`${UC}/tables`, {
          name: stagingName,
          catalog_name: catalog,
          schema_name: schema,
          table_type: 'MANAGED',
          data_source_format: 'DELTA',
          columns: columns.map((c, position) => ({ name: c.name, type_text: c.type_text, position })),
        });
      const { id: warehouse_id } = await env.fixtures.warehouse();
      const target = [catalog, schema, tableName].map(quoteName).join('.');
      try {
        // Types come back from Unity Catalog, which parsed them: only its canonical type text enters the statement.
        const table = await env.rest.get<{ columns?: { name: string; type_text: string }[] }>(tablePath);
        const types = new Map((table.columns ?? []).map((c) => [c.name.toLowerCase(), c.type_text]));
        const castTypes = columns.map((c) => {
          const t = types.get(c.name.toLowerCase());
          if (!t)
            throw new RestError(
              400,
              'INVALID_PARAMETER_VALUE',
              `Table ${full_name} has no column '${c.name}'.`,
            );
          return t;
        });
        const columnList = columns.map((c) => quoteName(c.name)).join(', ');
        const batches = (): { tuples: string[]; parameters: { name: string; value?: string }[] }[] => {
          const out = [];
          for (let start = 0; start < cells.length; start += ROWS_PER_INSERT) {
            const parameters: { name: string; value?: string }[] = [];
            const tuples = cells.slice(start, start + ROWS_PER_INSERT).map((row, r) => {
              const markers = row.map((value, c) => {
                const p = `r${r}c${c}`;
                parameters.push(value === null ? { name: p } : { name: p, value });
                // The cast makes a text parameter the column's type, as an INSERT of a typed literal would.
                return `CAST(:${p} AS ${castTypes[c]})`;
              });
              return `(${markers.join(', ')})`;
            });
            out.push({ tuples, parameters });
          }
          return out;
        };
        if (!create)
          for (const b of batches())
            await runStatement(env, {
              statement: `SELECT count(*) FROM (VALUES ${b.tuples.join(', ')})`,
              warehouse_id,
              parameters: b.parameters,
            });
        for (const b of batches())
          await runStatement(env, {
            statement: `INSERT INTO ${target} (${columnList}) VALUES ${b.tuples.join(', ')}`,
            warehouse_id,
            parameters: b.parameters,
          });
      } catch (e) {
        if (create) await env.rest.delete(tablePath).catch(() => undefined);
        throw e;
      }
      if (create) {
        if (present) await env.rest.delete(path);
        await runStatement(env, {
          statement: `ALTER TABLE ${target} RENAME TO ${[catalog, schema, name].map(quoteName).join('.')}`,
          warehouse_id,
        });
      }
      const created = create;
      return { full_name, rows_inserted: cells.length, created, warehouse_id };
    },
  }),
  tool({
    name: 'setup_fixture',
    title: 'Set up a fixture',
    description:
      'Catalog + schema + warehouse in one idempotent call: creates what is missing and returns what exists. With reset the catalog is dropped (with everything in it) and made again. Safe when several agents call it at once (calls are serialized: one warehouse, not two).',
    needs: ['unity-catalog', 'sql'],
    input: {
      catalog: z.string().min(1).describe('catalog name'),
      schema: z.string().min(1).optional().describe('schema name (default "default")'),
      reset: z.boolean().optional().describe('drop and recreate the catalog first (default false)'),
    },
    output: {
      catalog: z.string(),
      schema: z.string(),
      full_name: z.string().describe('catalog.schema'),
      warehouse_id: z.string().describe('the warehouse run_sql uses when none is named'),
      created: z.object({ catalog: z.boolean(), schema: z.boolean(), warehouse: z.boolean() }),
    },
    hints: DESTROY,
    run: ({ catalog, schema: schemaArg, reset }, env) =>
      env.fixtures.setupLock.run(async () => {
        const schema = schemaArg ?? 'default';
        const catPath = `${UC}/catalogs/${enc(catalog)}`;
        if (reset && (await exists(() => env.rest.get(catPath))))
          await env.rest.delete(catPath, { force: true });
        let catalogCreated = false;
        if (!(await exists(() => env.rest.get(catPath)))) {
          await env.rest.post(`${UC}/catalogs`, { name: catalog });
          catalogCreated = true;
        }
        let schemaCreated = false;
        if (!(await exists(() => env.rest.get(`${UC}/schemas/${enc(`${catalog}.${schema}`)}`)))) {
          await env.rest.post(`${UC}/schemas`, { name: schema, catalog_name: catalog });
          schemaCreated = true;
        }
        const w = await env.fixtures.warehouse();
        return {
          catalog,
          schema,
          full_name: `${catalog}.${schema}`,
          warehouse_id: w.id,
          created: { catalog: catalogCreated, schema: schemaCreated, warehouse: w.created },
        };
      }),
  }),
  tool({
    name: 'preview_table',
    title: 'Preview table',
    description: 'The first rows of a table (SELECT * ... LIMIT n) with its column types.',
    needs: ['unity-catalog', 'sql'],
    input: {
      full_name: z.string().describe('catalog.schema.table'),
      limit: z.number().int().min(1).max(1000).optional().describe('rows (default 20)'),
    },
    output: {
      full_name: z.string(),
      columns: z.array(z.object({ name: z.string(), type_text: z.string().optional() })),
      rows: z.array(z.array(z.unknown())),
    },
    hints: READ,
    async run({ full_name, limit }, env) {
      const target = splitFullName(full_name).map(quoteName).join('.');
      const r = await runStatement(env, {
        statement: `SELECT * FROM ${target} LIMIT ${limit ?? 20}`,
        max_rows: limit ?? 20,
      });
      return { full_name, columns: r.columns, rows: r.rows };
    },
  }),
];
