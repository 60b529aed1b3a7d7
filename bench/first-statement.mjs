// The first statement after ready (issue 16): start -> /_minilake/ready, then (unless WH names a warehouse,
// e.g. WH=dev) create a warehouse and, with WAIT=1, wait until it is RUNNING; then the first `SELECT 1`, the
// same again, and two new texts; the server's CPU (all threads, from /proc) for each step, and RSS/VmHWM 2 s
// later (SETTLE ms). One line per start.
// usage: node bench/first-statement.mjs [ENTRY] [ROUNDS]   (MINILAKE_* in the environment reach the server;
//        NODE_ARGS="--cpu-prof" passes node flags)
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const entry = path.resolve(process.argv[2] ?? 'apps/server/dist/cli.js');
const rounds = Number(process.argv[3] ?? 1);
const nodeArgs = (process.env.NODE_ARGS ?? '').split(' ').filter(Boolean);

const freePort = () =>
  new Promise((resolve) => {
    const s = net.createServer().listen(0, '127.0.0.1', () => {
      const p = s.address().port;
      s.close(() => resolve(p));
    });
  });

async function once() {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-first-'));
  const t0 = performance.now();
  const child = spawn(process.execPath, [...nodeArgs, entry, '--port', String(port)], {
    env: { MINILAKE_LOG_LEVEL: 'warn', ...process.env, MINILAKE_DATA_DIR: dataDir },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const stat = () => readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpu = () => (Number(stat()[11]) + Number(stat()[12])) * 10;
  const status = (k) =>
    Math.round(
      Number(new RegExp(`${k}:\\s+(\\d+)`).exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))[1]) / 1024,
    );
  const out = [];
  for (;;) {
    try {
      if ((await fetch(`${url}/_minilake/ready`)).ok) break;
    } catch {}
    await new Promise((r) => setTimeout(r, 5));
  }
  out.push(`ready ${Math.round(performance.now() - t0)} ms cpu ${cpu()} rss ${status('VmRSS')}`);
  const post = async (p, b) =>
    (
      await fetch(url + p, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(b),
      })
    ).json();
  const timed = async (label, f) => {
    const c0 = cpu();
    const a = performance.now();
    const r = await f();
    out.push(`${label} ${Math.round(performance.now() - a)} ms cpu+${cpu() - c0}`);
    return r;
  };
  let wh = process.env.WH;
  if (!wh) {
    wh = (await timed('create', () => post('/api/2.0/sql/warehouses', { name: 'w', cluster_size: 'Small' })))
      .id;
    if (process.env.WAIT === '1')
      await timed('running', async () => {
        while ((await (await fetch(`${url}/api/2.0/sql/warehouses/${wh}`)).json()).state !== 'RUNNING')
          await new Promise((r) => setTimeout(r, 20));
      });
  }
  const st = (statement) =>
    post('/api/2.0/sql/statements', { warehouse_id: wh, statement, wait_timeout: '30s' });
  const first = await timed('select1', () => st('SELECT 1'));
  if (first.status?.state !== 'SUCCEEDED') out.push(JSON.stringify(first));
  await timed('again', () => st('SELECT 1'));
  await timed('new', () => st("SELECT 2 AS y, 'a' || 'b'"));
  await timed('new2', () => st("SELECT current_date() AS d, upper('x') AS u"));
  await new Promise((r) => setTimeout(r, Number(process.env.SETTLE ?? 2000)));
  out.push(`rss ${status('VmRSS')} hwm ${status('VmHWM')} cpu ${cpu()}`);
  child.kill('SIGTERM');
  await new Promise((r) => child.on('exit', r));
  rmSync(dataDir, { recursive: true, force: true });
  console.log(out.join(' | '));
}

console.log(
  `load average ${os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')}`,
);
for (let i = 0; i < rounds; i++) await once();
