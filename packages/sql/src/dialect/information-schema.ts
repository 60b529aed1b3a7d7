/**
 * `information_schema` backed by Unity Catalog: `system.information_schema.<view>` (every catalog) and
 * `<catalog>.information_schema.<view>` (that catalog), with Databricks' column names and types. A statement
 * that reads one gets, on its own connection, a temporary table per referenced view filled from Unity
 * Catalog's records (so what the REST API shows and what SQL sees agree), and the rewriter points the
 * reference at it, as it does for Delta snapshots (rewrite.ts). Nothing is written to Unity Catalog: the
 * `system` catalog stays reserved, and the views cannot be written to.
 *
 * With MINILAKE_ENFORCE=1 (the session's `visibility`) the rows are only those of securables the caller may
 * see, by the rule Unity Catalog's REST lists filter by, and of the `*_privileges` views only the grants it
 * may see, as Databricks filters both information schemas; admins see everything.
 *
 * Row filters, column masks and tags are not modelled in MiniLake's Unity Catalog: their views exist with
 * Databricks' columns and no rows, which is what such a workspace answers.
 */
import { sqlTypeName } from '@minilake/datatypes';
import { createHash } from 'node:crypto';
import { ident, literal } from '@minilake/engine-duckdb';
import type {
  CatalogInfo,
  ColumnInfo,
  FunctionInfo,
  SchemaInfo,
  SecurableAudit,
  SecurableKind,
  TableInfo,
  VolumeInfo,
  UnityCatalogStore,
} from '@minilake/unity-catalog';
import type { Session, Visibility } from './session.js';
import { sqlError } from './sql-error.js';

export const INFORMATION_SCHEMA = 'information_schema';

type Value = string | number | boolean | null;
type Row = Record<string, Value>;
/** A view's columns as [name, DuckDB type]: STRING, INT/BIGINT, BOOLEAN, TIMESTAMP (an instant). */
type Columns = [string, 'VARCHAR' | 'INTEGER' | 'BIGINT' | 'BOOLEAN' | 'TIMESTAMPTZ'][];

const S = 'VARCHAR' as const;
const I = 'INTEGER' as const;
const T = 'TIMESTAMPTZ' as const;
const cols = (
  types: 'VARCHAR' | 'INTEGER' | 'BIGINT' | 'BOOLEAN' | 'TIMESTAMPTZ',
  ...names: string[]
): Columns => names.map((n) => [n, types]);

/** What this module reads of Unity Catalog: its store's listings (REST shapes). */
type UcListings = Pick<
  UnityCatalogStore,
  'listCatalogs' | 'listSchemas' | 'listTables' | 'listFunctions' | 'listVolumes' | 'getPermissions'
>;
/**
 * Everything a view is built from, read once per statement (and only the parts a view needs): with a
 * `visibility`, only the securables (and grants) the caller may see; `catalogs` arrive filtered so.
 */
