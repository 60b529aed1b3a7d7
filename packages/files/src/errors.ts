import { alreadyExists, DatabricksError, invalidParameter, notFound } from '@minilake/core';

// DBFS (/api/2.0/dbfs)
export const dbfsNotFound = (p: string) => notFound(`No file or directory exists on path ${p}.`);
export const dbfsExists = (p: string) =>
  alreadyExists(`A file or directory already exists at the input path ${p}.`);
export const dbfsNotEmpty = (p: string) =>
  new DatabricksError(400, 'IO_ERROR', `Directory ${p} is not empty; set recursive to true to delete it.`);
export const dbfsIsDirectory = (p: string) => invalidParameter(`Path ${p} is a directory, not a file.`);
export const dbfsParentIsFile = (p: string) =>
  alreadyExists(`A file exists in the way of the directory path ${p}.`);
export const dbfsMoveIntoItself = (src: string, dst: string) =>
  invalidParameter(`Cannot move ${src} to ${dst}: the destination is the source itself or inside it.`);
export const handleNotFound = (h: number) => notFound(`The handle ${h} does not exist.`);
export const maxReadExceeded = () =>
  new DatabricksError(
    400,
    'MAX_READ_SIZE_EXCEEDED',
    'Cannot read more than 1.0MiB at a time (length > 1048576).',
  );
export const maxBlockExceeded = () =>
  new DatabricksError(400, 'MAX_BLOCK_SIZE_EXCEEDED', 'The block of data exceeds the maximum of 1.0MiB.');
export const badBase64 = (field: string) => invalidParameter(`${field} must be base64-encoded.`);

// Files API (/api/2.0/fs)
export const fileNotFound = (p: string) =>
  new DatabricksError(404, 'NOT_FOUND', `The file being accessed is not found: ${p}`);
export const directoryNotFound = (p: string) =>
  new DatabricksError(404, 'NOT_FOUND', `The directory being accessed is not found: ${p}`);
export const fileExists = (p: string) =>
  new DatabricksError(409, 'ALREADY_EXISTS', `The file being created already exists: ${p}`);
export const pathIsDirectory = (p: string) =>
  new DatabricksError(409, 'ALREADY_EXISTS', `A directory already exists at ${p}`);
export const pathIsFile = (p: string) =>
  new DatabricksError(409, 'ALREADY_EXISTS', `A file already exists at ${p}`);
export const directoryNotEmpty = (p: string) =>
  new DatabricksError(400, 'FAILED_PRECONDITION', `The directory being deleted is not empty: ${p}`);
export const volumeRootNotDeletable = (p: string) =>
  invalidParameter(
    `Cannot delete ${p}: it is the root directory of a volume (or model version, or run); delete that object to remove it.`,
  );
export const notAVolumePath = (p: string) =>
  invalidParameter(
    `Invalid path ${p}: the Files API accepts /Volumes/<catalog>/<schema>/<volume>/... paths (and, with MLflow, /Models/... and /WorkspaceInternal/Mlflow/...).`,
  );
export const volumesUnavailable = () =>
  notFound('Unity Catalog is not enabled on this MiniLake, so no volume exists.', 'NOT_FOUND');
export const rangeNotSatisfiable = (size: number) =>
  new DatabricksError(
    416,
    'INVALID_PARAMETER_VALUE',
    `The requested range is not satisfiable (file size ${size}).`,
  );
export const fileChanged = (p: string) =>
  new DatabricksError(
    412,
    'FAILED_PRECONDITION',
    `The file was modified after the If-Unmodified-Since time: ${p}`,
  );
