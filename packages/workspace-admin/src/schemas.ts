import { qInt, v } from '@minilake/core';

const nonEmpty = (field: string) => v.pipe(v.string(), v.minLength(1, `${field} must not be empty`));
const listType = v.picklist(['ALLOW', 'BLOCK'], 'list_type must be ALLOW or BLOCK');

export const GetWorkspaceConfRequest = v.object({ keys: v.optional(v.string()) });

export const CreateIpAccessList = v.looseObject({
  label: nonEmpty('label'),
  list_type: listType,
  ip_addresses: v.optional(v.array(v.string()), []),
});
export const ReplaceIpAccessList = v.looseObject({
  label: nonEmpty('label'),
  list_type: listType,
  enabled: v.boolean(),
  ip_addresses: v.optional(v.array(v.string()), []),
});
export const UpdateIpAccessList = v.looseObject({
  label: v.optional(nonEmpty('label')),
  list_type: v.optional(listType),
  enabled: v.optional(v.boolean()),
  ip_addresses: v.optional(v.array(v.string())),
});

const principalId = v.optional(v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/))]));
export const CreateCredentials = v.looseObject({
  git_provider: nonEmpty('git_provider'),
  git_username: v.optional(v.string()),
  git_email: v.optional(v.string()),
  personal_access_token: v.optional(v.string()),
  name: v.optional(v.string()),
  is_default_for_provider: v.optional(v.boolean()),
  principal_id: principalId,
});
export const UpdateCredentials = v.looseObject({
  git_provider: v.optional(nonEmpty('git_provider')),
  git_username: v.optional(v.string()),
  git_email: v.optional(v.string()),
  personal_access_token: v.optional(v.string()),
  name: v.optional(v.string()),
  is_default_for_provider: v.optional(v.boolean()),
  principal_id: principalId,
});
export const PrincipalQuery = v.object({ principal_id: v.optional(qInt()) });
export const CredentialIdParam = v.object({
  credential_id: v.pipe(v.string(), v.regex(/^\d{1,18}$/, 'credential_id must be a number')),
});

export const CreateGlobalInitScript = v.looseObject({
  name: nonEmpty('name'),
  script: v.string(),
  enabled: v.optional(v.boolean()),
  position: v.optional(v.pipe(v.number(), v.integer())),
});
export const UpdateGlobalInitScript = v.looseObject({
  name: nonEmpty('name'),
  script: v.string(),
  enabled: v.optional(v.boolean()),
  position: v.optional(v.pipe(v.number(), v.integer())),
});

export const CreateNotificationDestination = v.looseObject({
  display_name: v.optional(v.string()),
  config: v.optional(v.record(v.string(), v.unknown())),
});
export const UpdateNotificationDestination = CreateNotificationDestination;
export const ListNotificationDestinations = v.object({
  page_size: v.optional(qInt()),
  page_token: v.optional(v.string()),
});

export const GetSettingRequest = v.object({ etag: v.optional(v.string()) });
export const UpdateSettingRequest = v.looseObject({
  allow_missing: v.optional(v.boolean()),
  field_mask: v.optional(v.string()),
  setting: v.record(v.string(), v.unknown()),
});
