/**
 * Tables that are DuckDB objects in their catalog's database file (MANAGED tables by default, views, and
 * whatever SQL created): the engine scans, appends to and changes them by name, so every data operation here
 * answers undefined. What the format owns is laying such a table down.
 */
import { toDuckDbTypeText } from '@minilake/datatypes';
import { ident, literal, type DuckDbEngine } from '@minilake/engine-duckdb';
import type { TableFormat } from './format.js';
import type { TableColumn } from './descriptor.js';

export class DuckDbFormat implements TableFormat {
  readonly storage = 'duckdb' as const;

  constructor(private readonly engine: DuckDbEngine) {}

  /**
   * CREATE TABLE with its columns' types, NOT NULLs and comments, in one transaction. Throws the engine's
   * error (a concurrent create of the same name loses with DuckDB's conflict); nothing is left behind.
   */
  async create(t: { catalog: string; schema: string; name: string; columns: TableColumn[] }): Promise<void> {
    const ref = `${ident(this.engine.alias(t.catalog))}.${ident(t.schema)}.${ident(t.name)}`;
    const ddl = t.columns
      .map((c) => `${ident(c.name)} ${toDuckDbTypeText(c.type)}${c.nullable === false ? ' NOT NULL' : ''}`)
      .join(', ');
    await this.engine.withConnection(async (conn) => {
      await conn.run('BEGIN TRANSACTION');
      try {
        await conn.run(`CREATE TABLE ${ref} (${ddl})`);
        for (const c of t.columns)
          if (c.comment) await conn.run(`COMMENT ON COLUMN ${ref}.${ident(c.name)} IS ${literal(c.comment)}`);
        await conn.run('COMMIT');
      } catch (e) {
        await conn.run('ROLLBACK').catch(() => undefined);
        throw e;
      }
    });
  }

  async scan() {
    return undefined;
  }
  async append() {
    return undefined;
  }
  writer() {
    return undefined;
  }
  async history() {
    return undefined;
  }
  async detail() {
    return undefined;
  }
  async columns() {
    return undefined;
  }
}
