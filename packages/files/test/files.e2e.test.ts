import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ApiError,
  ReadableStream as SdkReadableStream,
  type WorkspaceClient,
} from '@databricks/sdk-experimental';
import { startServer, uniqueName, workspaceClient, type RunningServer } from '@minilake/testing';

let server: RunningServer;
let w: WorkspaceClient;
let catalog: string;
beforeAll(async () => {
  server = await startServer();
  w = workspaceClient(server.url);
  catalog = uniqueName('fcat');
  await w.catalogs.create({ name: catalog });
  await w.volumes.create({
    catalog_name: catalog,
    schema_name: 'default',
    name: 'vol',
    volume_type: 'MANAGED',
  });
});
afterAll(async () => {
  await server?.stop();
});

const vol = () => `/Volumes/${catalog}/default/vol`;

async function drain(stream: unknown): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

/** The SDK's files.upload sends no body (0.17.0): the supported way is apiClient.request with its ReadableStream. */
async function upload(path: string, bytes: Buffer, overwrite = true): Promise<void> {
  await w.apiClient.request({
    path: `/api/2.0/fs/files${path}`,
    method: 'PUT',
    headers: new Headers({ 'Content-Type': 'application/octet-stream' }),
    query: { overwrite },
    payload: new SdkReadableStream({
      start(controller) {
        controller.enqueue(new Uint8Array(bytes));
        controller.close();
      },
    }),
    raw: false,
  });
}

