/**
 * Import bodies read as streams: the content goes from the socket to a temp file as it arrives, so a large
 * import never sits in memory (a 200 MB import used to take the server to ~700 MB: the JSON text, its parse,
 * the decoded bytes). Three shapes, as clients send them:
 * - JSON `{"path": ..., "content": "<base64>", ...}` (the Databricks CLI's `workspace import`): scanned
 *   here, `content` decoded from base64 on the fly, every other field kept (they are small) and parsed;
 * - multipart/form-data with a `content` file part (the Python SDK's `workspace.upload`): the shared
 *   streaming reader of `@minilake/core`;
 * - a raw body (workspace-files `import-file`): piped to the file.
 * A JSON parser library that streams string values in pieces would fit the first; this scanner handles the
 * one shape the endpoint takes (a flat object) in ~150 lines and keeps the base64 decode in large pieces.
 */
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { finished, pipeline } from 'node:stream/promises';
import { boundaryOf, malformedRequest, parseBase64, readMultipart, withoutNulls } from '@minilake/core';
import { badBase64 } from './errors.js';

/** Like Files API uploads: what arrives during one disk write goes down as one `writev`. */
const WRITE_BUFFER = 4 * 1024 * 1024;
/** Any one JSON field other than `content` (and any key) may be at most this large. */
const MAX_FIELD_BYTES = 1024 * 1024;

export interface ImportBody {
  /** The body's fields other than the content (strings from a form, JSON values from JSON). */
  fields: Record<string, unknown>;
  /** Bytes of content written to the temp file (an empty file when the body had none). */
  size: number;
}

const notJson = () => malformedRequest('Request body is not valid JSON');

/** Writes to `tmp` with backpressure; `end()` resolves once the bytes are in the file. */
class FileSink {
  private out: WriteStream;
  size = 0;
  constructor(private readonly tmp: string) {
    this.out = createWriteStream(tmp, { highWaterMark: WRITE_BUFFER });
  }
  async write(b: Buffer): Promise<void> {
    if (b.length === 0) return;
    this.size += b.length;
    if (!this.out.write(b)) await once(this.out, 'drain'); // rejects if the write fails
  }
  /** Starts over (a second `content` key: JSON.parse keeps the last one, so does this). */
  async restart(): Promise<void> {
    await this.end();
    this.out = createWriteStream(this.tmp, { highWaterMark: WRITE_BUFFER });
    this.size = 0;
  }
  async end(): Promise<void> {
    this.out.end();
    await finished(this.out);
  }
  async abort(): Promise<void> {
    this.out.destroy();
    await finished(this.out).catch(() => undefined);
  }
}

/**
 * Base64 decoded piece by piece with the rules of `parseBase64` for the whole text: whitespace ignored,
 * standard alphabet only, `=` padding only at the end. Whole 4-character groups are decoded as they come
 * (a group decodes alone); what follows the first `=` is kept and checked at the end.
 */
export class Base64Stream {
  private pending = '';
  private padded = false;
  constructor(private readonly sink: (b: Buffer) => Promise<void>) {}

  async push(text: string): Promise<void> {
    if (/\s/.test(text)) text = text.replace(/\s+/g, '');
    if (text === '') return;
    if (this.padded) {
      this.pending += text;
      if (this.pending.length > 8) throw badBase64();
      return;
    }
    const eq = text.indexOf('=');
    let s = this.pending + text;
    if (eq >= 0) {
      this.padded = true;
      const at = this.pending.length + eq;
      const whole = at - (at % 4);
      await this.decodeGroups(s.slice(0, whole));
      this.pending = s.slice(whole);
      if (this.pending.length > 8) throw badBase64();
      return;
    }
    const whole = s.length - (s.length % 4);
    await this.decodeGroups(s.slice(0, whole));
    this.pending = s.slice(whole);
    s = '';
  }

