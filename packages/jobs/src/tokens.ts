/**
 * Each run's own token: what its task processes call the server back with (DATABRICKS_TOKEN, the Unity
 * Catalog connector's token). With iam on it is a real token of the run's identity (`run_as`, else the
 * creator), minted through iam's Api, listed by the Tokens API while the run is active, and revoked when the
 * run ends; the run record keeps only its token_id, so a restart revokes the tokens of runs that died. With
 * iam off it is a random token nobody else knows. MiniLake does not check tokens yet; when it does, a run's
 * processes hold exactly one, valid for exactly as long as the run.
 */
import { randomBytes } from 'node:crypto';
import type { IamApi } from '@minilake/iam';
import type { RunRecord } from './store.js';

export interface RunTokens {
  issue(run: RunRecord): { value: string; tokenId?: string };
  revoke(tokenId: string | undefined): void;
}

/** How long a run's token lives at most: runs outlive no token, but a token forgotten by a crash expires. */
const DEFAULT_LIFETIME_SECONDS = 2 * 24 * 3600;

export function runTokens(iam: IamApi | undefined): RunTokens {
  return {
    issue(run) {
      if (!iam) return { value: `dapi${randomBytes(16).toString('hex')}` };
      const runAs = run.settings.run_as as
        { user_name?: string; service_principal_name?: string } | undefined;
      const principal = runAs?.service_principal_name
        ? { servicePrincipalName: runAs.service_principal_name }
        : { userName: runAs?.user_name ?? run.creator_user_name };
      const timeout = run.settings.timeout_seconds ?? 0;
      // A run with a timeout cannot need its token longer than that (plus its tasks' wind-down).
      const lifetimeSeconds =
        timeout > 0 ? Math.min(timeout + 600, DEFAULT_LIFETIME_SECONDS) : DEFAULT_LIFETIME_SECONDS;
      return iam.mintToken(principal, { lifetimeSeconds, comment: `Job run ${run.run_id}` });
    },
    revoke(tokenId) {
      if (tokenId !== undefined) iam?.revokeToken(tokenId);
    },
  };
}
