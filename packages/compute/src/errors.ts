import { DatabricksError, invalidParameter, notFound } from '@minilake/core';

/**
 * The Clusters API answers a missing cluster with 400 INVALID_PARAMETER_VALUE "Cluster <id> does not exist"
 * on every endpoint (clusters/get included): the SDKs and the Terraform provider match that message to turn
 * it into a not-found error, so the quirk is kept on purpose.
 */
export const clusterNotFound = (id: string) => invalidParameter(`Cluster ${id} does not exist`);

const titleCase = (state: string) => state.charAt(0) + state.slice(1).toLowerCase();
/** Real message shape: "Cluster 0308-101010-abcdefgh is in unexpected state Running." */
export const unexpectedState = (id: string, state: string) =>
  new DatabricksError(400, 'INVALID_STATE', `Cluster ${id} is in unexpected state ${titleCase(state)}.`);
/** The Terraform provider looks for "unpin the cluster first" in this message and unpins, then retries. */
export const pinnedCluster = (id: string) =>
  new DatabricksError(
    400,
    'INVALID_STATE',
    `Cluster ${id} is pinned and cannot be permanently deleted. Please unpin the cluster first.`,
  );
export const tooManyPinned = (max: number) =>
  invalidParameter(`Cannot pin more than ${max} clusters. Unpin a cluster first.`);
export const missingField = (field: string) => invalidParameter(`Missing required field: ${field}`);

export const policyNotFound = (id: string) => notFound(`Can't find a cluster policy with id: ${id}.`);
export const policyExists = (name: string) =>
  invalidParameter(`Cluster policy with name '${name}' already exists.`);
export const invalidDefinition = (why: string) => invalidParameter(`Invalid policy definition: ${why}.`);
export const policyViolation = (path: string, why: string) =>
  invalidParameter(`Validation failed for ${path}, ${why}.`);
export const invalidPolicyId = (id: string) =>
  invalidParameter(`Cluster policy ${id} does not exist or is not accessible.`);
export const policyFamilyNotFound = (id: string) => notFound(`Policy family ${id} does not exist.`);

export const poolNotFound = (id: string) => notFound(`Can't find an instance pool with id: ${id}.`);
export const poolDeleted = (id: string) =>
  invalidParameter(`Instance pool ${id} is deleted and cannot be used.`);

export const invalidLibrary = (why: string) => invalidParameter(`Invalid library specification: ${why}.`);
