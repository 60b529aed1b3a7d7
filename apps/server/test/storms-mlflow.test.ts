/**
 * Issue 30, the concurrency storm on MLflow experiments (one name, created / tagged / deleted / read by 24
 * clients at once), through MiniLake's MLflow service and the real MLflow server it runs. A file of its own:
 * the MLflow server takes seconds to start (up to a minute on a loaded machine), which would push the other
 * storms' file past its bound. Skipped, saying why, without the MLflow install. Why in process: ./storm.ts.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, it } from 'vitest';
import { installDir } from '@minilake/mlflow';
import { createMinilake, parseConfig, type Minilake } from '../src/index.js';
import { call, idsOf, newTally, ok, runIdStorm, type Answer, type Json } from './storm.js';

const seed = Number(process.env.STORM_SEED ?? 30);
const figures: string[] = [];
let ml: Minilake;
beforeAll(async () => {
  ml = await createMinilake(parseConfig({ MINILAKE_SERVICES: 'mlflow', MINILAKE_LOG_LEVEL: 'silent' }));
});
afterAll(async () => {
  console.log(figures.join('\n'));
  await ml?.close();
});

const mlflowPython = path.join(installDir(parseConfig({}).cacheDir), 'venv', 'bin', 'python');
it.skipIf(!existsSync(mlflowPython))(
  'MLflow experiments (skipped without the MLflow install: bash packages/mlflow/install.sh)',
  async () => {
    const M = '/api/2.0/mlflow/experiments';
    const name = '/Users/dev@minilake.local/storm-experiment';
    const live = (a: Answer) => ok(a) && a.body.experiment?.lifecycle_stage === 'active';
    // The MLflow server starts on the first request that needs it (seconds): before the storm's clock.
    await call(ml, newTally(), 'warm', 'GET', `${M}/get-by-name?experiment_name=${encodeURIComponent(name)}`);
    await runIdStorm(
      ml,
      'mlflow experiments',
      {
        async create(t) {
          const a = await call(ml, t, 'create', 'POST', `${M}/create`, { name });
          if (ok(a)) return { a, id: a.body.experiment_id as string };
          return { a };
        },
        ops: [
          async (id, t) => ({ a: await call(ml, t, 'get', 'GET', `${M}/get?experiment_id=${id}`) }),
          async (id, t, r) => ({
            a: await call(ml, t, 'tag', 'POST', `${M}/set-experiment-tag`, {
              experiment_id: id,
              key: 'k',
              value: String(r()),
            }),
          }),
          async (id, t) => ({
            a: await call(ml, t, 'delete', 'POST', `${M}/delete`, { experiment_id: id }),
            deletes: true,
          }),
          async (_id, t) => ({
            a: await call(
              ml,
              t,
              'get-by-name',
              'GET',
              `${M}/get-by-name?experiment_name=${encodeURIComponent(name)}`,
            ),
          }),
        ],
        get: async (id, t) => live(await call(ml, t, 'get', 'GET', `${M}/get?experiment_id=${id}`)),
        list: async (t) => {
          const r = await call(ml, t, 'list', 'POST', `${M}/search`, { max_results: 1000 });
          return idsOf((r.body.experiments ?? []) as Json[], 'experiment_id');
        },
      },
      { seed, figures },
    );
  },
  120_000,
);
