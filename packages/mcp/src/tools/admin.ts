import * as z from 'zod';
import { anyList, DESTROY, READ, tool } from './define.js';

export const adminTools = [
  tool({
    name: 'health',
    title: 'Server health',
    description:
      'Is MiniLake up and ready? Returns the liveness status and the readiness check of every enabled service (data dir writable, engines usable).',
    needs: [],
    input: {},
    output: {
      status: z.string().describe('"ok" when the server answers'),
      ready: z.boolean().describe('true when every readiness check passed'),
      checks: z.record(z.string(), z.string()).describe('service name -> "ok" or what is wrong'),
    },
    hints: READ,
    async run(_args, { rest }) {
      const health = await rest.get<{ status: string }>('/_minilake/health');
      let ready = { status: 'not_ready', checks: {} as Record<string, string> };
      try {
        ready = await rest.get('/_minilake/ready');
      } catch {
        // 503 when not ready: report it, do not fail the tool
      }
      return { status: health.status, ready: ready.status === 'ready', checks: ready.checks ?? {} };
    },
  }),
  tool({
    name: 'list_services',
    title: 'List services',
    description:
      'The API groups this MiniLake serves (enabled) and every group it knows (available, with a description). A tool group appears only when its service is enabled.',
    needs: [],
    input: {},
    output: {
      enabled: z.array(z.string()).describe('names of the enabled services'),
      available: anyList('every known service: {name, description, enabled}'),
    },
    hints: READ,
    run: async (_args, { rest }) => rest.get('/_minilake/services'),
  }),
  tool({
    name: 'reset_state',
    title: 'Reset state',
    description:
      'Empties MiniLake: every catalog, table, file, job, warehouse, cluster and secret of the named services (all when none is named) is deleted. Use it to start an experiment from a clean workspace.',
    needs: [],
    input: {
      services: z
        .array(z.string())
        .optional()
        .describe('service names to reset (see list_services); all enabled services when omitted'),
    },
    output: { reset: z.array(z.string()).describe('the services that were reset') },
    hints: DESTROY,
    async run({ services }, { rest, fixtures }) {
      const r = await rest.post<{ reset: string[] }>(
        '/_minilake/reset',
        undefined,
        services && services.length ? { services: services.join(',') } : undefined,
      );
      fixtures.forget();
      return r;
    },
  }),
];
