import { defineService, numberSetting, type SettingsOf } from '@minilake/core';

export const reposSettings = {
  MINILAKE_REPOS_GIT_TIMEOUT: numberSetting({
    doc: 'Seconds a Git folder clone or fetch may take: a URL nobody answers is an error, not a hang.',
    default: 60,
    positive: true,
  }),
};
export type ReposSettings = SettingsOf<typeof reposSettings>;

export const reposService = defineService<undefined, typeof reposSettings>({
  name: 'repos',
  description: 'Repos API (Git folders): real clones with git, workspace folders of type REPO, permissions',
  uses: ['workspace'],
  // With iam the repos permission type exists (404 for an unknown repo id; its creator can manage it).
  optionalUses: ['iam'],
  settings: reposSettings,
  // Started on the first request to these (see ServiceDefinition.paths): its code loads then.
  paths: ['/api/2.0/repos', '/api/2.0/permissions/repos'],
  async create(ctx) {
    return (await import('./create.js')).createRepos(ctx);
  },
});
