import { DatabricksError, invalidParameter } from '@minilake/core';

/** Databricks' words for an unknown pipeline (the CLI prints them as they are). */
export const pipelineNotFound = (id: string) =>
  new DatabricksError(404, 'RESOURCE_DOES_NOT_EXIST', `The specified pipeline ${id} was not found.`);

export const updateNotFound = (id: string) =>
  new DatabricksError(404, 'RESOURCE_DOES_NOT_EXIST', `The specified update ${id} was not found.`);

export const nameConflict = (name: string, otherId: string) =>
  new DatabricksError(
    409,
    'RESOURCE_CONFLICT',
    `Pipeline name '${name}' is already used by pipeline ${otherId}. Set allow_duplicate_names to true to allow it.`,
  );

export const activeUpdate = (pipelineId: string, updateId: string) =>
  new DatabricksError(
    409,
    'RESOURCE_CONFLICT',
    `Pipeline ${pipelineId} already has an active update ${updateId}; stop it or wait until it ends.`,
  );

export const modifiedSince = (pipelineId: string) =>
  new DatabricksError(
    409,
    'ABORTED',
    `The settings of pipeline ${pipelineId} were modified after expected_last_modified; read them again and retry.`,
  );

export const badFilter = (filter: string, why: string) =>
  invalidParameter(`Invalid filter '${filter}': ${why}`);
