/**
 * Jobs (Jobs API 2.2). Registered only when the `jobs` service is enabled. run_python_script folds the
 * five-call sequence (stage the file, submit a one-time run, poll, find the task run, read its output) into one.
 */
import * as z from 'zod';
import { compact, RestError } from '../rest.js';
import {
  anyList,
  anyObject,
  CREATE,
  DESTROY,
  DESTROY_ONCE,
  Failed,
  READ,
  tool,
  UPDATE,
  type ToolEnv,
} from './define.js';

const J = '/api/2.2/jobs';
const jobId = z.number().int().describe('job id');
const runId = z.number().int().describe('run id');

interface Run {
  run_id: number;
  state?: { life_cycle_state?: string; result_state?: string; state_message?: string };
  status?: { state?: string; termination_details?: { code?: string; message?: string } };
  tasks?: { run_id: number; task_key: string }[];
}

const TERMINAL = new Set(['TERMINATED', 'SKIPPED', 'INTERNAL_ERROR']);

/** Why a finished run failed, or undefined when it succeeded or is not finished. */
function failure(run: Pick<Run, 'state'>): string | undefined {
  const s = run.state;
  if (!TERMINAL.has(s?.life_cycle_state ?? '') || s?.result_state === 'SUCCESS') return undefined;
  return `The run ended ${[s?.life_cycle_state, s?.result_state].filter(Boolean).join(' / ')}${s?.state_message ? `: ${s.state_message}` : ''}`;
}
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The output of every task of a run (get-output answers per task run). */
async function runOutput(env: ToolEnv, run_id: number): Promise<Record<string, unknown>> {
  const run = await env.rest.get<Run>(`${J}/runs/get`, { run_id });
  const taskRuns = run.tasks && run.tasks.length > 0 ? run.tasks : [{ run_id, task_key: '' }];
  const outputs = [];
  for (const t of taskRuns) {
    try {
      const o = await env.rest.get<Record<string, unknown>>(`${J}/runs/get-output`, { run_id: t.run_id });
      outputs.push(
        compact({ task_key: t.task_key || undefined, run_id: t.run_id, ...o, metadata: undefined }),
      );
    } catch (e) {
      if (!(e instanceof RestError)) throw e;
      outputs.push({ task_key: t.task_key, run_id: t.run_id, error: `${e.errorCode}: ${e.message}` });
    }
  }
  return { run_id, state: run.state ?? {}, outputs };
}

const runOut = { run: anyObject.describe('Run (state, tasks, times)') };

