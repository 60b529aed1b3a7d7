import { mkdtemp, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DatabricksError } from '../src/errors.js';
import { boundaryOf, readMultipart } from '../src/multipart.js';

const B = 'XyZ--boundary';
const body = (payload: Buffer) =>
  Buffer.concat([
    Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="path"\r\n\r\n/a/b.bin\r\n`),
    Buffer.from(`--${B}\r\nContent-Disposition: form-data; name="contents"; filename="b.bin"\r\n`),
    Buffer.from('Content-Type: application/octet-stream\r\n\r\n'),
    payload,
    Buffer.from(`\r\n--${B}\r\nContent-Disposition: form-data; name="overwrite"\r\n\r\ntrue\r\n--${B}--\r\n`),
  ]);

async function* chunks(buf: Buffer, size: number) {
  for (let i = 0; i < buf.length; i += size) yield buf.subarray(i, i + size);
}

describe('streaming multipart reader', () => {
  it('reads fields around a file part whatever the chunking', async () => {
    // The payload contains a near-delimiter to make sure partial matches are not cut.
    const payload = Buffer.concat([
      Buffer.from(`x\r\n--${B.slice(0, 5)}y`),
      Buffer.alloc(300, 7),
      Buffer.from('\r\n'),
    ]);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'minilake-mp-'));
    const whole = body(payload);
    for (const size of [1, 2, 3, 7, 16, 64, whole.length]) {
      const tmp = path.join(dir, `t${size}`);
      const r = await readMultipart(chunks(whole, size), B, tmp);
      expect(r.fields).toEqual({ path: '/a/b.bin', overwrite: 'true' });
      expect(r.file).toEqual({ name: 'contents', size: payload.length });
      expect(await readFile(tmp)).toEqual(payload);
    }
  });

  it('rejects a body without its closing boundary, and finds quoted boundaries', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'minilake-mp-'));
    const truncated = body(Buffer.from('abc')).subarray(0, 150);
    await expect(readMultipart(chunks(truncated, 10), B, path.join(dir, 't'))).rejects.toBeInstanceOf(
      DatabricksError,
    );
    expect(boundaryOf(`multipart/form-data; boundary="${B}"`)).toBe(B);
    expect(boundaryOf(`multipart/form-data; boundary=${B}; charset=x`)).toBe(B);
    expect(() => boundaryOf('multipart/form-data')).toThrow(DatabricksError);
  });
});
