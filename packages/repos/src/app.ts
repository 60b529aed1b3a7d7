/**
 * Repos API (/api/2.0/repos): Git folders. Fidelity notes:
 * - A repo is a real clone (repos.ts) shown as a workspace folder of type REPO whose object_id is the repo id
 *   (the CLI finds a repo by path through workspace get-status).
 * - An unknown id is 404 RESOURCE_DOES_NOT_EXIST "Repo could not be found" (what the Terraform provider
 *   treats as gone); a URL git cannot clone is 400 INVALID_PARAMETER_VALUE with git's reason.
 * - `list` pages 20 repos by path with `next_page_token`; `path_prefix` is a string prefix (the SDK's doc),
 *   and without one it lists the /Repos tree.
 * - Permissions (/api/2.0/permissions/repos/<id>) are served by iam; this package registers the type.
 */
import { Hono } from 'hono';
import { readJson, readParams, readQuery } from '@minilake/core';
import type { Repos } from './repos.js';
import * as s from './schemas.js';

const BASE = '/api/2.0/repos';

export function reposApp(repos: Repos): Hono {
  const app = new Hono();
  app.post(BASE, async (c) => {
    const b = await readJson(c, s.CreateRepoRequest);
    return c.json(
      await repos.create({
        url: b.url,
        provider: b.provider,
        path: b.path,
        sparse: b.sparse_checkout?.patterns,
      }),
    );
  });
  app.get(BASE, (c) => {
    const q = readQuery(c, s.ListReposRequest);
    const page = repos.list(q.path_prefix, q.next_page_token);
    return c.json({
      ...(page.items.length ? { repos: page.items } : {}),
      ...(page.nextPageToken ? { next_page_token: page.nextPageToken } : {}),
    });
  });
  app.get(`${BASE}/:repo_id`, (c) => c.json(repos.get(Number(readParams(c, s.RepoIdParam).repo_id))));
  app.patch(`${BASE}/:repo_id`, async (c) => {
    const id = Number(readParams(c, s.RepoIdParam).repo_id);
    const b = await readJson(c, s.UpdateRepoRequest);
    return c.json(
      await repos.update(id, {
        branch: b.branch,
        tag: b.tag,
        sparse: b.sparse_checkout ? (b.sparse_checkout.patterns ?? []) : undefined,
        path: b.path,
      }),
    );
  });
  app.delete(`${BASE}/:repo_id`, async (c) => {
    await repos.delete(Number(readParams(c, s.RepoIdParam).repo_id));
    return c.json({});
  });
  return app;
}