  private async decodeGroups(s: string): Promise<void> {
    if (s === '') return;
    // Node's decoder skips characters outside the alphabet (and takes the URL-safe one): anything such
    // decodes short, so an exact length means every character was standard base64.
    if (s.includes('-') || s.includes('_')) throw badBase64();
    const bytes = Buffer.from(s, 'base64');
    if (bytes.length !== (s.length / 4) * 3) throw badBase64();
    await this.sink(bytes);
  }

  async end(): Promise<void> {
    if (this.pending === '') return;
    const tail = parseBase64(this.pending);
    if (!tail) throw badBase64();
    this.pending = '';
    await this.sink(tail);
  }
}

const isWs = (b: number) => b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
const ESCAPES: Record<number, string> = {
  0x22: '"',
  0x5c: '\\',
  0x2f: '/',
  0x62: '\b',
  0x66: '\f',
  0x6e: '\n',
  0x72: '\r',
  0x74: '\t',
};

/**
 * Reads a JSON object body; the string value of `content` is base64-decoded into `tmp` as it streams, the
 * other members are collected (bounded) and parsed. Anything that is not one JSON object is a 400.
 */
export async function readJsonImport(body: AsyncIterable<Uint8Array>, tmp: string): Promise<ImportBody> {
  const sink = new FileSink(tmp);
  const fields: Record<string, unknown> = {};
  type State = 'start' | 'key-or-end' | 'key' | 'colon' | 'value' | 'raw' | 'content' | 'after' | 'end';
  let state: State = 'start';
  let afterComma = false;
  let raw: Buffer[] = [];
  let rawBytes = 0;
  let key = '';
  // raw value scanning
  let depth = 0;
  let inStr = false;
  let esc = false;
  // content string scanning: an escape may straddle chunks
  let pendingEsc = '';
  let decoder: Base64Stream | undefined;
  let sawContent = false;

  const collect = (b: Buffer) => {
    rawBytes += b.length;
    if (rawBytes > MAX_FIELD_BYTES) throw malformedRequest(`Request field ${key || '(key)'} is too large`);
    raw.push(b);
  };
  const takeRaw = (): string => {
    const s = Buffer.concat(raw).toString('utf8');
    raw = [];
    rawBytes = 0;
    return s;
  };
  const endRaw = () => {
    try {
      fields[key] = JSON.parse(takeRaw());
    } catch {
      throw notJson();
    }
    state = 'after';
  };

  try {
    for await (const chunk of body) {
      const buf = Buffer.isBuffer(chunk)
        ? chunk
        : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      let i = 0;
      while (i < buf.length) {
        const b = buf[i]!;
        switch (state) {
          case 'start':
            if (b === 0x7b) state = 'key-or-end';
            else if (!isWs(b)) throw notJson();
            i++;
            break;
          case 'key-or-end':
            if (isWs(b)) i++;
            else if (b === 0x7d && !afterComma) {
              state = 'end';
              i++;
            } else if (b === 0x22) {
              state = 'key';
              afterComma = false;
              inStr = true;
              esc = false;
              collect(buf.subarray(i, i + 1));
              i++;
            } else throw notJson();
            break;
          case 'key': {
            const start = i;
            while (i < buf.length) {
              const c = buf[i++]!;
              if (esc) esc = false;
              else if (c === 0x5c) esc = true;
              else if (c === 0x22) {
                inStr = false;
                break;
              }
            }
            collect(buf.subarray(start, i));
            if (!inStr) {
              try {
                key = JSON.parse(takeRaw()) as string;
              } catch {
                throw notJson();
              }
              state = 'colon';
            }
            break;
          }
          case 'colon':
            if (b === 0x3a) state = 'value';
            else if (!isWs(b)) throw notJson();
            i++;
            break;
          case 'value':
            if (isWs(b)) i++;
            else if (key === 'content' && b === 0x22) {
              if (sawContent) await sink.restart();
              sawContent = true;
              delete fields.content;
              decoder = new Base64Stream((x) => sink.write(x));
              pendingEsc = '';
              state = 'content';
              i++;
            } else {
              state = 'raw';
              depth = 0;
              inStr = false;
              esc = false;
            }
            break;
          case 'raw': {
            const start = i;
            let done = false;
            while (i < buf.length) {
              const c = buf[i]!;
              if (inStr) {
                if (esc) esc = false;
                else if (c === 0x5c) esc = true;
                else if (c === 0x22) inStr = false;
              } else if (c === 0x22) inStr = true;
              else if (c === 0x7b || c === 0x5b) depth++;
              else if (c === 0x7d || c === 0x5d) {
                if (depth === 0) {
                  done = true;
                  break;
                }
                depth--;
              } else if (c === 0x2c && depth === 0) {
                done = true;
                break;
              }
              i++;
            }
            collect(buf.subarray(start, i));
            if (done) endRaw(); // the ',' or '}' is read by 'after'
            break;
          }
          case 'content': {
            // A run of plain characters up to the next quote or backslash goes to the decoder at once.
            if (pendingEsc === '') {
              const q = buf.indexOf(0x22, i);
              const bs = buf.indexOf(0x5c, i);
              const stop = q < 0 ? bs : bs < 0 ? q : Math.min(q, bs);
              const end = stop < 0 ? buf.length : stop;
              if (end > i) await decoder!.push(buf.toString('latin1', i, end));
              i = end;
              if (stop < 0) break;
              if (buf[i] === 0x22) {
                await decoder!.end();
                decoder = undefined;
                state = 'after';
                i++;
                break;
              }
              pendingEsc = '\\';
              i++;
              break;
            }
            pendingEsc += String.fromCharCode(buf[i++]!);
            if (pendingEsc.length === 2 && pendingEsc[1] !== 'u') {
              const ch = ESCAPES[pendingEsc.charCodeAt(1)];
              if (ch === undefined) throw notJson();
              pendingEsc = '';
              await decoder!.push(ch);
            } else if (pendingEsc.length === 6) {
              if (!/^\\u[0-9a-fA-F]{4}$/.test(pendingEsc)) throw notJson();
              const ch = String.fromCharCode(parseInt(pendingEsc.slice(2), 16));
              pendingEsc = '';
              await decoder!.push(ch);
            }
            break;
          }
          case 'after':
            if (b === 0x2c) {
              state = 'key-or-end';
              afterComma = true;
            } else if (b === 0x7d) state = 'end';
            else if (!isWs(b)) throw notJson();
            i++;
            break;
          case 'end':
            if (isWs(b)) i++;
            else throw notJson();
            break;
        }
      }
    }
    // An empty (or all-blank) body reads as `{}`, as readJson has it; anything else must be a whole object.
    if (state !== 'end' && state !== 'start') throw notJson();
  } catch (e) {
    await sink.abort();
    throw e;
  }
  await sink.end();
  return { fields: withoutNulls(fields) as Record<string, unknown>, size: sink.size };
}

/** A multipart body: the `content` file part goes to `tmp`; a `content` text field is base64. */
export async function readMultipartImport(
  body: AsyncIterable<Uint8Array>,
  contentType: string,
  tmp: string,
): Promise<ImportBody> {
  const form = await readMultipart(body, boundaryOf(contentType), tmp);
  const fields: Record<string, unknown> = { ...form.fields };
  if (form.file?.name === 'content') {
    delete fields.content;
    return { fields, size: form.file.size };
  }
  const text = typeof fields.content === 'string' ? fields.content : '';
  delete fields.content;
  const sink = new FileSink(tmp);
  try {
    const decoder = new Base64Stream((b) => sink.write(b));
    await decoder.push(text);
    await decoder.end();
  } catch (e) {
    await sink.abort();
    throw e;
  }
  await sink.end();
  return { fields, size: sink.size };
}

/** A raw body (import-file), piped to `tmp`. */
export async function readRawImport(body: Readable, tmp: string): Promise<number> {
  const out = createWriteStream(tmp, { flags: 'wx', highWaterMark: WRITE_BUFFER });
  await pipeline(body, out);
  return out.bytesWritten;
}
