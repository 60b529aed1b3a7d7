// Shared benchmark helpers: start the built server, drive it over loopback with keep-alive, measure.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const entry = process.env.MINILAKE_SERVER_ENTRY ?? path.join(root, 'apps/server/dist/cli.js');

export async function startServer(env = {}) {
  const t0 = performance.now();
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ml-bench-'));
  const proc = spawn(process.execPath, [entry, '--port', '0'], {
    env: {
      ...process.env,
      MINILAKE_DATA_DIR: dataDir,
      MINILAKE_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The port is chosen by the OS: read it from the start-up line.
  let out = '';
  const url = await new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d.toString();
      const m = /listening on (https?:\/\/\S+) /.exec(out);
      if (m) resolve(m[1]);
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.once('exit', (c) => reject(new Error(`server exited ${c}: ${out}`)));
  });
  for (;;) {
    const ok = await fetch(`${url}/_minilake/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 2));
  }
  const readyMs = performance.now() - t0;
  return {
    url,
    proc,
    readyMs,
    rssPeakMb: () => {
      const status = readFileSync(`/proc/${proc.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+)/.exec(status)[1]) / 1024;
    },
    dataDir,
    /** Everything the server has printed so far (its log lines). */
    output: () => out,
    // Stops the server and deletes its data folder (benchmarks leave nothing behind).
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null)
        await new Promise((r) => {
          proc.once('exit', r);
          proc.kill('SIGTERM');
        });
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Keep-alive load with `concurrency` requests in flight; returns throughput and latency percentiles. */
export function load(url, { requests = 20000, concurrency = 8, method = 'GET', body, headers = {} } = {}) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  const u = new URL(url);
  const latencies = new Float64Array(requests);
  let started = 0;
  let done = 0;
  let failures = 0;
  const t0 = performance.now();
  return new Promise((resolve) => {
    const one = () => {
      const i = started++;
      const s = performance.now();
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          method,
          agent,
          headers: {
            authorization: 'Bearer bench',
            ...(body ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
        },
        (res) => {
          if (res.statusCode >= 400) failures++;
          res.resume();
          res.on('end', () => {
            latencies[i] = performance.now() - s;
            done++;
            if (started < requests) one();
            else if (done === requests) finish();
          });
        },
      );
      req.end(typeof body === 'function' ? body(i) : body);
    };
    const finish = () => {
      const seconds = (performance.now() - t0) / 1000;
      agent.destroy();
      const sorted = Array.from(latencies).sort((a, b) => a - b);
      const pct = (p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
      resolve({
        requests,
        failures,
        rps: Math.round(requests / seconds),
        p50_ms: +pct(0.5).toFixed(3),
        p99_ms: +pct(0.99).toFixed(3),
      });
    };
    for (let k = 0; k < Math.min(concurrency, requests); k++) one();
  });
}

/** A bare node:http server answering the same bytes as /_minilake/health: the baseline for ratios. */
export function bareServer() {
  return new Promise((resolve) => {
    const server = http.createServer((_q, s) => {
      s.setHeader('content-type', 'application/json');
      s.end('{"status":"ok"}');
    });
    server.keepAliveTimeout = 65_000;
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${server.address().port}/`, close: () => server.close() }),
    );
  });
}

export const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** POST a JSON body with fetch; resolves with the JSON answer, throws on an error status. */
export const postJson = (url, body) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  }).then(async (r) => {
    if (!r.ok) throw new Error(`${url}: ${r.status} ${await r.text()}`);
    return r.json();
  });

/**
 * Keep-alive JSON calls against one server over node:http (cheaper per call than fetch, so round-trip
 * figures are the server's): `call` resolves with the raw body, `json` parses it; both throw on >= 400.
 */
export function jsonCaller(baseUrl, maxSockets = 4) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const call = (method, p, body) =>
    new Promise((resolve, reject) => {
      const u = new URL(p, baseUrl);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname + u.search,
          method,
          agent,
          headers: { 'content-type': 'application/json', authorization: 'Bearer bench' },
        },
        (res) => {
          const parts = [];
          res.on('data', (d) => parts.push(d));
          res.on('end', () => {
            const buf = Buffer.concat(parts);
            if (res.statusCode >= 400) reject(new Error(`${method} ${p}: ${res.statusCode} ${buf}`));
            else resolve(buf);
          });
        },
      );
      req.on('error', reject);
      req.end(body === undefined ? undefined : JSON.stringify(body));
    });
  const json = async (method, p, body) => JSON.parse((await call(method, p, body)).toString());
  return { call, json, close: () => agent.destroy() };
}
