/**
 * Securables another service keeps in Unity Catalog's namespace: mlflow's registered models live in
 * `catalog.schema.model` and are granted as FUNCTIONs (as Databricks grants them), but their records and
 * files are that service's. The store counts them when a schema is dropped without force, drops them with a
 * forced drop of their schema or catalog, moves them with a renamed schema, and resolves their names for
 * grants. No Hono or HTTP types here.
 */
export interface ExternalSecurables {
  /** The securable type grants use for them (`function` for registered models). */
  readonly grantType: string;
  /** The canonical full name of one, or undefined when there is none by that name. */
  fullName(fullName: string): string | undefined;
  /** How many there are under a name prefix (`cat.sch.`). */
  countUnder(prefix: string): number;
  /** Drops every one under a name prefix (a forced drop of their schema or catalog). */
  dropUnder(prefix: string): void;
  /** Moves every one under a name prefix to another (a renamed schema or catalog). */
  rekeyUnder(oldPrefix: string, newPrefix: string): void;
}
