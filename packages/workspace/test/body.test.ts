import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DatabricksError, parseBase64 } from '@minilake/core';
import { Base64Stream, readJsonImport } from '../src/body.js';

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'ws-body-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The body cut into pieces of `size` bytes, as a socket might deliver it. */
async function* pieces(text: string | Buffer, size: number) {
  const b = Buffer.isBuffer(text) ? text : Buffer.from(text);
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size);
}

async function scan(text: string | Buffer, size: number) {
  const tmp = path.join(dir, `t${n++}`);
  const r = await readJsonImport(pieces(text, size), tmp);
  return { ...r, bytes: await readFile(tmp) };
}

async function decode(text: string, size: number): Promise<Buffer | undefined> {
  const out: Buffer[] = [];
  const d = new Base64Stream(async (b) => void out.push(b));
  try {
    for (let i = 0; i < text.length; i += size) await d.push(text.slice(i, i + size));
    await d.end();
  } catch (e) {
    if (e instanceof DatabricksError) return undefined;
    throw e;
  }
  return Buffer.concat(out);
}

describe('import bodies stream', () => {
  it('decodes base64 in pieces exactly as parseBase64 decodes the whole text', async () => {
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n -_*';
    let seed = 7;
    const rnd = (k: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % k;
    for (let round = 0; round < 3000; round++) {
      let text: string;
      if (round % 3 === 0) {
        text = Buffer.from(Array.from({ length: rnd(40) }, () => rnd(256))).toString('base64');
        if (round % 2) text = text.replace(/(.{7})/g, '$1\n');
      } else text = Array.from({ length: rnd(24) }, () => alphabet[rnd(alphabet.length)]).join('');
      const want = parseBase64(text);
      for (const size of [1, 3, 5, 64])
        expect([text, size, await decode(text, size)]).toEqual([text, size, want]);
    }
  });

  it('reads the fields and streams content, whatever the chunk boundaries', async () => {
    const payload = Buffer.from(Array.from({ length: 5000 }, (_, i) => (i * 31) % 256));
    const b64 = payload.toString('base64');
    const body = JSON.stringify({
      path: '/Users/me/ü/f.bin',
      format: 'AUTO',
      overwrite: true,
      extra: { nested: [1, '}', { a: '"' }] },
      language: null,
      content: b64,
    });
    for (const size of [1, 2, 7, 100, 1 << 20]) {
      const r = await scan(`  ${body}\n`, size);
      expect(r.fields).toEqual({
        path: '/Users/me/ü/f.bin',
        format: 'AUTO',
        overwrite: true,
        extra: { nested: [1, '}', { a: '"' }] },
      });
      expect(r.size).toBe(payload.length);
      expect(r.bytes.equals(payload)).toBe(true);
    }
    // JSON escapes inside content (an encoder may write \/ or \u0041, or wrap lines with \n).
    const escaped = `{"content":"${b64.slice(0, 8).replace('/', '\\/')}\\n${b64.slice(8).replace(/A/g, '\\u0041')}","path":"/x"}`;
    for (const size of [1, 3, 50]) expect((await scan(escaped, size)).bytes.equals(payload)).toBe(true);
  });

  it('an empty body is no fields and no content; malformed JSON and bad base64 are 400s', async () => {
    expect(await scan('', 10)).toMatchObject({ fields: {}, size: 0 });
    expect(await scan('{}', 1)).toMatchObject({ fields: {}, size: 0 });
    for (const bad of [
      '[]',
      '{"a":1,}',
      '{"a" 1}',
      '{"a":1',
      '{"a":1} x',
      '{"content":"QUJD',
      '{,}',
      'nul',
    ]) {
      await expect(scan(bad, 2), bad).rejects.toMatchObject({ status: 400, errorCode: 'MALFORMED_REQUEST' });
    }
    for (const bad of [
      '{"content":"QU-D"}',
      '{"content":"QQ==QQ=="}',
      '{"content":"Q"}',
      '{"content":"\\u00e9AAA"}',
    ]) {
      await expect(scan(bad, 3), bad).rejects.toMatchObject({ status: 400 });
    }
  });
});
