import { defineService } from '@minilake/core';

export const reposService = defineService<undefined>({
  name: 'repos',
  description: 'Repos API (Git folders): real clones with git, workspace folders of type REPO, permissions',
  uses: ['workspace'],
  // With iam the repos permission type exists (404 for an unknown repo id; its creator can manage it).
  optionalUses: ['iam'],
  configDefaults: {
    // The longest a clone or fetch may take (seconds): a URL nobody answers is an error, not a hang.
    MINILAKE_REPOS_GIT_TIMEOUT: '60',
  },
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: ['/api/2.0/repos', '/api/2.0/permissions/repos'],
  async create(ctx) {
    return (await import('./create.js')).createRepos(ctx);
  },
});
