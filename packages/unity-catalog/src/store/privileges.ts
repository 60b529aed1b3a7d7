/**
 * MINILAKE_ENFORCE=1: the one place Unity Catalog privileges are evaluated. REST handlers, the SQL layer and
 * the Files API ask `missing(who, need)` (or `require`, which throws Databricks' 403) with what the operation
 * needs; nothing here knows HTTP or SQL. The rules, as Databricks documents them per operation:
 *
 * - Everything below a catalog needs USE CATALOG on it, everything below a schema USE SCHEMA (on the schema
 *   or its catalog); then the operation's own privilege, on the securable or inherited from its schema or
 *   catalog: SELECT / MODIFY (tables), READ VOLUME / WRITE VOLUME, EXECUTE (functions), CREATE TABLE /
 *   CREATE VOLUME / CREATE FUNCTION (schema), CREATE SCHEMA (catalog), CREATE CATALOG (metastore).
 * - ALL PRIVILEGES covers every privilege but MANAGE (as on Databricks); a grant counts when made to the
 *   principal, one of its groups (nested groups arrive flattened) or `account users`.
 * - Workspace admins (`admins`) pass everything (MiniLake's metastore admin). The owner of a securable holds
 *   every privilege on it and below it, so a catalog's owner passes for anything in it.
 * - Ownership-only operations (DROP, ALTER, changing an owner) need ownership or MANAGE; granting and revoking
 *   need ownership or MANAGE too, both inherited from the parents like any privilege.
 * - Seeing a securable (GET, whether a list, SQL's SHOW or information_schema shows it): its own "use"
 *   privilege (USE CATALOG, USE SCHEMA, SELECT, READ VOLUME, EXECUTE), ownership or BROWSE on the catalog,
 *   after the parents' USE privileges.
 */
import { DatabricksError } from '@minilake/core';
import type { UcContext } from './context.js';

/** Who asks: a user's userName or a service principal's applicationId, and its groups (flattened). */
export interface Caller {
  userName: string;
  groups: readonly string[];
}

/** What an operation needs. */
export type Need =
  | { on: 'table'; fullName: string; privilege: 'SELECT' | 'MODIFY' }
  | { on: 'volume'; fullName: string; privilege: 'READ_VOLUME' | 'WRITE_VOLUME' }
  | { on: 'function'; fullName: string; privilege: 'EXECUTE' }
  | { on: 'schema'; fullName: string; privilege: 'CREATE_TABLE' | 'CREATE_VOLUME' | 'CREATE_FUNCTION' }
  | { on: 'catalog'; fullName: string; privilege: 'CREATE_SCHEMA' }
  /** CREATE CATALOG; MANAGE: grants on the metastore (and securables not served here), admins only. */
  | { on: 'metastore'; privilege: 'CREATE_CATALOG' | 'MANAGE' }
  /** DROP, ALTER, owner changes: ownership (or MANAGE). */
  | { on: SecurableKind; fullName: string; privilege: 'OWNER' }
  /** GRANT / REVOKE, the permissions PATCH: ownership or MANAGE. */
  | { on: SecurableKind; fullName: string; privilege: 'MANAGE' }
  /** GET and lists: may the caller see it. */
  | { on: SecurableKind; fullName: string; privilege: 'BROWSE' };

export type SecurableKind = 'catalog' | 'schema' | 'table' | 'volume' | 'function';

/** What is missing, as Databricks' messages name it (`USE CATALOG` on `Catalog 'main'`). */
export interface Missing {
  privilege: string;
  securableType: string;
  fullName: string;
  /** Ownership was required: the message is "User is not an owner of ...". */
  ownership?: boolean;
}

const TYPE_NAME: Record<string, string> = {
  metastore: 'Metastore',
  catalog: 'Catalog',
  schema: 'Schema',
  table: 'Table',
  volume: 'Volume',
  function: 'Function',
};
/** The privilege that lets a caller see a securable (GET, lists). */
const SEE: Record<SecurableKind, string> = {
  catalog: 'USE_CATALOG',
  schema: 'USE_SCHEMA',
  table: 'SELECT',
  volume: 'READ_VOLUME',
  function: 'EXECUTE',
};

const spoken = (p: string) => p.replaceAll('_', ' ');

export class Privileges {
  constructor(private readonly ctx: UcContext) {}

