import { defineService } from '@minilake/core';
import { secretsApp } from './app.js';
import { SecretsStore } from './store.js';

export { SecretsStore, secretValue } from './store.js';
export { secretsApp } from './app.js';

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
  create(ctx) {
    // The key sits beside the state it seals (the host's state folder, where it has always been), so the
    // two move together; with persistence off there is no folder and the key lives only in memory.
    const store = new SecretsStore(ctx.state, {
      clock: ctx.clock,
      owner: ctx.identity.userName,
      ...(ctx.state.dir ? { keyDir: ctx.state.dir } : {}),
    });
    return {
      app: secretsApp(store, { writeOnly: ctx.config.MINILAKE_SECRETS_WRITE_ONLY === '1' }),
      state: [store],
      api: {
        resolveReferences: (text) => store.resolveReferences(text),
        readSecret: (scope, key) => store.readSecret(scope, key),
      },
    };
  },
});