class Snapshot {
  private schemasP?: Promise<SchemaInfo[]>;
  private tablesP?: Promise<TableInfo[]>;
  constructor(
    readonly uc: UcListings,
    readonly catalogs: CatalogInfo[],
    private readonly vis: Visibility | undefined,
  ) {}
  /** The items the caller may see (all without a visibility). */
  private seen<X>(on: SecurableKind, items: X[], full: (x: X) => string): X[] {
    const vis = this.vis;
    return vis ? items.filter((x) => vis.sees(on, full(x))) : items;
  }
  schemas(): Promise<SchemaInfo[]> {
    this.schemasP ??= (async () => {
      const out: SchemaInfo[] = [];
      for (const c of this.catalogs) out.push(...(await this.uc.listSchemas(c.name)));
      return this.seen('schema', out, (x) => `${x.catalog_name}.${x.name}`);
    })();
    return this.schemasP;
  }
  tables(): Promise<TableInfo[]> {
    this.tablesP ??= (async () => {
      const out: TableInfo[] = [];
      for (const s of await this.schemas())
        for (const t of await this.uc.listTables(s.catalog_name, s.name))
          out.push(JSON.parse(t.json) as TableInfo);
      return this.seen('table', out, tableKey);
    })();
    return this.tablesP;
  }
  async functions(): Promise<FunctionInfo[]> {
    const out: FunctionInfo[] = [];
    for (const s of await this.schemas()) out.push(...(await this.uc.listFunctions(s.catalog_name, s.name)));
    return this.seen('function', out, tableKey);
  }
  async volumes(): Promise<VolumeInfo[]> {
    const out: VolumeInfo[] = [];
    for (const s of await this.schemas()) out.push(...(await this.uc.listVolumes(s.catalog_name, s.name)));
    return this.seen('volume', out, tableKey);
  }
  async grants(type: SecurableKind, full: string): Promise<{ principal: string; privilege: string }[]> {
    const p = await this.uc.getPermissions(type, full).catch(() => ({ privilege_assignments: [] }));
    const vis = this.vis;
    return (p.privilege_assignments ?? [])
      .filter((a) => !vis || vis.seesGrant(type, full, a.principal))
      .flatMap((a) => a.privileges.map((privilege) => ({ principal: a.principal, privilege })));
  }
}

const ts = (ms: number | undefined): string | null =>
  typeof ms === 'number' ? new Date(ms).toISOString() : null;

const created = (r: SecurableAudit): Row => ({
  created: ts(r.created_at),
  created_by: r.created_by ?? null,
  last_altered: ts(r.updated_at ?? r.created_at),
  last_altered_by: r.updated_by ?? r.created_by ?? null,
});

const AUDIT = cols(T, 'created').concat(
  cols(S, 'created_by'),
  cols(T, 'last_altered'),
  cols(S, 'last_altered_by'),
);

const INTEGRAL_BITS: Record<string, number> = { BYTE: 8, SHORT: 16, INT: 32, LONG: 64 };

/** The numeric/datetime facets of a column type (Databricks' COLUMNS and ROUTINES columns). */
function facets(typeName: string, precision?: number, scale?: number): Row {
  const t = typeName.toUpperCase();
  const bits = INTEGRAL_BITS[t] ?? (t === 'FLOAT' ? 24 : t === 'DOUBLE' ? 53 : undefined);
  return {
    character_maximum_length: null,
    character_octet_length: null,
    numeric_precision: t === 'DECIMAL' ? (precision ?? 10) : (bits ?? null),
    numeric_precision_radix: t === 'DECIMAL' ? 10 : bits !== undefined ? 2 : null,
    numeric_scale: t === 'DECIMAL' ? (scale ?? 0) : INTEGRAL_BITS[t] !== undefined ? 0 : null,
    datetime_precision: t === 'DATE' ? 0 : t.startsWith('TIMESTAMP') ? 6 : null,
    interval_type: null,
    interval_precision: null,
    maximum_cardinality: null,
  };
}
const FACETS = cols(
  I,
  'character_maximum_length',
  'character_octet_length',
  'numeric_precision',
  'numeric_precision_radix',
  'numeric_scale',
  'datetime_precision',
).concat(cols(S, 'interval_type'), cols(I, 'interval_precision', 'maximum_cardinality'));

/** COLUMNS.DATA_TYPE: the SQL type name of Unity Catalog's type_name (INT, LONG, ...). */
const dataType = (c: ColumnInfo): string => sqlTypeName(c.type_name ?? c.type_text ?? 'STRING');

interface View {
  columns: Columns;
  rows(s: Snapshot): Promise<Row[]>;
}

const tableKey = (t: { catalog_name: string; schema_name: string; name: string }) =>
  `${t.catalog_name}.${t.schema_name}.${t.name}`;

