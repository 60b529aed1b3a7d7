/**
 * A streaming multipart/form-data reader (DBFS put, workspace import): small text fields are collected in memory (capped),
 * file parts are written straight to a temp file with backpressure, so a large upload never sits in memory.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';
import { invalidParameter } from './errors.js';

const MAX_FIELD_BYTES = 4 * 1024 * 1024;
/**
 * The file part goes to a write stream with this mark, as Files API uploads do (fsutil WRITE_BUFFER): what
 * arrives while one write is on disk goes down as one `writev`, and the socket keeps being read meanwhile;
 * awaiting one write per 64 KiB socket chunk held the body back by a thread-pool round trip per chunk.
 */
const FILE_WRITE_BUFFER = 4 * 1024 * 1024;

export interface MultipartResult {
  fields: Record<string, string>;
  /** The first file part (a part with a filename), written to `tmp`. */
  file?: { name: string; size: number };
}

export function boundaryOf(contentType: string): string {
  const m = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(contentType);
  const b = m?.[1] ?? m?.[2]?.trim();
  if (!b) throw invalidParameter('multipart/form-data request without a boundary');
  return b;
}

function partInfo(head: string): { name: string; filename?: string } {
  const disposition = head.split('\r\n').find((l) => /^content-disposition:/i.test(l)) ?? '';
  const name = /\bname="([^"]*)"/i.exec(disposition)?.[1];
  if (name === undefined) throw invalidParameter('multipart part without a name');
  const filename = /\bfilename="([^"]*)"/i.exec(disposition)?.[1];
  return filename === undefined ? { name } : { name, filename };
}

export async function readMultipart(
  body: AsyncIterable<Uint8Array>,
  boundary: string,
  tmp: string,
): Promise<MultipartResult> {
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const fields: Record<string, string> = {};
  let file: MultipartResult['file'];
  let state: 'preamble' | 'after-delimiter' | 'headers' | 'body' | 'done' = 'preamble';
  // A leading CRLF lets the first boundary (which has none) match the same delimiter as the others.
  let buf: Buffer = Buffer.from('\r\n');
  let part: { name: string; filename?: string } | undefined;
  let field: Buffer[] = [];
  let fieldBytes = 0;
  let out: WriteStream | undefined;
  let writingFile = false;

  const emit = async (data: Buffer) => {
    if (data.length === 0 || !part) return;
    if (writingFile) {
      file!.size += data.length;
      if (!out!.write(data)) await once(out!, 'drain'); // rejects if the write fails
    } else if (!part.filename || file) {
      fieldBytes += data.length;
      if (fieldBytes > MAX_FIELD_BYTES) throw invalidParameter(`Form field ${part.name} is too large`);
      field.push(data);
    }
  };
  const endPart = async () => {
    if (!part) return;
    if (writingFile) writingFile = false;
    else if (!part.filename) fields[part.name] = Buffer.concat(field).toString('utf8');
    part = undefined;
    field = [];
    fieldBytes = 0;
  };

  const step = async (): Promise<boolean> => {
    switch (state) {
      case 'preamble':
      case 'body': {
        const i = buf.indexOf(delimiter);
        if (i < 0) {
          const keep = Math.min(buf.length, delimiter.length - 1);
          if (state === 'body') await emit(buf.subarray(0, buf.length - keep));
          buf = buf.subarray(buf.length - keep);
          return false;
        }
        if (state === 'body') await emit(buf.subarray(0, i));
        await endPart();
        buf = buf.subarray(i + delimiter.length);
        state = 'after-delimiter';
        return true;
      }
      case 'after-delimiter': {
        if (buf.length < 2) return false;
        if (buf[0] === 0x2d && buf[1] === 0x2d) {
          state = 'done';
          return false;
        }
        const eol = buf.indexOf('\r\n');
        if (eol < 0) return false;
        buf = buf.subarray(eol + 2); // transport padding, then CRLF
        state = 'headers';
        return true;
      }
      case 'headers': {
        const end = buf.indexOf('\r\n\r\n');
        if (end < 0) {
          if (buf.length > 64 * 1024) throw invalidParameter('multipart part headers are too large');
          return false;
        }
        part = partInfo(buf.subarray(0, end).toString('utf8'));
        buf = buf.subarray(end + 4);
        if (part.filename !== undefined && !file) {
          file = { name: part.name, size: 0 };
          out = createWriteStream(tmp, { flags: 'wx', highWaterMark: FILE_WRITE_BUFFER });
          writingFile = true;
        }
        state = 'body';
        return true;
      }
      default:
        return false;
    }
  };

  try {
    for await (const chunk of body) {
      if ((state as string) === 'done') continue;
      // Socket chunks are Buffers already: view them, do not copy them (Buffer.from would).
      const bytes = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      buf = buf.length ? Buffer.concat([buf, bytes]) : bytes;
      while (await step());
    }
    if ((state as string) !== 'done')
      throw invalidParameter('The multipart/form-data body ended before its closing boundary');
  } catch (e) {
    if (out) {
      // Wait for the descriptor to close, so the caller's removal of the temp file is the last word.
      out.destroy();
      await finished(out).catch(() => undefined);
    }
    throw e;
  }
  if (out) {
    out.end();
    await finished(out); // rejects with a failed write (disk full): the put fails
  }
  return file ? { fields, file } : { fields };
}
