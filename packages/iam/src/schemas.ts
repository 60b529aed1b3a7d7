import { qInt, v } from '@minilake/core';

const complexValue = v.looseObject({
  value: v.optional(v.string()),
  display: v.optional(v.string()),
  primary: v.optional(v.boolean()),
  type: v.optional(v.string()),
  $ref: v.optional(v.string()),
});
const complexList = v.optional(v.array(complexValue));

/** Fields shared by the three SCIM resources; unknown fields are accepted and ignored. */
const scimCommon = {
  schemas: v.optional(v.array(v.string())),
  id: v.optional(v.string()),
  externalId: v.optional(v.string()),
  displayName: v.optional(v.string()),
  entitlements: complexList,
  roles: complexList,
  groups: complexList,
};

export const CreateUserRequest = v.looseObject({
  ...scimCommon,
  userName: v.optional(v.string()),
  active: v.optional(v.boolean()),
  name: v.optional(v.looseObject({ givenName: v.optional(v.string()), familyName: v.optional(v.string()) })),
  emails: complexList,
});
export type UserInput = v.InferOutput<typeof CreateUserRequest>;

export const CreateGroupRequest = v.looseObject({
  ...scimCommon,
  members: complexList,
});
export type GroupInput = v.InferOutput<typeof CreateGroupRequest>;

export const CreateServicePrincipalRequest = v.looseObject({
  ...scimCommon,
  applicationId: v.optional(v.string()),
  active: v.optional(v.boolean()),
});
export type ServicePrincipalInput = v.InferOutput<typeof CreateServicePrincipalRequest>;

export const PatchRequest = v.looseObject({
  schemas: v.optional(v.array(v.string())),
  Operations: v.optional(
    v.array(
      v.looseObject({
        op: v.pipe(
          v.string(),
          v.transform((s) => s.toLowerCase()),
          v.picklist(['add', 'remove', 'replace'], 'op must be add, remove or replace'),
        ),
        path: v.optional(v.string()),
        value: v.optional(v.unknown()),
      }),
    ),
  ),
});
export type PatchOperation = NonNullable<v.InferOutput<typeof PatchRequest>['Operations']>[number];

export const ListRequest = v.object({
  filter: v.optional(v.string()),
  startIndex: v.optional(qInt()),
  count: v.optional(qInt()),
  attributes: v.optional(v.string()),
  excludedAttributes: v.optional(v.string()),
  sortBy: v.optional(v.string()),
  sortOrder: v.optional(v.string()),
});
export const GetRequest = v.object({
  attributes: v.optional(v.string()),
  excludedAttributes: v.optional(v.string()),
});

const principalName = v.optional(v.string());
export const AccessControlRequest = v.looseObject({
  user_name: principalName,
  group_name: principalName,
  service_principal_name: principalName,
  permission_level: v.optional(v.string()),
});
export type AccessControlEntry = v.InferOutput<typeof AccessControlRequest>;
export const SetObjectPermissions = v.looseObject({
  access_control_list: v.optional(v.array(AccessControlRequest)),
});

const lifetime = v.optional(v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d+$/))]));
export const CreateTokenRequest = v.looseObject({
  lifetime_seconds: lifetime,
  comment: v.optional(v.string()),
  scopes: v.optional(v.array(v.string())),
});
export const DeleteTokenRequest = v.object({ token_id: v.pipe(v.string(), v.minLength(1)) });
export const CreateOboTokenRequest = v.looseObject({
  application_id: v.pipe(v.string(), v.minLength(1, 'application_id must not be empty')),
  lifetime_seconds: lifetime,
  comment: v.optional(v.string()),
  scopes: v.optional(v.array(v.string())),
});
export const ListTokensRequest = v.object({
  created_by_id: v.optional(v.string()),
  created_by_username: v.optional(v.string()),
});
export const UpdateTokenRequest = v.looseObject({
  token: v.optional(v.record(v.string(), v.unknown()), {}),
  update_mask: v.optional(v.string(), ''),
});
