/**
 * Snapshots of the whole MiniLake for an agent's experiment: take one, try anything, restore it. They are the
 * host's `/_minilake/snapshots` routes (records and the files MiniLake owns; not EXTERNAL locations).
 */
import * as z from 'zod';
import { anyList, CREATE, DESTROY, READ, tool } from './define.js';

const enc = encodeURIComponent;
const info = {
  name: z.string().describe('the snapshot name'),
  created_at: z.number().describe('when it was taken, epoch milliseconds'),
  size_bytes: z.number().describe('bytes of data copied'),
  services: z.array(z.string()).describe('the services it holds'),
};
const nameArg = z.string().describe('snapshot name (letters, digits, _ - .)');

export const snapshotTools = [
  tool({
    name: 'snapshot_state',
    title: 'Snapshot state',
    description:
      'Saves the whole MiniLake state under a name: catalogs and their table data, volumes, workspace and DBFS files, secrets, jobs, warehouses, clusters. Take one before an experiment and restore_state goes back to it. EXTERNAL table locations (files outside MiniLake) are not copied.',
    needs: [],
    input: { name: nameArg.optional().describe('snapshot name; a timestamped one when omitted') },
    output: info,
    hints: CREATE,
    run: ({ name }, { rest }) => rest.post('/_minilake/snapshots', name === undefined ? {} : { name }),
  }),
  tool({
    name: 'restore_state',
    title: 'Restore state',
    description:
      'Puts MiniLake back exactly as it was when the snapshot was taken: everything created, changed or deleted since is undone (running job runs end). The snapshot stays, so it can be restored again.',
    needs: [],
    input: { name: nameArg },
    output: info,
    hints: DESTROY,
    async run({ name }, { rest, fixtures }) {
      const r = await rest.post(`/_minilake/snapshots/${enc(name)}/restore`);
      fixtures.forget();
      return r;
    },
  }),
  tool({
    name: 'list_snapshots',
    title: 'List snapshots',
    description: 'The saved snapshots, oldest first, with their size and services.',
    needs: [],
    input: {},
    output: { snapshots: anyList('{name, created_at, size_bytes, services}') },
    hints: READ,
    run: (_args, { rest }) => rest.get('/_minilake/snapshots'),
  }),
  tool({
    name: 'delete_snapshot',
    title: 'Delete snapshot',
    description: 'Deletes a saved snapshot (the current state is not touched).',
    needs: [],
    input: { name: nameArg },
    output: { deleted: z.string().describe('the deleted snapshot') },
    hints: DESTROY,
    async run({ name }, { rest }) {
      await rest.delete(`/_minilake/snapshots/${enc(name)}`);
      return { deleted: name };
    },
  }),
];
