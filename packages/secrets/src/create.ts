import { permissionDenied, type ServiceContext, type ServiceInstance } from '@minilake/core';
import { iamService } from '@minilake/iam';
import { secretsApp } from './app.js';
import { SecretsStore, type AclPermission } from './store.js';
import type { SecretsApi, SecretsSettings } from './index.js';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createSecrets(ctx: ServiceContext<SecretsSettings>): ServiceInstance<SecretsApi> {
  // The key sits beside the state it seals (the host's state folder, where it has always been), so the
  // two move together; with persistence off there is no folder and the key lives only in memory.
  const store = new SecretsStore(ctx.state, {
    clock: ctx.clock,
    owner: ctx.identity.userName,
    ...(ctx.state.dir ? { keyDir: ctx.state.dir } : {}),
  });
  const iam = ctx.optionalPeer(iamService);
  const ORDER: readonly AclPermission[] = ['READ', 'WRITE', 'MANAGE'];
  const access = iam && {
    check(scope: string, level: AclPermission) {
      const acl = store.listAcls(scope).map((a) => ({ principal: a.principal, level: a.permission }));
      if (!iam.holdsIn(acl, ORDER, level))
        // Databricks' wording, quoted in paiqo/Databricks-VSCode#43 (the caller unprefixed, the level as the
        // ACL names it, then "to perform this action.").
        throw permissionDenied(
          `${ctx.principal().userName} does not have ${level} permission on scope ${scope} to perform this action.`,
        );
    },
    caller: () => ctx.principal().userName,
  };
  return {
    app: secretsApp(store, {
      writeOnly: ctx.settings.MINILAKE_SECRETS_WRITE_ONLY,
      ...(access ? { access } : {}),
    }),
    state: [store],
    api: {
      resolveReferences: (text) => store.resolveReferences(text),
      readSecret: (scope, key) => store.readSecret(scope, key),
    },
  };
}
