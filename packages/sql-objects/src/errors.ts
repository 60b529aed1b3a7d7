import { DatabricksError, invalidParameter, notFound } from '@minilake/core';

export const queryNotFound = (id: string) => notFound(`Query ${id} does not exist.`);
export const alertNotFound = (id: string) => notFound(`Alert ${id} does not exist.`);
/** Alerts V2 word it differently (the CLI's goldens: `alerts-v2 get-alert` of a deleted alert). */
export const alertV2NotFound = (id: string) => notFound(`Alert with ID '${id}' does not exist.`);
export const dashboardNotFound = (id: string) => notFound(`Dashboard ${id} does not exist.`);
export const widgetNotFound = (id: string) => notFound(`Widget ${id} does not exist.`);
export const visualizationNotFound = (id: string) => notFound(`Visualization ${id} does not exist.`);
export const missingField = (field: string) => invalidParameter(`${field} is required.`);
export const updateMaskRequired = () =>
  invalidParameter('update_mask is required: name the fields to update, comma-separated, or `*`.');
export const badMaskField = (field: string, allowed: readonly string[]) =>
  invalidParameter(`Invalid update_mask field '${field}': updatable fields are ${allowed.join(', ')}.`);
export const trashed = (what: string, id: string) =>
  new DatabricksError(400, 'INVALID_STATE', `${what} ${id} is in the trash: restore it first.`);
