/**
 * Secrets: a value goes in (put_secret) and never comes out. No tool returns or logs a secret value; list
 * tools return keys and timestamps only, as the REST API does.
 */
import * as z from 'zod';
import { compact } from '../rest.js';
import { anyList, CREATE, DESTROY, READ, tool } from './define.js';

const S = '/api/2.0/secrets';
const scope = z.string().min(1).describe('secret scope name');

export const secretsTools = [
  tool({
    name: 'create_secret_scope',
    title: 'Create secret scope',
    description: 'Creates a secret scope (MiniLake-backed).',
    needs: ['secrets'],
    input: { scope },
    output: { scope: z.string(), created: z.boolean() },
    hints: CREATE,
    async run({ scope }, { rest }) {
      await rest.post(`${S}/scopes/create`, { scope });
      return { scope, created: true };
    },
  }),
  tool({
    name: 'list_secret_scopes',
    title: 'List secret scopes',
    description: 'Every secret scope.',
    needs: ['secrets'],
    input: {},
    output: { scopes: anyList('SecretScope records {name, backend_type}') },
    hints: READ,
    async run(_a, { rest }) {
      const r = await rest.get<{ scopes?: unknown[] }>(`${S}/scopes/list`);
      return { scopes: r.scopes ?? [] };
    },
  }),
  tool({
    name: 'delete_secret_scope',
    title: 'Delete secret scope',
    description: 'Deletes a scope with all its secrets.',
    needs: ['secrets'],
    input: { scope },
    output: { scope: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ scope }, { rest }) {
      await rest.post(`${S}/scopes/delete`, { scope });
      return { scope, deleted: true };
    },
  }),
  tool({
    name: 'put_secret',
    title: 'Put secret',
    description:
      'Stores a secret (encrypted at rest). The value is write-only: no tool returns it; jobs read it with dbutils.secrets.get or {{secrets/scope/key}}.',
    needs: ['secrets'],
    input: {
      scope,
      key: z.string().min(1).describe('secret key'),
      string_value: z.string().describe('the secret value (never echoed back)'),
    },
    output: { scope: z.string(), key: z.string(), stored: z.boolean() },
    hints: DESTROY,
    async run({ scope, key, string_value }, { rest }) {
      await rest.post(`${S}/put`, { scope, key, string_value });
      return { scope, key, stored: true };
    },
  }),
  tool({
    name: 'list_secrets',
    title: 'List secrets',
    description: 'The keys in a scope with their last update time (never the values).',
    needs: ['secrets'],
    input: { scope },
    output: { secrets: anyList('SecretMetadata records {key, last_updated_timestamp}') },
    hints: READ,
    async run({ scope }, { rest }) {
      const r = await rest.get<{ secrets?: Record<string, unknown>[] }>(`${S}/list`, { scope });
      // Only metadata, whatever the route might add.
      return {
        secrets: (r.secrets ?? []).map((s) =>
          compact({ key: s.key, last_updated_timestamp: s.last_updated_timestamp }),
        ),
      };
    },
  }),
  tool({
    name: 'delete_secret',
    title: 'Delete secret',
    description: 'Deletes one secret.',
    needs: ['secrets'],
    input: { scope, key: z.string().min(1).describe('secret key') },
    output: { scope: z.string(), key: z.string(), deleted: z.boolean() },
    hints: DESTROY,
    async run({ scope, key }, { rest }) {
      await rest.post(`${S}/delete`, { scope, key });
      return { scope, key, deleted: true };
    },
  }),
];
