// Files API throughput: PUT and GET of a 1 GiB file under /Volumes through
// /api/2.0/fs/files/Volumes/..., against a plain copy of the same file on the same disk (`cp`), run in the
// same process. The server's RSS (VmRSS from /proc/<pid>/status) is sampled every 20 ms during each transfer.
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { median, startServer, postJson as post } from '../lib.mjs';

export const targets = {
  upload_vs_cp_ratio: 'report (Files API MB/s / cp MB/s)',
  download_vs_cp_ratio: 'report',
  rss_during_transfer_mb: 'bounded (streamed, not buffered)',
};

const SIZE = Number(process.env.BENCH_FILE_BYTES ?? 2 ** 30);
const ROUNDS = Number(process.env.BENCH_FILE_ROUNDS ?? 3);

function rssSampler(pid) {
  let peak = 0;
  const samples = [];
  const read = () => {
    try {
      const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]);
      samples.push(kb / 1024);
      peak = Math.max(peak, kb / 1024);
    } catch {
      /* the process is gone */
    }
  };
  read();
  const timer = setInterval(read, 20);
  return () => {
    clearInterval(timer);
    read();
    return { peak_mb: +peak.toFixed(1), median_mb: +median(samples).toFixed(1) };
  };
}

function request(url, method, { body, sink } = {}) {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname + u.search,
        method,
        headers: {
          authorization: 'Bearer bench',
          ...(body ? { 'content-type': 'application/octet-stream', 'content-length': SIZE } : {}),
        },
      },
      async (res) => {
        try {
          if (res.statusCode >= 400) {
            let t = '';
            for await (const d of res) t += d;
            throw new Error(`${method} ${url}: ${res.statusCode} ${t}`);
          }
          if (sink) await pipeline(res, sink);
          else res.resume().on('end', () => undefined);
          await new Promise((r) => (res.readableEnded ? r() : res.on('end', r)));
          resolve(res.statusCode);
        } catch (e) {
          reject(e);
        }
      },
    );
    req.on('error', reject);
    if (body) pipeline(body, req).catch(reject);
    else req.end();
  });
}

const mbps = (ms) => +(SIZE / 2 ** 20 / (ms / 1000)).toFixed(1);

export async function run() {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'ml-bench-files-'));
  const src = path.join(tmp, 'src.bin');
  const s = await startServer();
  const uc = `${s.url}/api/2.1/unity-catalog`;
  try {
    // Random bytes (not a sparse or zero file) so nothing can short-cut the copy.
    execFileSync('sh', ['-c', `head -c ${SIZE} /dev/urandom > "$0"`, src]);
    if (statSync(src).size !== SIZE) throw new Error('could not write the source file');
    await post(`${uc}/catalogs`, { name: 'bench' });
    await post(`${uc}/volumes`, {
      catalog_name: 'bench',
      schema_name: 'default',
      name: 'v',
      volume_type: 'MANAGED',
    });
    const fileUrl = `${s.url}/api/2.0/fs/files/Volumes/bench/default/v/big.bin`;
    const cp = [];
    const up = [];
    const down = [];
    const rssUp = [];
    const rssDown = [];
    for (let round = 0; round < ROUNDS; round++) {
      let t0 = performance.now();
      execFileSync('cp', [src, path.join(tmp, 'copy.bin')]);
      cp.push(performance.now() - t0);
      rmSync(path.join(tmp, 'copy.bin'), { force: true });

      let stop = rssSampler(s.proc.pid);
      t0 = performance.now();
      await request(`${fileUrl}?overwrite=true`, 'PUT', {
        body: createReadStream(src, { highWaterMark: 1 << 20 }),
      });
      up.push(performance.now() - t0);
      rssUp.push(stop());

      const dst = path.join(tmp, 'down.bin');
      stop = rssSampler(s.proc.pid);
      t0 = performance.now();
      await request(fileUrl, 'GET', { sink: createWriteStream(dst, { highWaterMark: 1 << 20 }) });
      down.push(performance.now() - t0);
      rssDown.push(stop());
      if (statSync(dst).size !== SIZE) throw new Error(`downloaded ${statSync(dst).size} bytes`);
      rmSync(dst, { force: true });
    }
    const cpMs = median(cp);
    const upMs = median(up);
    const downMs = median(down);
    return {
      file_bytes: SIZE,
      rounds: ROUNDS,
      cp_ms_median: +cpMs.toFixed(0),
      cp_mb_per_s: mbps(cpMs),
      upload_ms_median: +upMs.toFixed(0),
      upload_mb_per_s: mbps(upMs),
      upload_vs_cp_ratio: +(cpMs / upMs).toFixed(2),
      download_ms_median: +downMs.toFixed(0),
      download_mb_per_s: mbps(downMs),
      download_vs_cp_ratio: +(cpMs / downMs).toFixed(2),
      upload_all_ms: up.map((x) => +x.toFixed(0)),
      download_all_ms: down.map((x) => +x.toFixed(0)),
      cp_all_ms: cp.map((x) => +x.toFixed(0)),
      server_rss_during_upload: {
        peak_mb: Math.max(...rssUp.map((r) => r.peak_mb)),
        median_mb: median(rssUp.map((r) => r.median_mb)),
      },
      server_rss_during_download: {
        peak_mb: Math.max(...rssDown.map((r) => r.peak_mb)),
        median_mb: median(rssDown.map((r) => r.median_mb)),
      },
      server_peak_rss_mb_vmhwm: +s.rssPeakMb().toFixed(1),
    };
  } finally {
    await s.stop();
    rmSync(tmp, { recursive: true, force: true });
  }
}