  /** The first thing `who` lacks for `need`; undefined when it may go ahead. */
  missing(who: Caller, need: Need): Missing | undefined {
    if (who.groups.includes('admins')) return undefined;
    const names = [who.userName, ...who.groups, 'account users'];
    const holds = (type: string, full: string, p: string) => {
      const g = this.ctx.c.grants.get(`${type}/${full}`);
      if (!g) return false;
      return names.some((n) =>
        (g[n] ?? []).some((x) => x === p || (x === 'ALL_PRIVILEGES' && p !== 'MANAGE')),
      );
    };
    if (need.on === 'metastore') {
      return need.privilege === 'CREATE_CATALOG' && holds('metastore', this.ctx.metastoreId, need.privilege)
        ? undefined
        : { privilege: spoken(need.privilege), securableType: 'Metastore', fullName: 'minilake' };
    }
    const full = need.fullName.toLowerCase();
    const parts = full.split('.');
    const catalog = parts[0]!;
    const schema = parts.length >= 2 ? `${catalog}.${parts[1]}` : undefined;
    // The chain from the catalog down to the securable: [type, full name, owner].
    const chain: [string, string, string | undefined][] = [
      ['catalog', catalog, this.ctx.c.catalogs.get(catalog)?.owner],
    ];
    if (schema && need.on !== 'catalog')
      chain.push(['schema', schema, this.ctx.c.schemas.get(schema)?.owner]);
    if (need.on === 'table' || need.on === 'volume' || need.on === 'function')
      chain.push([need.on, full, this.ownerOf(need.on, full)]);
    const self = chain.length - 1;
    // The catalog's owner holds everything in it; the owner of a schema or an object below still needs the
    // USE privileges of the parents above what it owns (Databricks' rule for GET and DROP alike).
    const ownedAt = chain.findIndex(([, , o]) => o !== undefined && o === who.userName);
    if (ownedAt === 0) return undefined;
    const inherited = (p: string) => chain.some(([t, n]) => holds(t, n, p));
    // The parents' USE privileges; a CREATE on a catalog or schema needs that securable's own USE as well.
    const creates = need.privilege.startsWith('CREATE_');
    let useUpTo = creates ? self : self - 1;
    if (ownedAt > 0) useUpTo = Math.min(useUpTo, ownedAt - 1);
    if (useUpTo >= 0 && !holds('catalog', catalog, 'USE_CATALOG'))
      return { privilege: 'USE CATALOG', securableType: 'Catalog', fullName: catalog };
    if (
      useUpTo >= 1 &&
      schema &&
      !holds('schema', schema, 'USE_SCHEMA') &&
      !holds('catalog', catalog, 'USE_SCHEMA')
    )
      return { privilege: 'USE SCHEMA', securableType: 'Schema', fullName: schema };
    if (ownedAt > 0) return undefined;
    const [type, name] = chain[self]!;
    const securableType = TYPE_NAME[type]!;
    switch (need.privilege) {
      case 'OWNER':
        return inherited('MANAGE')
          ? undefined
          : { privilege: 'OWNER', securableType, fullName: name, ownership: true };
      case 'BROWSE': {
        const see = SEE[need.on];
        if (inherited(see) || holds('catalog', catalog, 'BROWSE')) return undefined;
        return { privilege: spoken(see), securableType, fullName: name };
      }
      default:
        return inherited(need.privilege)
          ? undefined
          : { privilege: spoken(need.privilege), securableType, fullName: name };
    }
  }

  /** Throws Databricks' 403 PERMISSION_DENIED when `who` lacks what `need` names. */
  require(who: Caller, need: Need): void {
    const m = this.missing(who, need);
    if (m) throw permissionDenied(m);
  }

  /** Whether `who` may see a securable (lists and information_schema show only those). */
  sees(who: Caller, on: SecurableKind, fullName: string): boolean {
    return this.missing(who, { on, fullName, privilege: 'BROWSE' }) === undefined;
  }

  /**
   * Whether `who` may see one grant (to `grantee`) on a securable it sees, as information_schema's
   * `*_privileges` views show grants: every grant to whoever may manage them (owners, MANAGE, admins), else
   * only the grants that reach `who` itself (to it, one of its groups or `account users`).
   */
  seesGrant(who: Caller, on: SecurableKind, fullName: string, grantee: string): boolean {
    if ([who.userName, ...who.groups, 'account users'].includes(grantee)) return true;
    return this.missing(who, { on, fullName, privilege: 'MANAGE' }) === undefined;
  }

  private ownerOf(type: 'table' | 'volume' | 'function', full: string): string | undefined {
    const coll =
      type === 'table' ? this.ctx.c.tables : type === 'volume' ? this.ctx.c.volumes : this.ctx.c.functions;
    return (coll.get(full) as { owner?: string } | undefined)?.owner;
  }
}

/** The REST form of a refusal, as Unity Catalog answers it (with the ErrorInfo the SDKs parse). */
export function permissionDenied(m: Missing): DatabricksError {
  return new DatabricksError(403, 'PERMISSION_DENIED', refusalText(m), [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'PERMISSION_DENIED',
      domain: 'unity-catalog.databricks.com',
      metadata: {
        principalName: 'User',
        msg: m.privilege,
        resourceType: m.securableType,
        resourceName: m.fullName,
      },
    },
  ]);
}

/** "User does not have MODIFY on Table 'c.s.t'." / "User is not an owner of Table 'c.s.t'." */
export function refusalText(m: Missing): string {
  return m.ownership
    ? `User is not an owner of ${m.securableType} '${m.fullName}'.`
    : `User does not have ${m.privilege} on ${m.securableType} '${m.fullName}'.`;
}
