import type { ServiceContext, ServiceInstance } from '@minilake/core';
import { iamService } from '@minilake/iam';
import { workspaceService } from '@minilake/workspace';
import { reposApp } from './app.js';
import { Repos } from './repos.js';
import { ReposStore } from './store.js';
import type { ReposSettings } from './index.js';

/** The service itself, imported by its definition's create (index.ts) when the host starts it. */
export function createRepos(ctx: ServiceContext<ReposSettings>): ServiceInstance<undefined> {
  const store = new ReposStore(ctx.state);
  const iam = ctx.optionalPeer(iamService);
  const repos = new Repos({
    store,
    workspace: ctx.peer(workspaceService),
    dir: ctx.dir,
    userName: ctx.identity.userName,
    gitTimeoutMs: ctx.settings.MINILAKE_REPOS_GIT_TIMEOUT * 1000,
    onDeleted: (id) => iam?.dropPermissions('repos', String(id)),
  });
  iam?.registerObjectType(
    {
      request: 'repos',
      objectType: 'repo',
      levels: ['CAN_READ', 'CAN_RUN', 'CAN_EDIT', 'CAN_MANAGE'],
      owner: 'CAN_MANAGE',
      admins: 'CAN_MANAGE',
    },
    { exists: (id) => repos.has(id), owner: (id) => repos.creator(id) },
  );
  return {
    app: reposApp(repos),
    state: [store],
    afterReset: () => repos.clear(),
    api: undefined,
  };
}
