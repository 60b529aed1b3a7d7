/**
 * Grants: stored and reported (with inheritance); enforced with MINILAKE_ENFORCE=1 by privileges.ts, which
 * reads these records. One record per securable, `<type>/<full name>` to principal to privileges.
 */
import { invalidParameter } from '@minilake/core';
import type { UcContext } from './context.js';
import type { PermissionChange } from './records.js';

/** What the grants need from the other securables: the canonical full name of an existing one. */
export interface SecurableLookup {
  schemaFullName(fullName: string): Promise<string>;
  tableFullName(fullName: string): Promise<string>;
  volumeFullName(fullName: string): string;
  functionFullName(fullName: string): string;
  metastore(id: string): void;
}

const SECURABLE_TYPES = new Set([
  'metastore',
  'catalog',
  'schema',
  'table',
  'volume',
  'function',
  'external_location',
  'storage_credential',
  'connection',
  'share',
  'provider',
  'recipient',
  'credential',
]);

const norm = (p: string) => p.toUpperCase().replaceAll(' ', '_');

export class Grants {
  constructor(
    private readonly ctx: UcContext,
    private readonly lookup: SecurableLookup,
  ) {}

  /** Validates the securable and returns its canonical [type, full name]. */
  private async securable(type: string, fullName: string): Promise<[string, string]> {
    const t = type.toLowerCase();
    if (!SECURABLE_TYPES.has(t)) throw invalidParameter(`Unsupported securable type '${type}'.`);
    switch (t) {
      case 'metastore':
        this.lookup.metastore(fullName);
        return [t, fullName];
      case 'catalog':
        return [t, this.ctx.catalogRecord(fullName).name];
      case 'schema':
        return [t, await this.lookup.schemaFullName(fullName)];
      case 'table':
        return [t, await this.lookup.tableFullName(fullName)];
      case 'volume':
        return [t, this.lookup.volumeFullName(fullName)];
      case 'function':
        return [t, this.lookup.functionFullName(fullName)];
      default:
        return [t, fullName];
    }
  }

  private assignments(key: string, principal?: string) {
    const g = this.ctx.c.grants.get(key) ?? {};
    return Object.entries(g)
      .filter(([p, privs]) => privs.length > 0 && (principal === undefined || p === principal))
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([p, privileges]) => ({ principal: p, privileges: [...privileges].sort() }));
  }

  async get(type: string, fullName: string, principal?: string) {
    const [t, full] = await this.securable(type, fullName);
    return { privilege_assignments: this.assignments(`${t}/${full}`, principal) };
  }

  async updateChecked(type: string, fullName: string, changes: PermissionChange[]) {
    const [t, full] = await this.securable(type, fullName);
    this.apply(t, full, changes);
    return { privilege_assignments: this.assignments(`${t}/${full}`) };
  }

  /**
   * Applies a PATCH's changes. Within one change the removals go first, then the additions, as Databricks
   * does. Removing ALL_PRIVILEGES revokes every privilege the principal holds on the securable, so
   * `{"add": ["USE_SCHEMA"], "remove": ["ALL_PRIVILEGES"]}` (what the CLI's direct engine sends to mean
   * "exactly these") leaves USE_SCHEMA alone; a named privilege in both lists is kept; ALL_PRIVILEGES in both
   * is refused ("Duplicate privileges to add and delete", which the CLI's goldens record). Removing a
   * privilege the principal does not hold removes nothing.
   */
  apply(type: string, fullName: string, changes: PermissionChange[]): void {
    const key = `${type.toLowerCase()}/${fullName.toLowerCase()}`;
    const applicable = PRIVILEGES_BY_TYPE[type.toLowerCase()];
    for (const ch of changes) {
      if (!ch.principal || ch.principal.trim() === '')
        throw invalidParameter('A permissions change needs a non-empty principal.');
      const privs = [...(ch.add ?? []), ...(ch.remove ?? [])].map(norm);
      if (
        (ch.add ?? []).map(norm).includes('ALL_PRIVILEGES') &&
        (ch.remove ?? []).map(norm).includes('ALL_PRIVILEGES')
      )
        throw invalidParameter('Duplicate privileges to add and delete');
      const unknown = privs.filter((p) => !PRIVILEGES.has(p));
      if (unknown.length) throw invalidParameter(`Invalid privilege(s): ${unknown.join(', ')}.`);
      const misplaced = applicable ? privs.filter((p) => !applicable.has(p)) : [];
      if (misplaced.length)
        throw invalidParameter(
          `Privilege ${misplaced[0]} is not applicable to this entity (${type.toUpperCase()} '${fullName}').`,
        );
    }
    const g = { ...this.ctx.c.grants.get(key) };
    for (const ch of changes) {
      const removed = (ch.remove ?? []).map(norm);
      const set = new Set(removed.includes('ALL_PRIVILEGES') ? [] : (g[ch.principal] ?? []));
      for (const p of removed) set.delete(p);
      for (const p of ch.add ?? []) set.add(norm(p));
      if (set.size) g[ch.principal] = [...set];
      else delete g[ch.principal];
    }
    if (Object.keys(g).length) this.ctx.c.grants.set(key, g);
    else this.ctx.c.grants.delete(key);
  }

  async getEffective(type: string, fullName: string, principal?: string) {
    const [t, full] = await this.securable(type, fullName);
    const chain: [string, string][] = [['metastore', this.ctx.metastoreId]];
    const parts = full.split('.');
    if (t !== 'metastore') {
      if (['catalog', 'schema', 'table', 'volume', 'function'].includes(t))
        chain.push(['catalog', parts[0]!]);
      if (['schema', 'table', 'volume', 'function'].includes(t))
        chain.push(['schema', `${parts[0]}.${parts[1]}`]);
      if (['table', 'volume', 'function'].includes(t) || !['catalog', 'schema'].includes(t))
        chain.push([t, full]);
    }
    const byPrincipal = new Map<
      string,
      { privilege: string; inherited_from_type?: string; inherited_from_name?: string }[]
    >();
    for (const [ct, cn] of chain) {
      for (const a of this.assignments(`${ct}/${cn}`, principal)) {
        let list = byPrincipal.get(a.principal);
        if (!list) byPrincipal.set(a.principal, (list = []));
        for (const p of a.privileges)
          list.push(
            ct === t && cn === full
              ? { privilege: p }
              : { privilege: p, inherited_from_type: ct.toUpperCase(), inherited_from_name: cn },
          );
      }
    }
    return {
      privilege_assignments: [...byPrincipal.entries()]
        .sort(([a], [b]) => (a < b ? -1 : 1))
        .map(([p, privileges]) => ({ principal: p, privileges })),
    };
  }
}

