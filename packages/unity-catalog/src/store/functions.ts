/** SQL functions: a DuckDB macro in the schema, plus the FunctionInfo as given (the engine cannot hold it). */
import { databricksToDuckDbType, databricksTypeInfo } from '@minilake/datatypes';
import { invalidParameter, uuid } from '@minilake/core';
import { ident } from '@minilake/engine-duckdb';
import { engineRejected, functionExists, functionNotFound } from '../errors.js';
import { checkName } from '../names.js';
import type { FunctionInput } from '../schemas.js';
import type { UcContext } from './context.js';
import type { EngineView } from './engine-view.js';
import { clean, declaredType, type FunctionRecord } from './records.js';
import type { Schemas } from './schemas.js';

export class Functions {
  constructor(
    private readonly ctx: UcContext,
    private readonly view: EngineView,
    private readonly schemas: Schemas,
  ) {}

  out(r: FunctionRecord) {
    return clean({
      ...r.info,
      name: r.name,
      catalog_name: r.catalog_name,
      schema_name: r.schema_name,
      full_name: `${r.catalog_name}.${r.schema_name}.${r.name}`,
      function_id: r.function_id,
      owner: r.owner,
      metastore_id: this.ctx.metastoreId,
      created_at: r.created_at,
      created_by: r.created_by,
      updated_at: r.updated_at,
      updated_by: r.updated_by,
    });
  }

  private record(fullName: string): FunctionRecord {
    return this.ctx.objectRecord(this.ctx.c.functions, fullName, 'function', functionNotFound);
  }

  async create(fi: FunctionInput) {
    const { catalog: c, schema: s, engineName } = await this.schemas.resolve(fi.catalog_name, fi.schema_name);
    const n = checkName('function', fi.name);
    const full = `${c}.${s}.${n}`;
    if (this.ctx.c.functions.has(full)) throw functionExists(full);
    const params = [...(fi.input_params?.parameters ?? [])].sort(
      (a, b) => (a.position ?? 0) - (b.position ?? 0),
    );
    const inParams = params.map((p, i) => {
      const node = declaredType(p);
      const t = databricksTypeInfo(node, { name: p.name });
      return clean({
        ...p,
        type_text: t.type_text,
        type_name: t.type_name,
        type_json: p.type_json ?? t.type_json,
        position: p.position ?? i,
      });
    });
    const isTable =
      (fi.data_type ?? '').toUpperCase() === 'TABLE_TYPE' || (fi.return_params?.parameters?.length ?? 0) > 0;
    const body = (fi.routine_body ?? 'SQL').toUpperCase();
    let macro: FunctionRecord['macro'];
    if (body === 'SQL') {
      const def = (fi.routine_definition ?? '').trim();
      if (!def) throw invalidParameter('routine_definition is required for a SQL function.');
      const ref = `${this.ctx.alias(c)}.${ident(engineName)}.${ident(n)}`;
      const args = inParams.map((p) => ident(p.name)).join(', ');
      let sql: string;
      if (isTable) {
        sql = `CREATE MACRO ${ref}(${args}) AS TABLE ${def}`;
        macro = 'table';
      } else {
        const ret = fi.full_data_type ?? fi.data_type;
        let cast = '';
        if (ret) {
          try {
            cast = databricksToDuckDbType(ret);
          } catch {
            cast = '';
          }
        }
        sql = cast
          ? `CREATE MACRO ${ref}(${args}) AS CAST((${def}) AS ${cast})`
          : `CREATE MACRO ${ref}(${args}) AS (${def})`;
        macro = 'scalar';
      }
      try {
        // Prepared: the definition is the caller's SQL, and a second statement smuggled into it is refused.
        await this.ctx.engine.runSingle(sql);
      } catch (e) {
        throw engineRejected('Cannot create the function', e);
      }
      this.ctx.engine.notifyChange({ catalog: c, schema: engineName });
    }
    const info: Record<string, unknown> = clean({
      ...fi,
      name: n,
      catalog_name: c,
      schema_name: s,
      input_params: { parameters: inParams },
      data_type: fi.data_type ?? (isTable ? 'TABLE_TYPE' : undefined),
      routine_body: body,
      parameter_style: fi.parameter_style ?? 'S',
      is_deterministic: fi.is_deterministic ?? true,
      sql_data_access: fi.sql_data_access ?? 'CONTAINS_SQL',
      is_null_call: fi.is_null_call ?? false,
      security_type: fi.security_type ?? 'DEFINER',
      specific_name: fi.specific_name ?? n,
    });
    const r = this.ctx.c.functions.set(
      full,
      clean({
        function_id: uuid(),
        info,
        catalog_name: c,
        schema_name: s,
        name: n,
        macro,
        ...this.ctx.audit(),
      }),
    );
    return this.out(r);
  }

  get(fullName: string) {
    return this.out(this.record(fullName));
  }

  async list(catalog: string, schema: string) {
    const { catalog: c, schema: s } = await this.schemas.resolve(catalog, schema);
    return this.ctx.recordsUnder(this.ctx.c.functions, `${c}.${s}.`).map((r) => this.out(r));
  }

  update(fullName: string, u: { owner?: string | null }) {
    const r = this.record(fullName);
    const changed = this.ctx.c.functions.update(`${r.catalog_name}.${r.schema_name}.${r.name}`, (x) => {
      if (u.owner) x.owner = u.owner;
      this.ctx.touch(x);
    })!;
    return this.out(changed);
  }

  async delete(fullName: string): Promise<void> {
    const r = this.record(fullName);
    if (r.macro) {
      await this.view.settled();
      const engineSchema = (await this.view.engineSchema(r.catalog_name, r.schema_name)) ?? r.schema_name;
      await this.ctx.engine.runRetryingConflicts(
        `DROP MACRO ${r.macro === 'table' ? 'TABLE ' : ''}IF EXISTS ${this.ctx.alias(r.catalog_name)}.${ident(engineSchema)}.${ident(r.name)}`,
      );
      this.ctx.engine.notifyChange({ catalog: r.catalog_name, schema: engineSchema });
    }
    const full = `${r.catalog_name}.${r.schema_name}.${r.name}`;
    this.ctx.c.functions.delete(full);
    this.ctx.dropRecordsUnder(`${full}.`, full);
  }
}
