/** Query history keeps the latest 10,000 records; older ones are evicted, paging stays consistent. */
import { describe, expect, it } from 'vitest';
import { StateDb } from '@minilake/core';
import { QueryHistoryStore, type QueryRecord } from '../src/history.js';

const record = (i: number) =>
  ({
    query_id: `q${i}`,
    status: 'FINISHED',
    query_text: `SELECT ${i}`,
    query_start_time_ms: i,
  }) as QueryRecord;

describe('query history eviction', () => {
  it('keeps the latest 10,000 records across many evictions, newest first', () => {
    const h = new QueryHistoryStore(StateDb.memory());
    const total = 25_007;
    for (let i = 0; i < total; i++) {
      h.put(record(i));
      h.put({ ...record(i), status: 'RUNNING' }); // updates do not count as new records
    }
    expect(h.get(`q${total - 10_001}`)).toBeUndefined();
    expect(h.get(`q${total - 10_000}`)?.status).toBe('RUNNING');
    const first = h.list({}, 1000, undefined, false);
    expect(first.res[0]!.query_id).toBe(`q${total - 1}`);
    expect(first.res.length).toBe(1000);
    let seen = first.res.length;
    let token = first.next_page_token;
    let last = first.res.at(-1)!.query_id;
    while (token) {
      const page = h.list({}, 1000, token, false);
      seen += page.res.length;
      last = page.res.at(-1)?.query_id ?? last;
      token = page.next_page_token;
    }
    expect(seen).toBe(10_000);
    expect(last).toBe(`q${total - 10_000}`);
  });
});

describe('query history in a snapshot', () => {
  it('lists the records as they were at the snapshot after a restore (the restore replaced an empty list)', async () => {
    const h = new QueryHistoryStore(StateDb.memory());
    h.put(record(1));
    h.put(record(2));
    const snap = h.snapshot();
    h.put(record(3));
    await h.reset();
    h.restore(snap);
    expect(h.list({}, 10, undefined, false).res.map((q) => q.query_id)).toEqual(['q2', 'q1']);
    h.put(record(4));
    expect(h.list({}, 10, undefined, false).res.map((q) => q.query_id)).toEqual(['q4', 'q2', 'q1']);
  });
});
