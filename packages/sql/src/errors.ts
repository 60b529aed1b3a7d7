import { DatabricksError, invalidParameter, invalidState, notFound } from '@minilake/core';

export const warehouseNotFound = (id: string) =>
  notFound(`SQL warehouse ${id} does not exist.`, 'RESOURCE_DOES_NOT_EXIST');
export const warehouseDeleted = (id: string) =>
  invalidState(`SQL warehouse ${id} has been deleted and can no longer be used.`);
export const statementNotFound = (id: string) =>
  notFound(`Statement ${id} does not exist or has expired.`, 'RESOURCE_DOES_NOT_EXIST');
export const chunkNotFound = (id: string, n: number) =>
  invalidParameter(`Chunk index ${n} is out of range for statement ${id}.`);
export const statementNotSucceeded = (id: string, state: string) =>
  invalidState(`Statement ${id} is in state ${state}: its result cannot be fetched.`);
export const badWaitTimeout = (value: string) =>
  invalidParameter(
    `Invalid wait_timeout '${value}': must be '0s' or between '5s' and '50s' (the default is '10s').`,
  );
export const formatNeedsExternalLinks = (format: string) =>
  invalidParameter(
    `The format ${format} is only supported with the EXTERNAL_LINKS disposition; use JSON_ARRAY with INLINE.`,
  );
export const resultLinkExpired = () =>
  new DatabricksError(403, 'PERMISSION_DENIED', 'The result link has expired; request a new link.');
