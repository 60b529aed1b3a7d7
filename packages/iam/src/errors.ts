import { DatabricksError, invalidParameter, notFound, type DatabricksErrorBody } from '@minilake/core';

const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * A SCIM error. The body carries both shapes: the SCIM fields Databricks answers with (`schemas`, `detail`,
 * `status` as a string, `scimType`), which the Python SDK turns into SCIM_<status> and classifies by status
 * (NotFound, ResourceConflict, BadRequest), and `error_code` + `message`, which the Go SDK prefers when a
 * message is present and without which the TypeScript SDK 0.17.0 cannot parse the body at all.
 */
export class ScimError extends DatabricksError {
  constructor(
    status: number,
    errorCode: string,
    readonly detail: string,
    readonly scimType?: string,
  ) {
    super(status, errorCode, detail);
    this.name = 'ScimError';
  }

  override toBody(): DatabricksErrorBody {
    const body: DatabricksErrorBody & Record<string, unknown> = {
      error_code: this.errorCode,
      message: this.message,
      schemas: [SCIM_ERROR],
      detail: this.detail,
      status: String(this.status),
    };
    if (this.scimType) body.scimType = this.scimType;
    return body;
  }
}

export type ScimKind = 'User' | 'Group' | 'ServicePrincipal';

export const scimNotFound = (kind: ScimKind, id: string) =>
  new ScimError(404, 'RESOURCE_DOES_NOT_EXIST', `${kind} with id ${id} not found.`);
export const scimMemberNotFound = (id: string) =>
  new ScimError(404, 'RESOURCE_DOES_NOT_EXIST', `Principal with id ${id} not found.`);
export const userExists = (userName: string) =>
  new ScimError(
    409,
    'RESOURCE_ALREADY_EXISTS',
    `User with username ${userName} already exists.`,
    'uniqueness',
  );
export const groupExists = (name: string) =>
  new ScimError(409, 'RESOURCE_ALREADY_EXISTS', `Group with name ${name} already exists.`, 'uniqueness');
export const servicePrincipalExists = (applicationId: string) =>
  new ScimError(
    409,
    'RESOURCE_ALREADY_EXISTS',
    `Service principal with application ID ${applicationId} already exists.`,
    'uniqueness',
  );
/** A SCIM write by a caller who is not a workspace admin (SCIM's error body, 403). */
export const scimNotAdmin = () => new ScimError(403, 'PERMISSION_DENIED', 'User not authorized.');
/** Token management (other principals' tokens) by a caller who is not a workspace admin. */
export const tokenManagementNotAdmin = () =>
  new DatabricksError(403, 'PERMISSION_DENIED', 'Only Admins can access token management APIs.');
/** A service principal's OAuth secrets by a caller who is not a workspace admin (they mint its tokens). */
export const spSecretsNotAdmin = () =>
  new DatabricksError(
    403,
    'PERMISSION_DENIED',
    'Only workspace admins may manage the OAuth secrets of a service principal.',
  );
export const scimInvalidValue = (detail: string) =>
  new ScimError(400, 'INVALID_PARAMETER_VALUE', detail, 'invalidValue');
export const scimInvalidPath = (path: string) =>
  new ScimError(400, 'INVALID_PARAMETER_VALUE', `Invalid path: ${path}`, 'invalidPath');
export const scimInvalidFilter = (filter: string, why: string) =>
  new ScimError(400, 'INVALID_PARAMETER_VALUE', `Invalid filter '${filter}': ${why}`, 'invalidFilter');
export const scimNoTarget = (path: string) =>
  new ScimError(400, 'INVALID_PARAMETER_VALUE', `No attribute matches path ${path}`, 'noTarget');

/** Databricks' answer (and its CLI's fake server's) to a request object type it does not know. */
export const unknownObjectType = (type: string) =>
  invalidParameter(`request_object_type is not recognized: ${type}`);
export const unsupportedPermissionLevel = (level: string, type: string) =>
  invalidParameter(`Permission level ${level} is not supported for object type ${type}.`);
export const principalNotFound = (kind: string, name: string) =>
  invalidParameter(`Principal: ${kind}(${name}) does not exist`);
export const tokenNotFound = (id: string) => notFound(`Token with ID ${id} does not exist.`);
