import { DatabricksError, alreadyExists, invalidParameter, notFound } from '@minilake/core';

export const catalogNotFound = (name: string) =>
  notFound(`Catalog '${name}' does not exist.`, 'CATALOG_DOES_NOT_EXIST');
export const schemaNotFound = (fullName: string) =>
  notFound(`Schema '${fullName}' does not exist.`, 'SCHEMA_DOES_NOT_EXIST');
export const tableNotFound = (fullName: string) =>
  notFound(`Table '${fullName}' does not exist.`, 'TABLE_DOES_NOT_EXIST');
export const volumeNotFound = (fullName: string) => notFound(`Volume '${fullName}' does not exist.`);
export const functionNotFound = (fullName: string) =>
  notFound(`Routine or Model '${fullName}' does not exist.`, 'FUNCTION_DOES_NOT_EXIST');
export const metastoreNotFound = (id: string) =>
  notFound(`Metastore '${id}' does not exist.`, 'METASTORE_DOES_NOT_EXIST');

export const catalogExists = (name: string) =>
  alreadyExists(`Catalog '${name}' already exists`, 'CATALOG_ALREADY_EXISTS');
export const schemaExists = (fullName: string) =>
  alreadyExists(`Schema '${fullName}' already exists`, 'SCHEMA_ALREADY_EXISTS');
export const tableExists = (fullName: string) =>
  alreadyExists(`Table or view '${fullName}' already exists`, 'TABLE_ALREADY_EXISTS');
export const volumeExists = (fullName: string) => alreadyExists(`Volume '${fullName}' already exists`);
export const functionExists = (fullName: string) =>
  alreadyExists(`Function '${fullName}' already exists`, 'FUNCTION_ALREADY_EXISTS');

export const invalidName = (what: string, name: string) =>
  invalidParameter(
    `Invalid ${what} name ${JSON.stringify(name)}: names must be 1 to 255 letters, digits, underscores or hyphens.`,
  );

/** Real Databricks refuses to drop a non-empty securable unless `force` is set. */
export const notEmpty = (what: string, name: string, detail: string) =>
  new DatabricksError(
    400,
    'INVALID_STATE',
    `${what} '${name}' is not empty. ${detail} Use force=true to delete it with its contents.`,
  );

export const engineRejected = (what: string, e: unknown) =>
  invalidParameter(`${what}: ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