export const jobsTools = [
  tool({
    name: 'create_job',
    title: 'Create job',
    description:
      'Creates a job from Jobs API 2.2 settings: name and tasks (spark_python_task, notebook_task, sql_task, ... with depends_on), plus any other JobSettings field (schedule, parameters, job_clusters, environments).',
    needs: ['jobs'],
    input: {
      name: z.string().min(1).describe('job name'),
      tasks: z.array(anyObject).min(1).describe('Task objects, each with a task_key'),
      settings: anyObject.optional().describe('other JobSettings fields, sent as given'),
    },
    output: { job_id: z.number() },
    hints: CREATE,
    async run({ name, tasks, settings }, { rest }) {
      const r = await rest.post<{ job_id: number }>(`${J}/create`, { ...settings, name, tasks });
      return { job_id: r.job_id };
    },
  }),
  tool({
    name: 'list_jobs',
    title: 'List jobs',
    description: 'Jobs, optionally those with a given name.',
    needs: ['jobs'],
    input: {
      name: z.string().optional().describe('exact job name filter'),
      limit: z.number().int().min(1).max(100).optional().describe('page size (default 25)'),
    },
    output: { jobs: anyList('BaseJob records'), has_more: z.boolean().optional() },
    hints: READ,
    async run({ name, limit }, { rest }) {
      const r = await rest.get<{ jobs?: unknown[]; has_more?: boolean }>(`${J}/list`, { name, limit });
      return compact({ jobs: r.jobs ?? [], has_more: r.has_more });
    },
  }),
  tool({
    name: 'get_job',
    title: 'Get job',
    description: 'One job with its settings.',
    needs: ['jobs'],
    input: { job_id: jobId },
    output: { job: anyObject.describe('Job') },
    hints: READ,
    run: async ({ job_id }, { rest }) => ({ job: await rest.get(`${J}/get`, { job_id }) }),
  }),
  tool({
    name: 'delete_job',
    title: 'Delete job',
    description: 'Deletes a job (its runs are no longer listed).',
    needs: ['jobs'],
    input: { job_id: jobId },
    output: { job_id: z.number(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ job_id }, { rest }) {
      await rest.post(`${J}/delete`, { job_id });
      return { job_id, deleted: true };
    },
  }),
  tool({
    name: 'run_job',
    title: 'Run job',
    description: 'Starts a run of a job now (run-now) and returns its run id; follow it with get_run.',
    needs: ['jobs'],
    input: {
      job_id: jobId,
      python_params: z.array(z.string()).optional().describe('arguments for spark_python_task tasks'),
      notebook_params: z.record(z.string(), z.string()).optional().describe('widgets for notebook tasks'),
      job_parameters: z.record(z.string(), z.string()).optional().describe('job-level parameters'),
    },
    output: { run_id: z.number(), number_in_job: z.number().optional() },
    hints: DESTROY_ONCE,
    async run(a, { rest }) {
      return rest.post(`${J}/run-now`, compact(a));
    },
  }),
  tool({
    name: 'get_run',
    title: 'Get run',
    description: 'One run: life cycle state, result state, its task runs.',
    needs: ['jobs'],
    input: { run_id: runId },
    output: runOut,
    hints: READ,
    run: async ({ run_id }, { rest }) => ({ run: await rest.get(`${J}/runs/get`, { run_id }) }),
  }),
  tool({
    name: 'get_run_output',
    title: 'Get run output',
    description:
      "The output of a run's tasks: logs (stdout), notebook_output, error and error_trace. A run that ended without success comes back with isError (and the same output).",
    needs: ['jobs'],
    input: { run_id: runId },
    output: { run_id: z.number(), state: anyObject, outputs: anyList('RunOutput per task run') },
    hints: READ,
    async run({ run_id }, env) {
      const out = await runOutput(env, run_id);
      const why = failure(out as Pick<Run, 'state'>);
      return why ? new Failed(out, why) : out;
    },
  }),
  tool({
    name: 'list_runs',
    title: 'List runs',
    description: 'Runs, most recent first; of one job when job_id is given.',
    needs: ['jobs'],
    input: {
      job_id: z.number().int().optional().describe('only the runs of this job'),
      active_only: z.boolean().optional().describe('only runs not yet terminated'),
      limit: z.number().int().min(1).max(25).optional().describe('page size (default 25)'),
    },
    output: { runs: anyList('Run records'), has_more: z.boolean().optional() },
    hints: READ,
    async run(a, { rest }) {
      const r = await rest.get<{ runs?: unknown[]; has_more?: boolean }>(`${J}/runs/list`, a);
      return compact({ runs: r.runs ?? [], has_more: r.has_more });
    },
  }),
  tool({
    name: 'cancel_run',
    title: 'Cancel run',
    description: 'Cancels a run (it ends TERMINATED with result CANCELED).',
    needs: ['jobs'],
    input: { run_id: runId },
    output: runOut,
    hints: UPDATE,
    async run({ run_id }, { rest }) {
      await rest.post(`${J}/runs/cancel`, { run_id });
      return { run: await rest.get(`${J}/runs/get`, { run_id }) };
    },
  }),
  tool({
    name: 'run_python_script',
    title: 'Run a Python script on Spark',
    description:
      'Stages a PySpark script in the workspace, submits it as a one-time run (spark_python_task on real Spark), waits for it and returns its stdout. A script that fails comes back with isError, its error and trace. `spark` and `dbutils` are available as on Databricks; read minilake://pyspark-guide.',
    needs: ['jobs', 'workspace'],
    input: {
      script: z.string().min(1).describe('Python source'),
      name: z.string().optional().describe('run name (default mcp-script)'),
      timeout_seconds: z.number().int().min(1).max(3600).describe('give up waiting after this many seconds'),
      delta: z.boolean().optional().describe('configure the Delta Lake extension in the Spark session'),
      packages: z
        .array(z.string())
        .optional()
        .describe('PyPI requirements to install, e.g. ["pandas==2.2.3"]'),
    },
    output: {
      run_id: z.number(),
      life_cycle_state: z.string(),
      result_state: z.string().optional(),
      stdout: z.string().describe('what the script printed'),
      error: z.string().optional().describe('the error when the script failed'),
      error_trace: z.string().optional(),
    },
    hints: DESTROY_ONCE,
    async run(a, env) {
      const runName = a.name ?? 'mcp-script';
      const dir = `/Users/${env.userName}/.minilake-mcp`;
      const file = `${dir}/${runName.replace(/[^A-Za-z0-9_.-]/g, '_')}-${Date.now().toString(36)}.py`;
      await env.rest.post('/api/2.0/workspace/mkdirs', { path: dir });
      await env.rest.post('/api/2.0/workspace/import', {
        path: file,
        format: 'RAW',
        content: Buffer.from(a.script, 'utf8').toString('base64'),
        overwrite: true,
      });
      const spark_conf: Record<string, string> = a.delta
        ? {
            'spark.sql.extensions': 'io.delta.sql.DeltaSparkSessionExtension',
            'spark.sql.catalog.spark_catalog': 'org.apache.spark.sql.delta.catalog.DeltaCatalog',
          }
        : {};
      const task = compact({
        task_key: 'script',
        spark_python_task: { python_file: `/Workspace${file}`, source: 'WORKSPACE' },
        libraries: a.packages?.map((p) => ({ pypi: { package: p } })),
        new_cluster: { spark_version: '15.4.x-scala2.12', num_workers: 0, spark_conf },
      });
      const { run_id } = await env.rest.post<{ run_id: number }>(`${J}/runs/submit`, {
        run_name: runName,
        timeout_seconds: a.timeout_seconds,
        tasks: [task],
      });
      const deadline = Date.now() + a.timeout_seconds * 1000;
      let run = await env.rest.get<Run>(`${J}/runs/get`, { run_id });
      while (!TERMINAL.has(run.state?.life_cycle_state ?? '') && Date.now() < deadline) {
        await pause(500);
        run = await env.rest.get<Run>(`${J}/runs/get`, { run_id });
      }
      const out = (await runOutput(env, run_id)).outputs as Record<string, unknown>[];
      const first = out[0] ?? {};
      const result = compact({
        run_id,
        life_cycle_state: run.state?.life_cycle_state ?? 'PENDING',
        result_state: run.state?.result_state,
        stdout: typeof first.logs === 'string' ? first.logs : '',
        error: (first.error as string | undefined) ?? run.state?.state_message,
        error_trace: first.error_trace as string | undefined,
      });
      const why = failure(run);
      return why ? new Failed(result, why) : result;
    },
  }),
];
