import { qInt, v } from '@minilake/core';

const scope = v.pipe(v.string(), v.minLength(1, 'scope must not be empty'));
const key = v.pipe(v.string(), v.minLength(1, 'key must not be empty'));
const permission = v.picklist(['READ', 'WRITE', 'MANAGE'], 'permission must be READ, WRITE or MANAGE');

export const CreateScopeRequest = v.object({
  scope,
  initial_manage_principal: v.optional(v.string()),
  scope_backend_type: v.optional(v.picklist(['DATABRICKS', 'AZURE_KEYVAULT'])),
});
export const DeleteScopeRequest = v.object({ scope });
export const PutSecretRequest = v.object({
  scope,
  key,
  // Explicit messages: valibot's default ("Expected string but received ...") would echo the secret value.
  string_value: v.optional(v.string('string_value must be a string')),
  bytes_value: v.optional(v.string('bytes_value must be a base64-encoded string')),
});
export const DeleteSecretRequest = v.object({ scope, key });
export const ListSecretsRequest = v.object({ scope });
export const GetSecretRequest = v.object({ scope, key });
export const PutAclRequest = v.object({ scope, principal: v.pipe(v.string(), v.minLength(1)), permission });
export const DeleteAclRequest = v.object({ scope, principal: v.pipe(v.string(), v.minLength(1)) });
export const GetAclRequest = v.object({ scope, principal: v.pipe(v.string(), v.minLength(1)) });
export const ListAclsRequest = v.object({ scope, limit: v.optional(qInt()) });
