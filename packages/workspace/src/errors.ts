import { alreadyExists, DatabricksError, invalidParameter, notFound, notImplemented } from '@minilake/core';

export const pathNotFound = (path: string) => notFound(`Path (${path}) doesn't exist.`);
export const parentNotFound = (parent: string) => notFound(`The parent folder (${parent}) does not exist.`);
export const pathExists = (path: string) =>
  alreadyExists(`Path (${path}) already exists. Use overwrite=true to replace it.`);
/** workspace-files/import-file over an existing file with overwrite=false: the bundle lock relies on this 409. */
export const fileExists = (path: string) => alreadyExists(`File already exists at (${path}).`);
/** The CLI's filer looks for "already exists." in a 400 when a notebook is in the way. */
export const notebookExists = (path: string) =>
  new DatabricksError(400, 'RESOURCE_ALREADY_EXISTS', `Notebook ${path} already exists.`);
export const notADirectory = (path: string) =>
  invalidParameter(`Cannot create ${path}: a part of the path is a notebook or a file.`);
export const directoryNotEmpty = (path: string) =>
  new DatabricksError(400, 'DIRECTORY_NOT_EMPTY', `Folder (${path}) is not empty`);
export const systemFolder = (path: string) =>
  new DatabricksError(403, 'PERMISSION_DENIED', `Folder (${path}) is a system folder and cannot be deleted.`);
export const isDirectory = (path: string) =>
  new DatabricksError(
    400,
    'INVALID_PARAMETER_VALUE',
    `Path (${path}) is a directory and cannot be replaced by a file.`,
  );
export const badBase64 = () => invalidParameter('content must be base64-encoded.');
export const languageRequired = () =>
  invalidParameter('The language field is required when format is SOURCE.');
export const badNotebook = (why: string) => invalidParameter(`Invalid notebook content: ${why}`);
export const conversionNotImplemented = (what: string) => notImplemented(what);
export const foreignInTheWay = (path: string, noun: string) =>
  alreadyExists(`Path (${path}) already exists: it is ${noun}.`);
export const notExportable = (path: string, noun: string) =>
  invalidParameter(`Path (${path}) is ${noun}, which cannot be exported.`);
/**
 * A caller without the level an operation needs on a workspace object (MINILAKE_ENFORCE=1): 403
 * PERMISSION_DENIED in the wording of Databricks' workspace refusals, naming the level, the object and its path.
 */
export const noPermission = (userName: string, level: string, noun: string, path: string) =>
  new DatabricksError(
    403,
    'PERMISSION_DENIED',
    `User "${userName}" does not have ${level} permissions on ${noun} ${path}. Please contact the owner or an administrator for access.`,
  );