/** The Privilege enum of the Unity Catalog API (databricks-sdk-go service/catalog). */
const PRIVILEGES = new Set([
  'ACCESS',
  'ALL_PRIVILEGES',
  'APPLY_TAG',
  'BROWSE',
  'CREATE',
  'CREATE_CATALOG',
  'CREATE_CLEAN_ROOM',
  'CREATE_CONNECTION',
  'CREATE_EXTERNAL_LOCATION',
  'CREATE_EXTERNAL_TABLE',
  'CREATE_EXTERNAL_VOLUME',
  'CREATE_FOREIGN_CATALOG',
  'CREATE_FOREIGN_SECURABLE',
  'CREATE_FUNCTION',
  'CREATE_MANAGED_STORAGE',
  'CREATE_MATERIALIZED_VIEW',
  'CREATE_MODEL',
  'CREATE_PROVIDER',
  'CREATE_RECIPIENT',
  'CREATE_SCHEMA',
  'CREATE_SERVICE_CREDENTIAL',
  'CREATE_SHARE',
  'CREATE_STORAGE_CREDENTIAL',
  'CREATE_TABLE',
  'CREATE_VIEW',
  'CREATE_VOLUME',
  'EXECUTE',
  'EXECUTE_CLEAN_ROOM_TASK',
  'EXTERNAL_USE_SCHEMA',
  'MANAGE',
  'MANAGE_ALLOWLIST',
  'MODIFY',
  'MODIFY_CLEAN_ROOM',
  'READ_FILES',
  'READ_PRIVATE_FILES',
  'READ_VOLUME',
  'REFRESH',
  'SELECT',
  'SET_SHARE_PERMISSION',
  'SINGLE_USER_ACCESS',
  'USAGE',
  'USE_CATALOG',
  'USE_CONNECTION',
  'USE_MARKETPLACE_ASSETS',
  'USE_PROVIDER',
  'USE_RECIPIENT',
  'USE_SCHEMA',
  'USE_SHARE',
  'WRITE_FILES',
  'WRITE_PRIVATE_FILES',
  'WRITE_VOLUME',
]);
/** Privileges the securables served here accept (privilege model 1.0); other types check the enum only. */
const SCHEMA_PRIVS = [
  'ALL_PRIVILEGES',
  'APPLY_TAG',
  'CREATE_FUNCTION',
  'CREATE_MATERIALIZED_VIEW',
  'CREATE_MODEL',
  'CREATE_TABLE',
  'CREATE_VIEW',
  'CREATE_VOLUME',
  'EXECUTE',
  'EXTERNAL_USE_SCHEMA',
  'MANAGE',
  'MODIFY',
  'READ_VOLUME',
  'REFRESH',
  'SELECT',
  'USE_SCHEMA',
  'WRITE_VOLUME',
];
const PRIVILEGES_BY_TYPE: Record<string, Set<string>> = {
  metastore: new Set([
    'CREATE_CATALOG',
    'CREATE_CLEAN_ROOM',
    'CREATE_CONNECTION',
    'CREATE_EXTERNAL_LOCATION',
    'CREATE_PROVIDER',
    'CREATE_RECIPIENT',
    'CREATE_SERVICE_CREDENTIAL',
    'CREATE_SHARE',
    'CREATE_STORAGE_CREDENTIAL',
    'MANAGE_ALLOWLIST',
    'SET_SHARE_PERMISSION',
    'USE_MARKETPLACE_ASSETS',
    'USE_PROVIDER',
    'USE_RECIPIENT',
    'USE_SHARE',
  ]),
  catalog: new Set([...SCHEMA_PRIVS, 'BROWSE', 'CREATE_SCHEMA', 'USE_CATALOG']),
  schema: new Set(SCHEMA_PRIVS),
  table: new Set(['ALL_PRIVILEGES', 'APPLY_TAG', 'MANAGE', 'MODIFY', 'REFRESH', 'SELECT']),
  volume: new Set(['ALL_PRIVILEGES', 'APPLY_TAG', 'MANAGE', 'READ_VOLUME', 'WRITE_VOLUME']),
  function: new Set(['ALL_PRIVILEGES', 'APPLY_TAG', 'EXECUTE', 'MANAGE']),
};
