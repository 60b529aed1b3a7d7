import { defineService, switchSetting, type SettingsOf } from '@minilake/core';

/** What other services (jobs) may use: resolve `{{secrets/scope/key}}` references and read values. */
export interface SecretsApi {
  resolveReferences(text: string): string;
  readSecret(scope: string, key: string): Buffer;
}

export const secretsSettings = {
  MINILAKE_SECRETS_WRITE_ONLY: switchSetting({
    doc:
      '`1` makes secret values write-only over REST: `GET /api/2.0/secrets/get` answers 403 (jobs still read ' +
      'them). By default it returns the value, as Databricks does.',
    default: '0',
  }),
};
export type SecretsSettings = SettingsOf<typeof secretsSettings>;

export const secretsService = defineService<SecretsApi, typeof secretsSettings>({
  name: 'secrets',
  description: 'Secrets API: scopes, secrets encrypted at rest, ACLs (enforced with MINILAKE_ENFORCE=1)',
  settings: secretsSettings,
  // With iam, scope ACLs are checked (MINILAKE_ENFORCE=1) and a scope's creator is the request's principal.
  optionalUses: ['iam'],
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: ['/api/2.0/secrets'],
  async create(ctx) {
    return (await import('./create.js')).createSecrets(ctx);
  },
});
