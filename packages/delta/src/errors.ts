import { DatabricksError } from '@minilake/core';

/**
 * A Delta failure the caller can show as it is. The code is the Delta error class Databricks reports for the
 * same condition (DELTA_UNSUPPORTED_FEATURES_FOR_READ, DELTA_CONCURRENT_APPEND, ...), so SQL clients that
 * match on it keep working.
 */
export class DeltaError extends DatabricksError {
  constructor(code: string, message: string, status = 400) {
    super(status, code, `[${code}] ${message}`);
    this.name = 'DeltaError';
  }
}
