/**
 * Deletion vectors (PROTOCOL.md "Deletion Vectors" and appendix "Deletion Vector Format"): the descriptor in
 * an add action names a set of row indexes of its data file that are deleted. It is stored inline in the log
 * (storageType `i`, Z85 text) or in a file (`u`: relative, named by a Z85-encoded UUID; `p`: absolute path).
 * A file holds a version byte then, per DV, a big-endian size, the bitmap bytes and a CRC-32 of them. The
 * bitmap is a magic number then a 64-bit RoaringBitmap in the portable serialization.
 *
 * The decoder is hand-written: the `roaring` npm package reads only 32-bit bitmaps, and no maintained
 * package reads the 64-bit portable layout. Row indexes stay below 2^53, so they are JS numbers.
 */
import { randomUUID } from 'node:crypto';
import { open, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { crc32 } from 'node:zlib';
import { DeltaError } from './errors.js';
import type { DeletionVector } from './log.js';

const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
const Z85_VALUE = new Map([...Z85].map((c, i) => [c, i]));

/** Z85 text -> bytes. Delta pads the input to a multiple of 4 bytes; `size` trims the padding back off. */
export function z85Decode(text: string, size?: number): Uint8Array {
  if (text.length % 5 !== 0) throw corrupt(`Z85 text of length ${text.length} is not a multiple of 5`);
  const out = new Uint8Array((text.length / 5) * 4);
  for (let i = 0, o = 0; i < text.length; i += 5, o += 4) {
    let v = 0;
    for (let k = 0; k < 5; k++) {
      const d = Z85_VALUE.get(text[i + k]!);
      if (d === undefined) throw corrupt(`invalid Z85 character ${JSON.stringify(text[i + k])}`);
      v = v * 85 + d;
    }
    if (v > 0xffffffff) throw corrupt('Z85 group out of range');
    new DataView(out.buffer).setUint32(o, v);
  }
  return size === undefined ? out : out.subarray(0, size);
}

/** Bytes (a multiple of 4 long) -> Z85 text; the inverse of z85Decode. */
export function z85Encode(bytes: Uint8Array): string {
  if (bytes.byteLength % 4 !== 0) throw new Error('z85Encode: the input is not a multiple of 4 bytes');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let out = '';
  for (let i = 0; i < bytes.byteLength; i += 4) {
    let v = view.getUint32(i);
    let group = '';
    for (let k = 0; k < 5; k++) {
      group = Z85[v % 85]! + group;
      v = Math.floor(v / 85);
    }
    out += group;
  }
  return out;
}

/** The canonical text of the UUID a `u` descriptor encodes in its last 20 characters. */
function uuidText(z85: string): string {
  const hex = Buffer.from(z85Decode(z85)).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** The absolute path of an on-disk DV (`u` relative to the table root, `p` absolute); undefined for inline. */
export function deletionVectorPath(root: string, dv: DeletionVector): string | undefined {
  if (dv.storageType === 'i') return undefined;
  if (dv.storageType === 'u') {
    const s = dv.pathOrInlineDv;
    if (s.length < 20) throw corrupt(`deletion vector id ${JSON.stringify(s)} is too short`);
    const prefix = s.slice(0, -20);
    // The random prefix is a folder name Delta picks; it must not climb out of the table.
    if (prefix.includes('/') || prefix.includes('\\') || prefix.startsWith('.'))
      throw corrupt(`deletion vector prefix ${JSON.stringify(prefix)} is not a folder name`);
    return path.join(root, prefix, `deletion_vector_${uuidText(s.slice(-20))}.bin`);
  }
  if (dv.storageType === 'p') {
    const p = dv.pathOrInlineDv;
    if (p.startsWith('file:')) return fileURLToPath(p.startsWith('file://') ? p : `file://${p.slice(5)}`);
    if (p.startsWith('/')) return p;
    throw new DeltaError(
      'DELTA_UNSUPPORTED_FEATURES_FOR_READ',
      `Deletion vector ${p} is not on a local filesystem`,
    );
  }
  throw corrupt(`unknown deletion vector storage type ${JSON.stringify(dv.storageType)}`);
}

/** The portable 64-bit layout (what Delta writes) and Delta's older native one (count + sized 32-bit maps). */
const MAGIC_PORTABLE = 1681511377;
const MAGIC_NATIVE = 1681511376;

/** The serialized bitmap of a descriptor: inline bytes, or read (and checksummed) from its file. */
async function bitmapBytes(root: string, dv: DeletionVector): Promise<Uint8Array> {
  const file = deletionVectorPath(root, dv);
  if (file === undefined) return z85Decode(dv.pathOrInlineDv, dv.sizeInBytes);
  const offset = dv.offset ?? 0;
  const fh = await open(file, 'r').catch((e: NodeJS.ErrnoException) => {
    if (e.code === 'ENOENT') throw corrupt(`deletion vector file ${file} is missing`);
    throw e;
  });
  try {
    if (offset === 0 || offset === 1) {
      const v = Buffer.alloc(1);
      await fh.read(v, 0, 1, 0);
      if (v[0] !== 1) throw corrupt(`deletion vector file ${file} has format version ${v[0]}, not 1`);
    }
    // A DV written at offset 0 carries no version byte in front of it only in inline form; on disk the first
    // DV starts after the version byte, at offset 1.
    const start = offset === 0 ? 1 : offset;
    const buf = Buffer.alloc(4 + dv.sizeInBytes + 4);
    const { bytesRead } = await fh.read(buf, 0, buf.length, start);
    if (bytesRead < buf.length) throw corrupt(`deletion vector file ${file} is truncated`);
    const size = buf.readUInt32BE(0);
    if (size !== dv.sizeInBytes)
      throw corrupt(`deletion vector in ${file} has ${size} bytes, the log says ${dv.sizeInBytes}`);
    const data = buf.subarray(4, 4 + size);
    if (crc32(data) !== buf.readUInt32BE(4 + size))
      throw corrupt(`deletion vector in ${file} at offset ${start} fails its checksum`);
    return data;
  } finally {
    await fh.close();
  }
}

/**
 * The deleted row indexes of a data file, ascending: what a writer needs to merge new deletions into an
 * existing DV, and what the reader drops by `file_row_number`. `root` is the table folder.
 */
export async function deletedRows(root: string, dv: DeletionVector): Promise<number[]> {
  const rows = decodeDeletionVector(await bitmapBytes(root, dv));
  if (rows.length !== dv.cardinality)
    throw corrupt(`deletion vector holds ${rows.length} rows, the log says ${dv.cardinality}`);
  return rows;
}

/** A serialized Delta DV (magic number + 64-bit RoaringBitmap) -> its row indexes, ascending. */
export function decodeDeletionVector(bytes: Uint8Array): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = bytes.byteLength >= 8 ? view.getUint32(0, true) : 0;
  const out: number[] = [];
  if (magic === MAGIC_NATIVE) {
    // Bitmap i holds the values whose high 32 bits are i.
    const n = view.getUint32(4, true);
    if (n >= 0x200000) throw corrupt(`${n} row index buckets go beyond 2^53`);
    let pos = 8;
    for (let i = 0; i < n; i++) {
      const size = view.getUint32(pos, true);
      decodeRoaring32(view, pos + 4, i * 2 ** 32, out);
      pos += 4 + size;
    }
    return out;
  }
  if (magic !== MAGIC_PORTABLE || bytes.byteLength < 12)
    throw corrupt('deletion vector does not start with the Delta magic number');
  const buckets = view.getBigUint64(4, true);
  let pos = 12;
  for (let b = 0n; b < buckets; b++) {
    const high = view.getUint32(pos, true);
    if (high >= 0x200000) throw corrupt(`row index bucket ${high} is beyond 2^53`);
    pos = decodeRoaring32(view, pos + 4, high * 2 ** 32, out);
  }
  return out;
}

const SERIAL_COOKIE_NO_RUN = 12346;
const SERIAL_COOKIE = 12347;

/**
 * One 32-bit RoaringBitmap (RoaringFormatSpec): a cookie, per container a 16-bit key and cardinality - 1,
 * offsets (absent when run containers are flagged and there are fewer than 4 containers), then the
 * containers: array (sorted uint16), bitmap (1024 little-endian 64-bit words) or run (pairs start, length-1).
 * Appends `base + value` for each value to `out`; returns the position after the bitmap.
 */
function decodeRoaring32(view: DataView, start: number, base: number, out: number[]): number {
  let pos = start;
  const cookie = view.getUint32(pos, true);
  let n: number;
  let runFlags: Uint8Array | undefined;
  if ((cookie & 0xffff) === SERIAL_COOKIE) {
    n = (cookie >>> 16) + 1;
    pos += 4;
    const len = Math.ceil(n / 8);
    runFlags = new Uint8Array(view.buffer, view.byteOffset + pos, len);
    pos += len;
  } else if (cookie === SERIAL_COOKIE_NO_RUN) {
    n = view.getUint32(pos + 4, true);
    pos += 8;
  } else {
    throw corrupt(`unknown RoaringBitmap cookie ${cookie}`);
  }
  const keys: number[] = [];
  const cards: number[] = [];
  for (let i = 0; i < n; i++) {
    keys.push(view.getUint16(pos, true));
    cards.push(view.getUint16(pos + 2, true) + 1);
    pos += 4;
  }
  if (!runFlags || n >= 4) pos += 4 * n; // offsets: the containers follow in order, so they are not needed
  for (let i = 0; i < n; i++) {
    const hi = base + keys[i]! * 65536;
    const isRun = runFlags !== undefined && (runFlags[i >> 3]! & (1 << (i & 7))) !== 0;
    if (isRun) {
      const runs = view.getUint16(pos, true);
      pos += 2;
      for (let r = 0; r < runs; r++) {
        const s = view.getUint16(pos, true);
        const len = view.getUint16(pos + 2, true);
        pos += 4;
        for (let v = s; v <= s + len; v++) out.push(hi + v);
      }
    } else if (cards[i]! <= 4096) {
      for (let k = 0; k < cards[i]!; k++) out.push(hi + view.getUint16(pos + 2 * k, true));
      pos += 2 * cards[i]!;
    } else {
      for (let w = 0; w < 1024; w++) {
        let lo = view.getUint32(pos + w * 8, true);
        let up = view.getUint32(pos + w * 8 + 4, true);
        for (let bit = 0; lo !== 0; bit++, lo >>>= 1) if (lo & 1) out.push(hi + w * 64 + bit);
        for (let bit = 32; up !== 0; bit++, up >>>= 1) if (up & 1) out.push(hi + w * 64 + bit);
      }
      pos += 8192;
    }
  }
  return pos;
}

/**
 * Row indexes (ascending, unique) -> a serialized Delta DV: the portable magic number, then the 64-bit
 * RoaringBitmap in the portable layout (bucket count, then per high 32 bits its key and a 32-bit bitmap).
 * Each container is the smallest of array, bitmap and run, as RoaringBitmap's runOptimize picks.
 */
export function encodeDeletionVector(rows: readonly number[]): Uint8Array {
  const chunks: Uint8Array[] = [];
  const head = new DataView(new ArrayBuffer(12));
  head.setUint32(0, MAGIC_PORTABLE, true);
  chunks.push(new Uint8Array(head.buffer));
  let buckets = 0;
  for (let i = 0; i < rows.length;) {
    const high = Math.floor(rows[i]! / 2 ** 32);
    let j = i;
    const low: number[] = [];
    while (j < rows.length && Math.floor(rows[j]! / 2 ** 32) === high) {
      const r = rows[j]!;
      if (!Number.isSafeInteger(r) || r < 0 || (j > i && r <= rows[j - 1]!))
        throw new Error('encodeDeletionVector: row indexes must be ascending, unique, non-negative integers');
      low.push(r - high * 2 ** 32);
      j++;
    }
    const key = new DataView(new ArrayBuffer(4));
    key.setUint32(0, high, true);
    chunks.push(new Uint8Array(key.buffer), encodeRoaring32(low));
    buckets++;
    i = j;
  }
  head.setBigUint64(4, BigInt(buckets), true);
  return Buffer.concat(chunks);
}

/** One 32-bit RoaringBitmap of ascending values, in the portable serialization (see decodeRoaring32). */
function encodeRoaring32(values: number[]): Uint8Array {
  type Container = { key: number; card: number; run: boolean; bytes: Uint8Array };
  const containers: Container[] = [];
  for (let i = 0; i < values.length;) {
    const key = values[i]! >>> 16;
    let j = i;
    while (j < values.length && values[j]! >>> 16 === key) j++;
    const low = values.slice(i, j).map((v) => v & 0xffff);
    const runs: [number, number][] = [];
    for (const v of low) {
      const last = runs.at(-1);
      if (last && v === last[1] + 1) last[1] = v;
      else runs.push([v, v]);
    }
    const card = low.length;
    const plain = card <= 4096 ? 2 * card : 8192;
    let bytes: Uint8Array;
    let run = false;
    if (2 + 4 * runs.length < plain) {
      run = true;
      const v = new DataView(new ArrayBuffer(2 + 4 * runs.length));
      v.setUint16(0, runs.length, true);
      runs.forEach(([s, e], k) => {
        v.setUint16(2 + 4 * k, s, true);
        v.setUint16(4 + 4 * k, e - s, true);
      });
      bytes = new Uint8Array(v.buffer);
    } else if (card <= 4096) {
      const v = new DataView(new ArrayBuffer(2 * card));
      low.forEach((x, k) => v.setUint16(2 * k, x, true));
      bytes = new Uint8Array(v.buffer);
    } else {
      // 1024 little-endian 64-bit words: bit x is bit (x % 8) of byte x / 8.
      bytes = new Uint8Array(8192);
      for (const x of low) bytes[x >> 3]! |= 1 << (x & 7);
    }
    containers.push({ key, card, run, bytes });
    i = j;
  }
  const n = containers.length;
  const hasRun = containers.some((c) => c.run);
  const flags = hasRun ? Math.ceil(n / 8) : 0;
  const withOffsets = !hasRun || n >= 4;
  const headerSize = (hasRun ? 4 + flags : 8) + 4 * n + (withOffsets ? 4 * n : 0);
  const size = headerSize + containers.reduce((t, c) => t + c.bytes.byteLength, 0);
  const out = new Uint8Array(size);
  const v = new DataView(out.buffer);
  let pos = 0;
  if (hasRun) {
    v.setUint32(0, (SERIAL_COOKIE | ((n - 1) << 16)) >>> 0, true);
    pos = 4;
    containers.forEach((c, k) => {
      if (c.run) out[pos + (k >> 3)]! |= 1 << (k & 7);
    });
    pos += flags;
  } else {
    v.setUint32(0, SERIAL_COOKIE_NO_RUN, true);
    v.setUint32(4, n, true);
    pos = 8;
  }
  for (const c of containers) {
    v.setUint16(pos, c.key, true);
    v.setUint16(pos + 2, c.card - 1, true);
    pos += 4;
  }
  let data = headerSize;
  if (withOffsets)
    for (const c of containers) {
      v.setUint32(pos, data, true);
      pos += 4;
      data += c.bytes.byteLength;
    }
  pos = headerSize;
  for (const c of containers) {
    out.set(c.bytes, pos);
    pos += c.bytes.byteLength;
  }
  return out;
}

/**
 * Writes serialized DVs (encodeDeletionVector) into one new on-disk DV file at the table root, as Spark
 * writes one per commit: the version byte, then per DV its big-endian size, the bytes and their big-endian
 * CRC-32. Returns the `u` descriptors (offset = where the DV's size field starts) and the file's path.
 */
export async function writeDeletionVectors(
  root: string,
  dvs: { bytes: Uint8Array; cardinality: number }[],
): Promise<{ file: string; descriptors: DeletionVector[] }> {
  const uuid = randomUUID();
  const file = path.join(root, `deletion_vector_${uuid}.bin`);
  const id = z85Encode(Buffer.from(uuid.replaceAll('-', ''), 'hex'));
  const parts: Uint8Array[] = [Uint8Array.of(1)];
  const descriptors: DeletionVector[] = [];
  let offset = 1;
  for (const dv of dvs) {
    const frame = Buffer.alloc(4 + dv.bytes.byteLength + 4);
    frame.writeUInt32BE(dv.bytes.byteLength, 0);
    frame.set(dv.bytes, 4);
    frame.writeUInt32BE(crc32(dv.bytes), 4 + dv.bytes.byteLength);
    parts.push(frame);
    descriptors.push({
      storageType: 'u',
      pathOrInlineDv: id,
      offset,
      sizeInBytes: dv.bytes.byteLength,
      cardinality: dv.cardinality,
    });
    offset += frame.byteLength;
  }
  await writeFile(file, Buffer.concat(parts), { flag: 'wx' });
  return { file, descriptors };
}

/** Sorted row indexes -> inclusive [first, last] ranges (DVs are mostly runs; the scan filters by range). */
export function rowRanges(rows: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const r of rows) {
    const last = out.at(-1);
    if (last && r === last[1] + 1) last[1] = r;
    else out.push([r, r]);
  }
  return out;
}

function corrupt(detail: string): DeltaError {
  return new DeltaError('DELTA_DELETION_VECTOR_CORRUPT', `Corrupt deletion vector: ${detail}`);
}
