/**
 * /api/1.2 command execution (contexts and commands), as the Python SDK's `command_execution` and IDEs'
 * "run cell" call it. Fidelity notes:
 * - Field names are camelCase on this API (`clusterId`, `contextId`, `commandId`, `resultType`), as
 *   Databricks spells them; status values are capitalized (`Running`, `Finished`).
 * - A command whose code raised ends `Finished` with a result of type `error` (`summary`, `cause`), as
 *   Databricks reports it; `Error` is for a context that failed (its REPL could not start or died).
 * - python and sql run; scala and r answer 501 NOT_IMPLEMENTED.
 * - MINILAKE_AUTH=tokens: a context acts as the user who created it (its Spark session reads Unity Catalog
 *   with their token); any other caller's use of it is 403 PERMISSION_DENIED.
 */
import { Hono, type Context } from 'hono';
import { bearerToken, readJson, readQuery } from '@minilake/core';
import type { Contexts } from './contexts.js';
import * as s from './schemas.js';

const BASE = '/api/1.2';
const bearer = (c: Context) => bearerToken(c.req.header('authorization'));

export function connectApp(contexts: Contexts): Hono {
  const app = new Hono();
  app.post(`${BASE}/contexts/create`, async (c) => {
    const b = await readJson(c, s.CreateContext);
    // The bearer the host authenticated (MINILAKE_AUTH=tokens): what the context acts with.
    return c.json({ id: contexts.create(b.clusterId, b.language ?? 'python', bearer(c)) });
  });
  app.get(`${BASE}/contexts/status`, (c) => {
    const q = readQuery(c, s.ContextRef);
    return c.json(contexts.status(q.clusterId, q.contextId));
  });
  app.post(`${BASE}/contexts/destroy`, async (c) => {
    const b = await readJson(c, s.ContextRef);
    contexts.destroy(b.clusterId, b.contextId);
    return c.json({ id: b.contextId });
  });
  app.post(`${BASE}/commands/execute`, async (c) => {
    const b = await readJson(c, s.ExecuteCommand);
    // Its creator's bearer again, perhaps a newer one, which the context then acts with.
    return c.json({ id: contexts.execute(b.clusterId, b.contextId, b.language, b.command, bearer(c)) });
  });
  app.get(`${BASE}/commands/status`, (c) => {
    const q = readQuery(c, s.CommandRef);
    return c.json(contexts.commandStatus(q.clusterId, q.contextId, q.commandId));
  });
  app.post(`${BASE}/commands/cancel`, async (c) => {
    const b = await readJson(c, s.CommandRef);
    contexts.cancel(b.clusterId, b.contextId, b.commandId);
    return c.json({ id: b.commandId });
  });
  return app;
}
