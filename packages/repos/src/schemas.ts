import { v } from '@minilake/core';

const sparse = v.object({ patterns: v.optional(v.array(v.string())) });

export const CreateRepoRequest = v.object({
  url: v.pipe(v.string('url is required'), v.minLength(1, 'url must not be empty')),
  provider: v.optional(v.string()),
  path: v.optional(v.string()),
  sparse_checkout: v.optional(sparse),
  git_credential_id: v.optional(v.number()),
});

export const UpdateRepoRequest = v.object({
  branch: v.optional(v.string()),
  tag: v.optional(v.string()),
  sparse_checkout: v.optional(sparse),
  // The Terraform provider moves a repo with a PATCH naming only its new path.
  path: v.optional(v.string()),
  git_credential_id: v.optional(v.number()),
  dangerously_force_discard_all: v.optional(v.boolean()),
});

export const ListReposRequest = v.object({
  path_prefix: v.optional(v.string()),
  next_page_token: v.optional(v.string()),
});

export const RepoIdParam = v.object({
  repo_id: v.pipe(v.string(), v.regex(/^\d{1,18}$/, 'repo_id must be a number')),
});