/**
 * A `*_privileges` view: one row per grant on each securable `list` yields; `at` names the securable
 * (its type and full name for the grants lookup, and its columns in the view, which follow `grantee`).
 */
function privilegesView<X extends SecurableAudit>(
  names: string[],
  list: (s: Snapshot) => X[] | Promise<X[]>,
  at: (x: X) => [type: SecurableKind, fullName: string, columns: Row],
): View {
  return {
    columns: cols(S, 'grantor', 'grantee', ...names, 'privilege_type', 'is_grantable', 'inherited_from'),
    rows: async (s) => {
      const out: Row[] = [];
      for (const x of await list(s)) {
        const [type, full, columns] = at(x);
        for (const g of await s.grants(type, full))
          out.push({
            grantor: x.owner ?? null,
            grantee: g.principal,
            ...columns,
            privilege_type: g.privilege,
            is_grantable: 'NO',
            inherited_from: 'NONE',
          });
      }
      return out;
    },
  };
}

/** The columns naming a constraint and its table, first in table_constraints and key_column_usage. */
const CONSTRAINT_COLUMNS = [
  'constraint_catalog',
  'constraint_schema',
  'constraint_name',
  'table_catalog',
  'table_schema',
  'table_name',
] as const;

/** Every primary or foreign key constraint of the tables, with its CONSTRAINT_COLUMNS values. */
function constraints(tables: TableInfo[]) {
  return tables.flatMap((t) =>
    (t.table_constraints ?? []).flatMap((c) => {
      const k = c.primary_key_constraint ?? c.foreign_key_constraint;
      if (!k) return [];
      const at = {
        constraint_catalog: t.catalog_name,
        constraint_schema: t.schema_name,
        constraint_name: k.name,
        table_catalog: t.catalog_name,
        table_schema: t.schema_name,
        table_name: t.name,
      } satisfies Record<(typeof CONSTRAINT_COLUMNS)[number], string>;
      return [{ t, c, k, at }];
    }),
  );
}

