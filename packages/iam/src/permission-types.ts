/**
 * The object types of /api/2.0/permissions, as Databricks names them in the request path and in the
 * response (`object_type`), with the permission levels each accepts. `owner` is the level the creator holds
 * by default (IS_OWNER where the type has owners, CAN_MANAGE otherwise); `admins` is the level the admins
 * group inherits from the type's root object.
 */
export interface PermissionType {
  /** The request path segment(s): `clusters`, `sql/warehouses`, `authorization/tokens`. */
  request: string;
  objectType: string;
  levels: Record<string, string>;
  owner?: string;
  admins: string;
  /** true when the admins entry is a direct grant on a singleton object (tokens, passwords). */
  adminsDirect?: boolean;
  /** A singleton object with no id in the path. */
  singleton?: boolean;
}

const D = {
  CAN_MANAGE: 'Can Manage permissions',
  IS_OWNER: 'Is owner of the object',
  CAN_ATTACH_TO: 'Can attach to',
  CAN_RESTART: 'Can restart',
  CAN_USE: 'Can use',
  CAN_VIEW: 'Can view',
  CAN_RUN: 'Can run',
  CAN_READ: 'Can read',
  CAN_EDIT: 'Can edit',
  CAN_MANAGE_RUN: 'Can manage runs',
  CAN_MONITOR: 'Can monitor',
  CAN_QUERY: 'Can query',
  CAN_MANAGE_STAGING_VERSIONS: 'Can manage staging versions',
  CAN_MANAGE_PRODUCTION_VERSIONS: 'Can manage production versions',
} as const;

const levels = (...names: (keyof typeof D)[]) => Object.fromEntries(names.map((n) => [n, D[n]]));
const workspaceObject = levels('CAN_READ', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE');
const sqlObject = levels('CAN_READ', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE');

const TYPES: PermissionType[] = [
  {
    request: 'clusters',
    objectType: 'cluster',
    levels: levels('CAN_ATTACH_TO', 'CAN_RESTART', 'CAN_MANAGE'),
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  { request: 'cluster-policies', objectType: 'cluster-policy', levels: levels('CAN_USE'), admins: 'CAN_USE' },
  {
    request: 'instance-pools',
    objectType: 'instance-pool',
    levels: levels('CAN_ATTACH_TO', 'CAN_MANAGE'),
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'jobs',
    objectType: 'job',
    levels: levels('CAN_VIEW', 'CAN_MANAGE_RUN', 'IS_OWNER', 'CAN_MANAGE'),
    owner: 'IS_OWNER',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'pipelines',
    objectType: 'pipelines',
    levels: levels('CAN_VIEW', 'CAN_RUN', 'CAN_MANAGE', 'IS_OWNER'),
    owner: 'IS_OWNER',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'notebooks',
    objectType: 'notebook',
    levels: workspaceObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'directories',
    objectType: 'directory',
    levels: workspaceObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'files',
    objectType: 'file',
    levels: workspaceObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'repos',
    objectType: 'repo',
    levels: workspaceObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'authorization/tokens',
    objectType: 'tokens',
    levels: levels('CAN_USE', 'CAN_MANAGE'),
    admins: 'CAN_MANAGE',
    adminsDirect: true,
    singleton: true,
  },
  {
    request: 'authorization/passwords',
    objectType: 'passwords',
    levels: levels('CAN_USE'),
    admins: 'CAN_USE',
    adminsDirect: true,
    singleton: true,
  },
  {
    request: 'sql/warehouses',
    objectType: 'warehouses',
    levels: levels('CAN_USE', 'CAN_MANAGE', 'CAN_MONITOR', 'CAN_VIEW', 'IS_OWNER'),
    owner: 'IS_OWNER',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'sql/queries',
    objectType: 'query',
    levels: sqlObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'sql/alerts',
    objectType: 'alert',
    levels: sqlObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'dbsql-dashboards',
    objectType: 'dashboard',
    levels: sqlObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'dashboards',
    objectType: 'dashboard',
    levels: sqlObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'alertsv2',
    objectType: 'alertv2',
    levels: sqlObject,
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'experiments',
    objectType: 'mlflowExperiment',
    levels: levels('CAN_READ', 'CAN_EDIT', 'CAN_MANAGE'),
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'registered-models',
    objectType: 'registered-model',
    levels: levels(
      'CAN_READ',
      'CAN_EDIT',
      'CAN_MANAGE_STAGING_VERSIONS',
      'CAN_MANAGE_PRODUCTION_VERSIONS',
      'CAN_MANAGE',
    ),
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'serving-endpoints',
    objectType: 'serving-endpoint',
    levels: levels('CAN_VIEW', 'CAN_QUERY', 'CAN_MANAGE'),
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'vector-search-endpoints',
    objectType: 'vector-search-endpoints',
    levels: levels('CAN_USE', 'CAN_MANAGE'),
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'apps',
    objectType: 'apps',
    levels: levels('CAN_USE', 'CAN_MANAGE'),
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
  {
    request: 'database-instances',
    objectType: 'database-instances',
    levels: levels('CAN_USE', 'CAN_MANAGE'),
    owner: 'CAN_MANAGE',
    admins: 'CAN_MANAGE',
  },
];

/** Aliases that address the same objects: the SDKs' `warehouses/{id}` is the provider's `sql/warehouses/{id}`. */
const ALIASES: Record<string, string> = {
  warehouses: 'sql/warehouses',
  'sql/dashboards': 'dbsql-dashboards',
};

const BY_REQUEST = new Map(TYPES.map((t) => [t.request, t]));

/**
 * Splits the path after /api/2.0/permissions/ into the type and the object id, and whether it asks for
 * permissionLevels. Returns undefined for an unknown type.
 */
export function resolveObject(
  rest: string,
): { type: PermissionType; id: string; levelsRequest: boolean } | undefined {
  let parts = rest.split('/').filter((p) => p !== '');
  let levelsRequest = false;
  if (parts[parts.length - 1] === 'permissionLevels') {
    levelsRequest = true;
    parts = parts.slice(0, -1);
  }
  for (const take of [2, 1]) {
    if (parts.length < take) continue;
    const name = parts.slice(0, take).join('/');
    const type = BY_REQUEST.get(ALIASES[name] ?? name);
    if (!type) continue;
    const id = parts.slice(take).join('/');
    if (type.singleton ? id !== '' : id === '') return undefined;
    let decoded: string;
    try {
      decoded = decodeURIComponent(id);
    } catch {
      return undefined;
    }
    return { type, id: decoded, levelsRequest };
  }
  return undefined;
}

export function objectIdOf(type: PermissionType, id: string): string {
  return type.singleton ? `/${type.request}` : `/${type.request}/${id}`;
}
