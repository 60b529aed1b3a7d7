import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(async () => {
  await server?.stop();
});

describe('jobs through the TypeScript SDK', () => {
  it('creates a job, runs it and waits through the SDK waiter, then finds it in the lists', async () => {
    const w = workspaceClient(server.url);
    const { job_id } = await w.jobs.create({
      name: 'ts-job',
      tasks: [
        {
          task_key: 'check',
          condition_task: { op: 'GREATER_THAN', left: '{{job.parameters.n}}', right: '1' },
        },
        {
          task_key: 'then',
          depends_on: [{ task_key: 'check', outcome: 'true' }],
          condition_task: { op: 'EQUAL_TO', left: 'a', right: 'a' },
        },
      ],
      parameters: [{ name: 'n', default: '2' }],
    });
    expect(typeof job_id).toBe('number');
    const waiter = await w.jobs.runNow({ job_id: job_id!, job_parameters: { n: '5' } });
    const run = await waiter.wait();
    expect(run.state?.life_cycle_state).toBe('TERMINATED');
    expect(run.state?.result_state).toBe('SUCCESS');
    expect(run.tasks?.map((t) => t.state?.result_state)).toEqual(['SUCCESS', 'SUCCESS']);
    const job = await w.jobs.get({ job_id: job_id! });
    expect(job.settings?.tasks?.[1]?.run_if).toBe('ALL_SUCCESS');
    const ids: number[] = [];
    for await (const j of w.jobs.list({})) ids.push(j.job_id!);
    expect(ids).toContain(job_id);
    const runs: number[] = [];
    for await (const r of w.jobs.listRuns({ job_id: job_id! })) runs.push(r.run_id!);
    expect(runs).toEqual([run.run_id]);
    await w.jobs.delete({ job_id: job_id! });
    await expect(w.jobs.get({ job_id: job_id! })).rejects.toThrow(/does not exist/);
  });
});
