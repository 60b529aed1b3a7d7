import { defineService } from '@minilake/core';

/** What other services (jobs) may use: resolve `{{secrets/scope/key}}` references and read values. */
export interface SecretsApi {
  resolveReferences(text: string): string;
  readSecret(scope: string, key: string): Buffer;
}

export const secretsService = defineService<SecretsApi>({
  name: 'secrets',
  description: 'Secrets API: scopes, secrets encrypted at rest, ACLs (stored, not enforced)',
  configDefaults: {
    // 1: `GET secrets/get` answers 403 as the seeds had it, and values are readable only by jobs.
    MINILAKE_SECRETS_WRITE_ONLY: '0',
  },
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: ['/api/2.0/secrets'],
  async create(ctx) {
    return (await import('./create.js')).createSecrets(ctx);
  },
});
