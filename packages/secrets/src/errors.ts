import { alreadyExists, DatabricksError, invalidParameter, notFound } from '@minilake/core';

export const scopeNotFound = (scope: string) => notFound(`Scope ${scope} does not exist!`);
export const scopeExists = (scope: string) => alreadyExists(`Scope ${scope} already exists!`);
export const secretNotFound = (scope: string, key: string) =>
  notFound(`Failed to get secret ${key} for scope ${scope}.`);
export const aclNotFound = (scope: string, principal: string) =>
  notFound(`No ACL for principal ${principal} in scope ${scope}.`);
export const invalidName = (what: string, name: string) =>
  invalidParameter(
    `${what} name '${name}' is invalid: it must consist of alphanumeric characters, dashes, underscores, and periods, and may not exceed 128 characters.`,
  );
export const valueTooLarge = () => invalidParameter('Secret value must be at most 128 KB.');
/** MINILAKE_SECRETS_WRITE_ONLY=1: the REST API never returns a secret value; jobs still read it. */
export const secretReadForbidden = () =>
  new DatabricksError(
    403,
    'PERMISSION_DENIED',
    'Secret values cannot be read through the REST API: read them with dbutils.secrets.get or {{secrets/<scope>/<key>}} inside a job.',
  );
