// The mixed workload of the load and soak scenarios (issue 30): N keep-alive clients, each calling in turn
// Unity Catalog reads, Unity Catalog writes, SQL statements (a read and an INSERT), Files API writes and reads,
// and jobs (create, get, list, delete: the control plane; runs would measure Spark, not MiniLake). Every answer
// is counted per kind, latency kept per kind; an error is any status >= 500, a dropped connection, or a 4xx
// the workload did not expect.
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { jsonCaller } from './lib.mjs';

/** Creates what the workload reads and writes: a catalog, schema, table, volume and a running warehouse. */
export async function prepare(url) {
  const { json, close } = jsonCaller(url);
  const uc = '/api/2.1/unity-catalog';
  await json('POST', `${uc}/catalogs`, { name: 'load' });
  await json('POST', `${uc}/schemas`, { catalog_name: 'load', name: 's' });
  await json('POST', `${uc}/volumes`, {
    catalog_name: 'load',
    schema_name: 's',
    name: 'v',
    volume_type: 'MANAGED',
  });
  const wh = (await json('POST', '/api/2.0/sql/warehouses', { name: 'load', cluster_size: 'Small' })).id;
  for (;;) {
    if ((await json('GET', `/api/2.0/sql/warehouses/${wh}`)).state === 'RUNNING') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await json('POST', '/api/2.0/sql/statements', {
    warehouse_id: wh,
    statement: 'CREATE TABLE load.s.t (id BIGINT, client INT)',
    wait_timeout: '30s',
  });
  close();
  return { wh };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0;

/**
 * Runs `clients` loops for `seconds`; `onTick` is called every second (RSS sampling). Returns per kind:
 * count, errors, p50 and p99 in ms, and the first errors seen.
 */
export async function runMix(url, { wh, clients, seconds, onTick }) {
  const u = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: clients });
  const stats = {};
  const samples = [];
  const call = (method, p, body, raw) =>
    new Promise((resolve) => {
      const t0 = process.hrtime.bigint();
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: p,
          method,
          agent,
          headers: {
            authorization: 'Bearer load',
            'content-type': raw ? 'application/octet-stream' : 'application/json',
          },
        },
        (res) => {
          const parts = [];
          res.on('data', (d) => parts.push(d));
          res.on('end', () =>
            resolve({
              status: res.statusCode,
              body: Buffer.concat(parts),
              ms: Number(process.hrtime.bigint() - t0) / 1e6,
            }),
          );
        },
      );
      req.on('error', (e) => resolve({ status: 0, body: Buffer.from(String(e)), ms: 0 }));
      req.end(raw ?? (body === undefined ? undefined : JSON.stringify(body)));
    });
  const note = (kind, r, ok) => {
    const s = (stats[kind] ??= { count: 0, errors: 0, ms: [], first_errors: [] });
    s.count++;
    s.ms.push(r.ms);
    if (!ok || r.status >= 500 || r.status === 0) {
      s.errors++;
      if (s.first_errors.length < 3) s.first_errors.push(`${r.status} ${r.body.toString().slice(0, 200)}`);
    }
  };
  const uc = '/api/2.1/unity-catalog';
  const kinds = [
    async () => {
      const r = await call('GET', `${uc}/tables/load.s.t`);
      note('uc_read', r, r.status === 200);
      const l = await call('GET', `${uc}/schemas?catalog_name=load`);
      note('uc_read', l, l.status === 200);
    },
    async (c, i) => {
      const name = `w${c}_${i}`;
      const r = await call('POST', `${uc}/schemas`, { catalog_name: 'load', name });
      note('uc_write', r, r.status === 200);
      const d = await call('DELETE', `${uc}/schemas/load.${name}`);
      note('uc_write', d, d.status === 200);
    },
    async (c, i) => {
      const statement = i % 2 ? `INSERT INTO load.s.t VALUES (${i}, ${c})` : 'SELECT count(*) FROM load.s.t';
      const r = await call('POST', '/api/2.0/sql/statements', {
        warehouse_id: wh,
        statement,
        wait_timeout: '30s',
      });
      const state = r.status === 200 ? JSON.parse(r.body.toString()).status?.state : undefined;
      note('statement', r, state === 'SUCCEEDED');
    },
    async (c, i) => {
      const p = `/api/2.0/fs/files/Volumes/load/s/v/c${c}/f${i % 4}.txt?overwrite=true`;
      const w = await call('PUT', p, undefined, Buffer.from(`client ${c} write ${i}\n`.repeat(64)));
      note('files', w, w.status === 204 || w.status === 200);
      const r = await call('GET', p.replace('?overwrite=true', ''));
      note('files', r, r.status === 200);
    },
    async (c, i) => {
      const made = await call('POST', '/api/2.2/jobs/create', {
        name: `load-${c}-${i}`,
        tasks: [{ task_key: 't', notebook_task: { notebook_path: '/Shared/none' } }],
      });
      note('jobs', made, made.status === 200);
      if (made.status !== 200) return;
      const id = JSON.parse(made.body.toString()).job_id;
      const g = await call('GET', `/api/2.2/jobs/get?job_id=${id}`);
      note('jobs', g, g.status === 200);
      const l = await call('GET', '/api/2.2/jobs/list?limit=5');
      note('jobs', l, l.status === 200);
      const d = await call('POST', '/api/2.2/jobs/delete', { job_id: id });
      note('jobs', d, d.status === 200);
    },
  ];
  const end = Date.now() + seconds * 1000;
  const ticker = setInterval(() => {
    samples.push(onTick?.());
  }, 1000);
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let i = 0; Date.now() < end; i++) await kinds[(c + i) % kinds.length](c, i);
    }),
  );
  clearInterval(ticker);
  agent.destroy();
  const out = {};
  for (const [kind, s] of Object.entries(stats)) {
    const sorted = s.ms.sort((a, b) => a - b);
    out[kind] = {
      count: s.count,
      errors: s.errors,
      per_s: +(s.count / seconds).toFixed(1),
      p50_ms: +pct(sorted, 50).toFixed(1),
      p99_ms: +pct(sorted, 99).toFixed(1),
      ...(s.first_errors.length ? { first_errors: s.first_errors } : {}),
    };
  }
  return { kinds: out, samples };
}

/** The server's resident set size now, in MB. */
export function rssMb(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

/** The workload on a started server (bench/lib.mjs startServer): prepared, run, its RSS sampled each second. */
export async function runMixOn(s, { clients, seconds }) {
  const { wh } = await prepare(s.url);
  const mix = await runMix(s.url, { wh, clients, seconds, onTick: () => rssMb(s.proc.pid) });
  return { ...mix, errors: Object.values(mix.kinds).reduce((n, k) => n + k.errors, 0) };
}
