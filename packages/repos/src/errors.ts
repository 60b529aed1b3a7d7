import { alreadyExists, DatabricksError, invalidParameter } from '@minilake/core';

/** The Terraform provider maps this 404 to "gone" (its own fixtures record Databricks' text). */
export const repoNotFound = () =>
  new DatabricksError(404, 'RESOURCE_DOES_NOT_EXIST', 'Repo could not be found');
export const repoPathExists = (path: string) =>
  alreadyExists(
    `Repo ${path} already exists. If you would like to create two repos from the same remote Git repo, rename the first repo before creating the second.`,
  );
export const invalidProvider = (provider: string) =>
  invalidParameter(
    `Invalid Git provider '${provider}'. The supported providers are gitHub, bitbucketCloud, gitLab, azureDevOpsServices, gitHubEnterprise, bitbucketServer, gitLabEnterpriseEdition and awsCodeCommit.`,
  );
export const cloneFailed = (url: string, reason: string) =>
  invalidParameter(`Failed to clone repo ${url}: ${reason}`);
export const checkoutFailed = (what: string, reason: string) =>
  invalidParameter(`Failed to checkout ${what}: ${reason}`);
export const sparseNotEnabled = () =>
  invalidParameter(
    'Sparse checkout is not enabled for this repo: it can only be set when the repo is created.',
  );
export const badRepoPath = (path: string) =>
  invalidParameter(
    `Invalid repo path ${path}: a repo lives at /Repos/<folder>/<name> or in a folder of the workspace.`,
  );
