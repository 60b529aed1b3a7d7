import {
  badRequest,
  DatabricksError,
  invalidParameter,
  invalidState,
  notFound,
  type ErrorInfoDetail,
} from '@minilake/core';

export const invalidConfKeys = (keys: string[]) => invalidParameter(`Invalid keys: ${JSON.stringify(keys)}`);
/** The workspace-conf API answers this for any non-string value (the Terraform provider documents it). */
export const confValuesMustBeStrings = () => badRequest('Values must be strings');
export const invalidConfValue = (key: string, value: string, expected: string) =>
  invalidParameter(`Invalid value '${value}' for ${key}: ${expected}`);

export const ipAccessListNotFound = (id: string) => notFound(`Can't find IP access list with id: ${id}.`);
export const invalidIpAddress = (value: string) =>
  invalidParameter(
    `Invalid IP address or CIDR range: ${value}. Only IPv4 addresses and CIDR ranges are supported.`,
  );
export const tooManyIpAddresses = (max: number) =>
  new DatabricksError(
    400,
    'QUOTA_EXCEEDED',
    `The total number of IP addresses and CIDR ranges across all lists cannot exceed ${max}.`,
  );

export const gitCredentialNotFound = (id: string | number) =>
  notFound(`Git credential with id ${id} does not exist.`);
export const oneCredentialPerProvider = () =>
  invalidState(
    'Only one credential per provider is allowed. If you would like to update your credential, please use the PATCH endpoint.',
  );
export const unknownGitProvider = (provider: string) =>
  invalidParameter(`Invalid git provider: ${provider}.`);

export const initScriptNotFound = (id: string) =>
  notFound(`The global init script with id ${id} does not exist.`);

export const destinationNotFound = (id: string) => notFound(`Notification destination ${id} does not exist.`);

const etagDetail = (reason: string, etag: string): ErrorInfoDetail[] => [
  {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason,
    domain: 'settings.databricks.com',
    metadata: { etag },
  },
];
/** A setting that was never set: 404 whose ErrorInfo carries the etag to send with the first PATCH. */
export const settingNotFound = (type: string, etag: string) =>
  new DatabricksError(
    404,
    'RESOURCE_DOES_NOT_EXIST',
    `Setting ${type} does not exist.`,
    etagDetail('RESOURCE_DOES_NOT_EXIST', etag),
  );
export const settingEtagConflict = (type: string, etag: string) =>
  new DatabricksError(
    409,
    'RESOURCE_CONFLICT',
    `The etag of setting ${type} is stale: read the setting again and retry with the fresh etag.`,
    etagDetail('RESOURCE_CONFLICT', etag),
  );
