/**
 * What this workspace knows about: the workspace-conf keys with their defaults (the values a fresh
 * workspace reports), and the setting types of /api/2.0/settings with the field that carries their value.
 */

/** Boolean keys ('true'/'false'), with the default a new workspace reports. */
export const BOOLEAN_CONF: Record<string, boolean> = {
  enableIpAccessLists: false,
  enableTokensConfig: true,
  enableDeprecatedGlobalInitScripts: false,
  enableDeprecatedClusterNamedInitScripts: false,
  enableExportNotebook: true,
  enableResultsDownloading: true,
  enableNotebookTableClipboard: true,
  enableUploadDataUis: true,
  enableWebTerminal: true,
  enableDbfsFileBrowser: false,
  enableVerboseAuditLogs: false,
  enableFileStoreEndpoint: true,
  enableJobViewAcls: true,
  enableAclsConfig: true,
  enableClusterAclsConfig: true,
  enableWorkspaceAclsConfig: true,
  enforceUserIsolation: false,
  enforceClusterViewAcls: false,
  enforceWorkspaceViewAcls: false,
  enableProjectTypeInWorkspace: true,
  enableWorkspaceFilesystem: true,
  enableProjectsAllowList: false,
  enableDatabricksAutologgingAdminConf: true,
  mlflowRunArtifactDownloadEnabled: true,
  mlflowModelServingEndpointCreationEnabled: true,
  mlflowModelRegistryEmailNotificationsEnabled: true,
  enableJobsEmailsV2: true,
  enableHlsRuntime: false,
  'enable-X-Frame-Options': true,
  'enable-X-Content-Type-Options': true,
  'enable-X-XSS-Protection': true,
  enableGp3: true,
  storeInteractiveNotebookResultsInCustomerAccount: false,
  enableNotebookGitVersioning: true,
  enableLibraryAndInitScriptOnSharedCluster: true,
  enableEnforceImdsV2: false,
  heapAnalyticsAdminConsent: false,
  intercomAdminConsent: false,
  jobsListBackendPaginationEnabled: true,
  enableDcs: false,
  enableServerlessCompute: true,
};

/** Keys holding a non-negative integer; unset means no limit. */
export const INTEGER_CONF = new Set(['maxTokenLifetimeDays', 'maxUserInactiveDays']);

/** Free-form string keys; unset is null. */
export const STRING_CONF = new Set([
  'projectsAllowList',
  'projectsAllowListPermissions',
  'reposIpynbResultsExportPermissions',
  'customerApprovedWSLoginExpirationTime',
  'rStudioUserDefaultHomeBase',
  'jobsJobRunsMaxConcurrency',
]);

export const isConfKey = (k: string) => k in BOOLEAN_CONF || INTEGER_CONF.has(k) || STRING_CONF.has(k);

export function confDefault(key: string): string | null {
  if (key in BOOLEAN_CONF) return String(BOOLEAN_CONF[key]);
  return null;
}

export interface SettingType {
  /** The path segment after /settings/types/. */
  type: string;
  /** The field of the setting object that holds its value. */
  field: string;
  /** The value a workspace reports before anything is set; undefined means GET is a 404 until set. */
  defaultValue?: Record<string, unknown>;
  /** Whether the setting object carries an etag (the newer boolean settings do not). */
  etag: boolean;
  /** Checks a new value; returns an error message or undefined. */
  check(value: Record<string, unknown>): string | undefined;
}

const booleanValue = (v: Record<string, unknown>) =>
  typeof v.value === 'boolean' ? undefined : 'value must be a boolean';
const stringValue = (v: Record<string, unknown>) =>
  typeof v.value === 'string' && v.value.trim() !== '' ? undefined : 'value must be a non-empty string';
const oneOf =
  (field: string, allowed: string[]) =>
  (v: Record<string, unknown>): string | undefined =>
    allowed.includes(String(v[field])) ? undefined : `${field} must be one of ${allowed.join(', ')}`;

export const SETTING_TYPES: SettingType[] = [
  { type: 'default_namespace_ws', field: 'namespace', etag: true, check: stringValue },
  { type: 'default_warehouse_id', field: 'string_val', etag: true, check: stringValue },
  {
    type: 'disable_legacy_dbfs',
    field: 'disable_legacy_dbfs',
    defaultValue: { value: false },
    etag: true,
    check: booleanValue,
  },
  {
    type: 'disable_legacy_access',
    field: 'disable_legacy_access',
    defaultValue: { value: false },
    etag: true,
    check: booleanValue,
  },
  {
    type: 'restrict_workspace_admins',
    field: 'restrict_workspace_admins',
    defaultValue: { status: 'ALLOW_ALL' },
    etag: true,
    check: oneOf('status', ['ALLOW_ALL', 'RESTRICT_TOKENS_AND_JOB_RUN_AS']),
  },
  {
    type: 'sql_results_download',
    field: 'boolean_val',
    defaultValue: { value: true },
    etag: true,
    check: booleanValue,
  },
  {
    type: 'dashboard_email_subscriptions',
    field: 'boolean_val',
    defaultValue: { value: true },
    etag: true,
    check: booleanValue,
  },
  {
    type: 'llm_proxy_partner_powered',
    field: 'boolean_val',
    defaultValue: { value: true },
    etag: true,
    check: booleanValue,
  },
  {
    type: 'aibi_dash_embed_ws_acc_policy',
    field: 'aibi_dashboard_embedding_access_policy',
    defaultValue: { access_policy_type: 'ALLOW_APPROVED_DOMAINS' },
    etag: true,
    check: oneOf('access_policy_type', ['ALLOW_ALL_DOMAINS', 'ALLOW_APPROVED_DOMAINS', 'DENY_ALL_DOMAINS']),
  },
  {
    type: 'aibi_dash_embed_ws_apprvd_domains',
    field: 'aibi_dashboard_embedding_approved_domains',
    defaultValue: { approved_domains: [] },
    etag: true,
    check: (v) =>
      Array.isArray(v.approved_domains) && v.approved_domains.every((d) => typeof d === 'string')
        ? undefined
        : 'approved_domains must be a list of strings',
  },
  {
    type: 'enable-export-notebook',
    field: 'boolean_val',
    defaultValue: { value: true },
    etag: false,
    check: booleanValue,
  },
  {
    type: 'enable-notebook-table-clipboard',
    field: 'boolean_val',
    defaultValue: { value: true },
    etag: false,
    check: booleanValue,
  },
  {
    type: 'enable-results-downloading',
    field: 'boolean_val',
    defaultValue: { value: true },
    etag: false,
    check: booleanValue,
  },
];

export const SETTING_BY_TYPE = new Map(SETTING_TYPES.map((s) => [s.type, s]));
