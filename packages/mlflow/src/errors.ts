import { alreadyExists, DatabricksError, invalidParameter, notFound, permissionDenied } from '@minilake/core';

// ---- registered models (Unity Catalog) ----
export const modelNotFound = (fullName: string) => notFound(`Routine or Model '${fullName}' does not exist.`);
export const modelExists = (fullName: string) =>
  alreadyExists(`Registered model '${fullName}' already exists.`);
export const versionNotFound = (fullName: string, version: string | number) =>
  notFound(`Model Version '${fullName}' version ${version} does not exist.`);
export const aliasNotFound = (fullName: string, alias: string) =>
  notFound(`Alias ${alias} does not exist on registered model '${fullName}'.`);
/** The mlflow client looks for "specify all three levels" to add its hint about the legacy registry. */
export const notThreeLevels = (name: string) =>
  invalidParameter(
    `Invalid model name '${name}': the name must specify all three levels of the Unity Catalog namespace (catalog.schema.model).`,
  );
export const badAlias = (alias: string) =>
  invalidParameter(
    `Invalid alias '${alias}': an alias is 1 to 255 letters, digits and underscores, does not start with a digit, and is not 'latest' or of the form v<number>.`,
  );
export const versionNotPending = (fullName: string, version: number, status: string) =>
  new DatabricksError(
    400,
    'INVALID_STATE',
    `Model version ${fullName} version ${version} is ${status}; its files can no longer change.`,
  );
export const notEmptyModel = (fullName: string) =>
  new DatabricksError(
    400,
    'INVALID_STATE',
    `Registered model '${fullName}' has model versions; delete them first.`,
  );

// ---- experiments ----
export const badExperimentName = (name: string) =>
  invalidParameter(
    `Got an invalid experiment name '${name}'. An experiment name must be an absolute path within the Databricks workspace, e.g. '/Users/<some-username>/my-experiment'.`,
  );
export const experimentNotFound = (id: string) => notFound(`No Experiment with id=${id} exists`);

// ---- artifacts ----
export const artifactPathEscapes = (p: string) =>
  invalidParameter(
    `Invalid artifact path '${p}': it must stay inside the artifact root (no '..', '.', '\\' or NUL).`,
  );
export const artifactNotFound = (p: string) =>
  new DatabricksError(404, 'NOT_FOUND', `The file being accessed is not found: ${p}`);
export const runNotFound = (id: string) => notFound(`Run with id=${id} not found`);
export const runNotActive = (id: string) =>
  new DatabricksError(
    400,
    'INVALID_STATE',
    `The run ${id} must be in the 'active' state. Current state is deleted.`,
  );
export const badLink = () => permissionDenied('The signed artifact link is invalid or has expired.');