const VIEWS: Record<string, View> = {
  information_schema_catalog_name: {
    columns: cols(S, 'catalog_name'),
    rows: async (s) => s.catalogs.map((c) => ({ catalog_name: c.name })),
  },
  catalogs: {
    columns: cols(S, 'catalog_name', 'catalog_owner', 'comment').concat(AUDIT),
    rows: async (s) =>
      s.catalogs.map((c) => ({
        catalog_name: c.name,
        catalog_owner: c.owner ?? null,
        comment: c.comment ?? null,
        ...created(c),
      })),
  },
  schemata: {
    columns: cols(S, 'catalog_name', 'schema_name', 'schema_owner', 'comment').concat(AUDIT),
    rows: async (s) => {
      const own = (await s.schemas()).map((x) => ({
        catalog_name: x.catalog_name,
        schema_name: x.name,
        schema_owner: x.owner ?? null,
        comment: x.comment ?? null,
        ...created(x),
      }));
      // Every catalog has its information_schema (Databricks lists it).
      const info = s.catalogs.map((c) => ({
        catalog_name: c.name,
        schema_name: INFORMATION_SCHEMA,
        schema_owner: 'System user',
        comment: 'Information schema (auto-created)',
        created: null,
        created_by: null,
        last_altered: null,
        last_altered_by: null,
      }));
      return [...own, ...info];
    },
  },
  tables: {
    columns: cols(
      S,
      'table_catalog',
      'table_schema',
      'table_name',
      'table_type',
      'is_insertable_into',
      'commit_action',
      'table_owner',
      'comment',
    ).concat(AUDIT, cols(S, 'data_source_format', 'storage_sub_directory', 'storage_path')),
    rows: async (s) =>
      (await s.tables()).map((t) => ({
        table_catalog: t.catalog_name,
        table_schema: t.schema_name,
        table_name: t.name,
        table_type: t.table_type ?? 'MANAGED',
        is_insertable_into: t.table_type === 'VIEW' ? 'NO' : 'YES',
        commit_action: 'PRESERVE',
        table_owner: t.owner ?? null,
        comment: t.comment ?? null,
        ...created(t),
        data_source_format: t.data_source_format ?? null,
        storage_sub_directory: null,
        storage_path: t.storage_location ?? null,
      })),
  },
  views: {
    columns: cols(
      S,
      'table_catalog',
      'table_schema',
      'table_name',
      'view_definition',
      'check_option',
      'is_updatable',
      'is_insertable_into',
      'sql_path',
      'is_materialized',
    ),
    rows: async (s) =>
      (await s.tables())
        .filter((t) => t.table_type === 'VIEW' || t.table_type === 'MATERIALIZED_VIEW')
        .map((t) => ({
          table_catalog: t.catalog_name,
          table_schema: t.schema_name,
          table_name: t.name,
          view_definition: t.view_definition ?? null,
          check_option: 'NONE',
          is_updatable: 'NO',
          is_insertable_into: 'NO',
          sql_path: null,
          is_materialized: t.table_type === 'MATERIALIZED_VIEW' ? 'TRUE' : 'FALSE',
        })),
  },
  columns: {
    columns: cols(S, 'table_catalog', 'table_schema', 'table_name', 'column_name').concat(
      cols(I, 'ordinal_position'),
      cols(S, 'column_default', 'is_nullable', 'full_data_type', 'data_type'),
      FACETS,
      cols(
        S,
        'is_identity',
        'identity_generation',
        'identity_start',
        'identity_increment',
        'identity_maximum',
        'identity_minimum',
        'identity_cycle',
        'is_generated',
        'generation_expression',
        'is_system_time_period_start',
        'is_system_time_period_end',
        'system_time_period_timestamp_generation',
        'is_updatable',
      ),
      cols(I, 'partition_index'),
      cols(S, 'comment'),
    ),
    rows: async (s) =>
      (await s.tables()).flatMap((t) =>
        (t.columns ?? []).map((c, i) => ({
          table_catalog: t.catalog_name,
          table_schema: t.schema_name,
          table_name: t.name,
          column_name: c.name,
          // Databricks numbers columns from 0 here, as Unity Catalog's `position` does.
          ordinal_position: c.position ?? i,
          column_default: null,
          is_nullable: c.nullable === false ? 'NO' : 'YES',
          full_data_type: c.type_text ?? dataType(c).toLowerCase(),
          data_type: dataType(c),
          ...facets(dataType(c) === 'BIGINT' ? 'LONG' : (c.type_name ?? ''), c.type_precision, c.type_scale),
          is_identity: 'NO',
          identity_generation: null,
          identity_start: null,
          identity_increment: null,
          identity_maximum: null,
          identity_minimum: null,
          identity_cycle: null,
          is_generated: 'NO',
          generation_expression: null,
          is_system_time_period_start: 'NO',
          is_system_time_period_end: 'NO',
          system_time_period_timestamp_generation: null,
          is_updatable: t.table_type === 'VIEW' ? 'NO' : 'YES',
          partition_index: c.partition_index ?? null,
          comment: c.comment ?? null,
        })),
      ),
  },
  routines: {
    columns: cols(
      S,
      'specific_catalog',
      'specific_schema',
      'specific_name',
      'routine_catalog',
      'routine_schema',
      'routine_name',
      'routine_owner',
      'routine_type',
      'data_type',
      'full_data_type',
    ).concat(
      FACETS,
      cols(
        S,
        'routine_body',
        'routine_definition',
        'external_name',
        'external_language',
        'parameter_style',
        'is_deterministic',
        'sql_data_access',
        'is_null_call',
        'sql_path',
        'security_type',
        'as_locator',
        'comment',
      ),
      AUDIT,
    ),
    rows: async (s) =>
      (await s.functions()).map((f) => ({
        specific_catalog: f.catalog_name,
        specific_schema: f.schema_name,
        specific_name: f.specific_name ?? f.name,
        routine_catalog: f.catalog_name,
        routine_schema: f.schema_name,
        routine_name: f.name,
        routine_owner: f.owner ?? null,
        routine_type: 'FUNCTION',
        data_type: f.data_type ?? null,
        full_data_type: f.full_data_type ?? null,
        ...facets(f.data_type ?? ''),
        routine_body: f.routine_body ?? null,
        routine_definition: f.routine_definition ?? null,
        external_name: null,
        external_language: f.external_language ?? null,
        parameter_style: 'S',
        is_deterministic: f.is_deterministic === false ? 'NO' : 'YES',
        sql_data_access: f.sql_data_access ?? 'CONTAINS_SQL',
        is_null_call: f.is_null_call ? 'YES' : 'NO',
        sql_path: null,
        security_type: f.security_type ?? 'DEFINER',
        as_locator: 'NO',
        comment: f.comment ?? null,
        ...created(f),
      })),
  },
  parameters: {
    columns: cols(S, 'specific_catalog', 'specific_schema', 'specific_name').concat(
      cols(I, 'ordinal_position'),
      cols(S, 'parameter_mode', 'is_result', 'as_locator', 'parameter_name', 'data_type', 'full_data_type'),
      FACETS,
      cols(S, 'parameter_default', 'comment'),
    ),
    rows: async (s) =>
      (await s.functions()).flatMap((f) =>
        (f.input_params?.parameters ?? []).map((p, i) => {
          const full = p.type_text ?? 'string';
          const name = full.replace(/\(.*$/, '').replace(/<.*$/, '').toUpperCase();
          return {
            specific_catalog: f.catalog_name,
            specific_schema: f.schema_name,
            specific_name: f.specific_name ?? f.name,
            ordinal_position: p.position ?? i,
            parameter_mode: 'IN',
            is_result: 'NO',
            as_locator: 'NO',
            parameter_name: p.name,
            data_type: name,
            full_data_type: full,
            ...facets(name === 'BIGINT' ? 'LONG' : name === 'SMALLINT' ? 'SHORT' : name),
            parameter_default: null,
            comment: p.comment ?? null,
          };
        }),
      ),
  },
  volumes: {
    columns: cols(
      S,
      'volume_catalog',
      'volume_schema',
      'volume_name',
      'volume_type',
      'volume_owner',
      'comment',
      'storage_location',
    ).concat(AUDIT),
    rows: async (s) =>
      (await s.volumes()).map((v) => ({
        volume_catalog: v.catalog_name,
        volume_schema: v.schema_name,
        volume_name: v.name,
        volume_type: v.volume_type ?? 'MANAGED',
        volume_owner: v.owner ?? null,
        comment: v.comment ?? null,
        storage_location: v.storage_location ?? null,
        ...created(v),
      })),
  },
  catalog_privileges: privilegesView(
    ['catalog_name'],
    (s) => s.catalogs,
    (c) => ['catalog', c.name, { catalog_name: c.name }],
  ),
  schema_privileges: privilegesView(
    ['catalog_name', 'schema_name'],
    (s) => s.schemas(),
    (x) => ['schema', `${x.catalog_name}.${x.name}`, { catalog_name: x.catalog_name, schema_name: x.name }],
  ),
  table_privileges: privilegesView(
    ['table_catalog', 'table_schema', 'table_name'],
    (s) => s.tables(),
    (t) => [
      'table',
      tableKey(t),
      { table_catalog: t.catalog_name, table_schema: t.schema_name, table_name: t.name },
    ],
  ),
  table_constraints: {
    columns: cols(
      S,
      ...CONSTRAINT_COLUMNS,
      'constraint_type',
      'is_deferrable',
      'initially_deferred',
      'enforced',
      'comment',
    ),
    rows: async (s) =>
      constraints(await s.tables()).map(({ at, c }) => ({
        ...at,
        constraint_type: c.primary_key_constraint ? 'PRIMARY KEY' : 'FOREIGN KEY',
        is_deferrable: 'YES',
        initially_deferred: 'YES',
        enforced: 'NO',
        comment: null,
      })),
  },
  key_column_usage: {
    columns: cols(S, ...CONSTRAINT_COLUMNS, 'column_name').concat(
      cols(I, 'ordinal_position', 'position_in_unique_constraint'),
    ),
    rows: async (s) =>
      constraints(await s.tables()).flatMap(({ at, c, k }) =>
        k.child_columns.map((col, i) => ({
          ...at,
          column_name: col,
          ordinal_position: i,
          position_in_unique_constraint: c.foreign_key_constraint ? i : null,
        })),
      ),
  },
  referential_constraints: {
    columns: cols(
      S,
      'constraint_catalog',
      'constraint_schema',
      'constraint_name',
      'unique_constraint_catalog',
      'unique_constraint_schema',
      'unique_constraint_name',
      'match_option',
      'update_rule',
      'delete_rule',
    ),
    rows: async (s) => {
      const all = constraints(await s.tables());
      const pk = new Map<string, string>();
      for (const { t, c } of all)
        if (c.primary_key_constraint) pk.set(tableKey(t).toLowerCase(), c.primary_key_constraint.name);
      return all.flatMap(({ at, c }) => {
        const fk = c.foreign_key_constraint;
        if (!fk) return [];
        const [pc = null, ps = null] = fk.parent_table.split('.');
        return [
          {
            constraint_catalog: at.constraint_catalog,
            constraint_schema: at.constraint_schema,
            constraint_name: at.constraint_name,
            unique_constraint_catalog: pc,
            unique_constraint_schema: ps,
            unique_constraint_name: pk.get(fk.parent_table.toLowerCase()) ?? null,
            match_option: 'FULL',
            update_rule: 'NO ACTION',
            delete_rule: 'NO ACTION',
          },
        ];
      });
    },
  },
  // Not modelled in MiniLake's Unity Catalog: Databricks' columns, no rows.
  row_filters: {
    columns: cols(
      S,
      'table_catalog',
      'table_schema',
      'table_name',
      'filter_catalog',
      'filter_schema',
      'filter_name',
      'target_columns',
    ),
    rows: async () => [],
  },
  column_masks: {
    columns: cols(
      S,
      'table_catalog',
      'table_schema',
      'table_name',
      'column_name',
      'mask_catalog',
      'mask_schema',
      'mask_name',
      'using_columns',
    ),
    rows: async () => [],
  },
  catalog_tags: { columns: cols(S, 'catalog_name', 'tag_name', 'tag_value'), rows: async () => [] },
  schema_tags: {
    columns: cols(S, 'catalog_name', 'schema_name', 'tag_name', 'tag_value'),
    rows: async () => [],
  },
  table_tags: {
    columns: cols(S, 'catalog_name', 'schema_name', 'table_name', 'tag_name', 'tag_value'),
    rows: async () => [],
  },
  column_tags: {
    columns: cols(S, 'catalog_name', 'schema_name', 'table_name', 'column_name', 'tag_name', 'tag_value'),
    rows: async () => [],
  },
  volume_tags: {
    columns: cols(S, 'catalog_name', 'schema_name', 'volume_name', 'tag_name', 'tag_value'),
    rows: async () => [],
  },
};

/** The catalog column(s) a view is scoped by under `<catalog>.information_schema`. */
const SCOPE: Record<string, string> = {
  information_schema_catalog_name: 'catalog_name',
  catalogs: 'catalog_name',
  schemata: 'catalog_name',
  tables: 'table_catalog',
  views: 'table_catalog',
  columns: 'table_catalog',
  routines: 'specific_catalog',
  parameters: 'specific_catalog',
  volumes: 'volume_catalog',
  catalog_privileges: 'catalog_name',
  schema_privileges: 'catalog_name',
  table_privileges: 'table_catalog',
  table_constraints: 'table_catalog',
  key_column_usage: 'table_catalog',
  referential_constraints: 'constraint_catalog',
};

/** `catalog.information_schema.view` keys among a statement's table references. */
export function isInformationSchemaKey(key: string): boolean {
  return key.split('.')[1] === INFORMATION_SCHEMA;
}

function listings(s: Session): UcListings | undefined {
  return s.uc?.store;
}

/**
 * For each `catalog.information_schema.view` the statement reads: a temporary table on the statement's
 * connection holding the view's rows now, keyed like the rewriter's snapshot views (reference -> table name).
 */
export async function informationSchemaTables(tables: string[], s: Session): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const keys = tables.filter(isInformationSchemaKey);
  if (keys.length === 0) return out;
  const uc = listings(s);
  if (!uc) return out;
  const vis = s.visibility;
  const every = uc.listCatalogs();
  const all = vis ? every.filter((c) => vis.sees('catalog', c.name)) : every;
  for (const key of keys) {
    const [catalog, , name] = key.split('.') as [string, string, string];
    const view = Object.hasOwn(VIEWS, name) ? VIEWS[name] : undefined;
    if (!view)
      throw sqlError(
        'TABLE_OR_VIEW_NOT_FOUND',
        '42P01',
        `The table or view \`${catalog}\`.\`${INFORMATION_SCHEMA}\`.\`${name}\` cannot be found. Verify the spelling and correctness of the schema and catalog.`,
      );
    let catalogs = all;
    if (catalog !== 'system') {
      if (!every.some((c) => c.name.toLowerCase() === catalog))
        throw sqlError('NO_SUCH_CATALOG_EXCEPTION', '42704', `Catalog '${catalog}' was not found.`);
      // A catalog the caller may not see has an information schema with no rows for it.
      catalogs = all.filter((c) => c.name.toLowerCase() === catalog);
    }
    let rows = await view.rows(new Snapshot(uc, catalogs, vis));
    const scope = SCOPE[name];
    if (scope && catalog !== 'system') rows = rows.filter((r) => String(r[scope]).toLowerCase() === catalog);
    const table = `__ml_info_${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
    await fill(s, table, view.columns, rows);
    out.set(key, table);
  }
  return out;
}

/** (Re)creates the temporary table and loads the rows as one bound JSON value, never spliced into SQL. */
async function fill(s: Session, table: string, columns: Columns, rows: Row[]): Promise<void> {
  const defs = columns.map(([n, t]) => `${ident(n)} ${t}`).join(', ');
  await s.conn.run(`CREATE OR REPLACE TEMP TABLE ${ident(table)} (${defs})`);
  if (rows.length === 0) return;
  const structure = literal(JSON.stringify([Object.fromEntries(columns)]));
  const names = columns.map(([n]) => ident(n)).join(', ');
  const picks = columns.map(([n]) => `r.${ident(n)}`).join(', ');
  await s.conn.run(
    `INSERT INTO ${ident(table)} (${names}) SELECT ${picks} FROM (SELECT unnest(from_json($rows::JSON, ${structure})) AS r)`,
    { rows: JSON.stringify(rows) },
  );
}

/** Writing to an information_schema view (or anything in `system`): refused as Databricks refuses it. */
export function refuseWrite(target: string | undefined, kind = 'INSERT'): void {
  if (target === undefined) return;
  const [catalog, schema] = target.split('.');
  if (schema === INFORMATION_SCHEMA || catalog === 'system')
    throw sqlError(
      'EXPECT_TABLE_NOT_VIEW.NO_ALTERNATIVE',
      '42809',
      `'${kind}' expects a table but \`${target.split('.').join('`.`')}\` is a view.`,
    );
}
