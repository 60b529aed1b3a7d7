/**
 * The one error model. Every failure a client can see is a DatabricksError; its status and error_code
 * always agree (the SDKs classify by error_code, but the CLI and the Terraform provider test the status).
 * Messages must never contain "Unexpected error", "connection refused" or "ClusterNotReadyException":
 * the SDKs retry on those strings.
 */

export interface ErrorInfoDetail {
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo';
  reason: string;
  domain: string;
  metadata: Record<string, string>;
}

export interface DatabricksErrorBody {
  error_code: string;
  message: string;
  details?: ErrorInfoDetail[];
}

export class DatabricksError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly details?: ErrorInfoDetail[],
  ) {
    super(message);
    this.name = 'DatabricksError';
  }

  toBody(): DatabricksErrorBody {
    const body: DatabricksErrorBody = { error_code: this.errorCode, message: this.message };
    if (this.details && this.details.length > 0) body.details = this.details;
    return body;
  }
}

export const isDatabricksError = (e: unknown): e is DatabricksError => e instanceof DatabricksError;

export const invalidParameter = (message: string) =>
  new DatabricksError(400, 'INVALID_PARAMETER_VALUE', message);
export const malformedRequest = (message: string) => new DatabricksError(400, 'MALFORMED_REQUEST', message);
export const badRequest = (message: string, code = 'BAD_REQUEST') => new DatabricksError(400, code, message);
export const invalidState = (message: string) => new DatabricksError(400, 'INVALID_STATE', message);
export const notFound = (message: string, code = 'RESOURCE_DOES_NOT_EXIST') =>
  new DatabricksError(404, code, message);
export const alreadyExists = (message: string, code = 'RESOURCE_ALREADY_EXISTS') =>
  new DatabricksError(409, code, message);
export const permissionDenied = (message: string) => new DatabricksError(403, 'PERMISSION_DENIED', message);
/** A change that lost to a concurrent one (Databricks' ABORTED, 409): the client may retry it. */
export const aborted = (message: string) => new DatabricksError(409, 'ABORTED', message);
export const notImplemented = (what: string) =>
  new DatabricksError(501, 'NOT_IMPLEMENTED', `${what} is not implemented in MiniLake`);
export const internalError = (message = 'Internal error') =>
  new DatabricksError(500, 'INTERNAL_ERROR', message);
export const temporarilyUnavailable = (message: string) =>
  new DatabricksError(503, 'TEMPORARILY_UNAVAILABLE', message);

/** A typed failure of an engine that cannot run here (no Docker socket, no Spark, no extension). */
export class EngineUnavailable extends DatabricksError {
  constructor(engine: string, reason: string) {
    super(503, 'TEMPORARILY_UNAVAILABLE', `The ${engine} engine is not available: ${reason}`);
    this.name = 'EngineUnavailable';
  }
}

/** Renders anything thrown into a status and a Databricks-shaped body; unknown errors become 500. */
export function renderError(err: unknown): {
  status: number;
  body: DatabricksErrorBody;
  unexpected: boolean;
} {
  if (err instanceof DatabricksError) return { status: err.status, body: err.toBody(), unexpected: false };
  return { status: 500, body: { error_code: 'INTERNAL_ERROR', message: 'Internal error' }, unexpected: true };
}