describe('the TypeScript SDK against DBFS and the Files API', () => {
  it('uploads through apiClient.request and downloads through files.download', async () => {
    const bytes = Buffer.from('streamed through the TS SDK\n');
    await upload(`${vol()}/ts/a.txt`, bytes);
    const res = await w.files.download({ file_path: `${vol()}/ts/a.txt` });
    expect(Number(res['content-length'])).toBe(bytes.length);
    expect(res['content-type']).toBe('application/octet-stream');
    expect(res['last-modified']).toBeTruthy();
    expect(await drain(res.contents)).toEqual(bytes);
    const meta = await w.files.getMetadata({ file_path: `${vol()}/ts/a.txt` });
    expect(Number(meta['content-length'])).toBe(bytes.length);
    const entries = [];
    for await (const e of w.files.listDirectoryContents({ directory_path: `${vol()}/ts` })) entries.push(e);
    expect(entries).toMatchObject([{ name: 'a.txt', is_directory: false, file_size: bytes.length }]);
  });

  it('documents the SDK quirk: files.upload sends an empty body', async () => {
    await w.files.upload({ file_path: `${vol()}/quirk.txt`, contents: 'ignored' as never, overwrite: true });
    const res = await w.files.download({ file_path: `${vol()}/quirk.txt` });
    expect(Number(res['content-length'])).toBe(0);
  });

  it('answers 404 for a volume that does not exist', async () => {
    const err = await upload(`/Volumes/${catalog}/default/novol/x`, Buffer.from('x')).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).statusCode).toBe(404);
  });

  it('drives DBFS: put, read, get-status, list, handles, delete', async () => {
    await w.dbfs.put({
      path: '/ts/x.txt',
      contents: Buffer.from('dbfs bytes').toString('base64'),
      overwrite: true,
    });
    const read = await w.dbfs.read({ path: '/ts/x.txt', offset: 5, length: 100 });
    expect(Buffer.from(read.data!, 'base64').toString()).toBe('bytes');
    expect(await w.dbfs.getStatus({ path: 'dbfs:/ts/x.txt' })).toMatchObject({
      is_dir: false,
      file_size: 10,
    });
    const { handle } = await w.dbfs.create({ path: '/ts/h.bin', overwrite: true });
    await w.dbfs.addBlock({ handle: handle!, data: Buffer.from('part1').toString('base64') });
    await w.dbfs.addBlock({ handle: handle!, data: Buffer.from('part2').toString('base64') });
    await w.dbfs.close({ handle: handle! });
    expect(await readFile(`${server.dataDir}/dbfs/root/ts/h.bin`, 'utf8')).toBe('part1part2');
    const names = [];
    for await (const f of w.dbfs.list({ path: '/ts' })) names.push(f.path);
    expect(names).toEqual(['/ts/h.bin', '/ts/x.txt']);
    await w.dbfs.delete({ path: '/ts', recursive: true });
    const err = await w.dbfs.getStatus({ path: '/ts' }).catch((e: unknown) => e);
    expect((err as ApiError).errorCode).toBe('RESOURCE_DOES_NOT_EXIST');
  });

  it('streams a multipart dbfs/put to disk', async () => {
    const bytes = Buffer.alloc(5 * 1024 * 1024 + 11, 'q');
    const form = new FormData();
    form.set('path', 'dbfs:/mp/big.bin');
    form.set('overwrite', 'true');
    form.set('contents', new Blob([bytes]), 'big.bin');
    const res = await fetch(`${server.url}/api/2.0/dbfs/put`, { method: 'POST', body: form });
    expect(res.status).toBe(200);
    expect((await readFile(`${server.dataDir}/dbfs/root/mp/big.bin`)).equals(bytes)).toBe(true);
    const again = await fetch(`${server.url}/api/2.0/dbfs/put`, {
      method: 'POST',
      body: (() => {
        const f = new FormData();
        f.set('path', '/mp/big.bin');
        f.set('contents', new Blob([Buffer.from('x')]), 'x');
        return f;
      })(),
    });
    expect(again.status).toBe(409);
  });

  it('refuses raw dot segments that the URL parser would fold away', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const u = new URL(server.url);
      const req = http.request(
        {
          host: u.hostname,
          port: u.port,
          method: 'GET',
          path: `/api/2.0/fs/files${vol()}/../../../../../../etc/passwd`,
        },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.end();
    });
    expect(status).toBe(400);
  });

  it('streams ~200 MB up and down while the server RSS stays well under 200 MB above its baseline', async () => {
    const pid = server.proc.pid!;
    const rss = async () => {
      const m = /VmRSS:\s+(\d+) kB/.exec(await readFile(`/proc/${pid}/status`, 'utf8'));
      return Number(m![1]) * 1024;
    };
    const baseline = await rss();
    let peak = baseline;
    const sampler = setInterval(() => {
      void rss().then((r) => (peak = Math.max(peak, r)));
    }, 20);
    const total = 200 * 1024 * 1024;
    const chunk = Buffer.alloc(1024 * 1024);
    const u = new URL(server.url);
    const target = `/api/2.0/fs/files${vol()}/big.bin?overwrite=true`;
    const upHash = createHash('sha256');
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: u.hostname,
            port: u.port,
            method: 'PUT',
            path: target,
            headers: { 'content-type': 'application/octet-stream', 'content-length': total },
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          },
        );
        req.on('error', reject);
        let sent = 0;
        const pump = () => {
          while (sent < total) {
            chunk.fill(sent / chunk.length);
            upHash.update(chunk);
            sent += chunk.length;
            if (!req.write(chunk)) return void req.once('drain', pump);
          }
          req.end();
        };
        pump();
      });
      expect(status).toBe(204);
      const downHash = createHash('sha256');
      let got = 0;
      await new Promise<void>((resolve, reject) => {
        http
          .get({ host: u.hostname, port: u.port, path: target.split('?')[0] }, (res) => {
            expect(res.statusCode).toBe(200);
            expect(res.headers['content-length']).toBe(String(total));
            res.on('data', (d: Buffer) => {
              got += d.length;
              downHash.update(d);
            });
            res.on('end', resolve);
            res.on('error', reject);
          })
          .on('error', reject);
      });
      expect(got).toBe(total);
      expect(downHash.digest('hex')).toBe(upHash.digest('hex'));
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, await rss());
    console.log(
      `server RSS baseline ${(baseline / 2 ** 20).toFixed(0)} MB, peak ${(peak / 2 ** 20).toFixed(0)} MB`,
    );
    expect(peak - baseline).toBeLessThan(120 * 1024 * 1024);
  });
});
