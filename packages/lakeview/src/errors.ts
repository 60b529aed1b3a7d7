import { DatabricksError, invalidParameter, notFound } from '@minilake/core';

export const dashboardNotFound = (id: string) => notFound(`Unable to find dashboard [${id}]`);
export const publishedNotFound = (id: string) => notFound(`Unable to find published dashboard [${id}]`);
export const scheduleNotFound = (id: string) => notFound(`Unable to find schedule [${id}]`);
export const subscriptionNotFound = (id: string) => notFound(`Unable to find subscription [${id}]`);
/**
 * Trashing a dashboard that is already in the trash: the Terraform provider expects 403 and then checks the
 * lifecycle state ("If the dashboard was already trashed, we'll get a 403").
 */
export const alreadyTrashed = (id: string) =>
  new DatabricksError(403, 'PERMISSION_DENIED', `Dashboard [${id}] is in the trash.`);
/** An update, publish or schedule change of a trashed dashboard ("It cannot be updated unless it is untrashed"). */
export const inTrash = (id: string) =>
  invalidParameter(`Dashboard [${id}] is in the trash: restore it before changing it.`);
export const notTrashed = (id: string) => invalidParameter(`Dashboard [${id}] is not in the trash.`);
/** A write naming an etag other than the current one (someone changed the object since it was read). */
export const staleEtag = (what: string, sent: string, current: string) =>
  new DatabricksError(
    409,
    'ABORTED',
    `The ${what} has been modified since it was last read: etag ${sent} is not the current ${current}.`,
  );
export const missingField = (field: string) => invalidParameter(`${field} is required.`);
export const tooMany = (what: string, max: number) =>
  new DatabricksError(400, 'RESOURCE_LIMIT_EXCEEDED', `A ${what} may have at most ${max} of them.`);
