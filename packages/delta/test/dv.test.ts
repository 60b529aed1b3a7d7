/** Deletion vector decoding (no Spark needed): Z85, the 64-bit RoaringBitmap layout, DV files and paths. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeDeletionVector,
  deletedRows,
  deletionVectorPath,
  encodeDeletionVector,
  rowRanges,
  writeDeletionVectors,
  z85Decode,
  z85Encode as z85EncodeSrc,
} from '../src/index.js';

const Z85 = '0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.-:+=^!/*?&<>()[]{}@%$#';
function z85Encode(bytes: Uint8Array): string {
  const padded = new Uint8Array(Math.ceil(bytes.length / 4) * 4);
  padded.set(bytes);
  const view = new DataView(padded.buffer);
  let s = '';
  for (let i = 0; i < padded.length; i += 4) {
    let v = view.getUint32(i);
    const group: string[] = [];
    for (let k = 0; k < 5; k++) {
      group.unshift(Z85[v % 85]!);
      v = Math.floor(v / 85);
    }
    s += group.join('');
  }
  return s;
}

type Container = { key: number; kind: 'array' | 'bitmap' | 'run'; values: number[] };

/** A test encoder of the layout the decoder reads (Spark writes the real ones in reader.test.ts). */
function roaring32(containers: Container[], withRuns: boolean): Buffer {
  const parts: Buffer[] = [];
  const n = containers.length;
  const head = Buffer.alloc(withRuns ? 4 + Math.ceil(n / 8) : 8);
  if (withRuns) {
    head.writeUInt32LE(12347 | ((n - 1) << 16));
    containers.forEach((c, i) => {
      if (c.kind === 'run') head[4 + (i >> 3)]! |= 1 << (i & 7);
    });
  } else {
    head.writeUInt32LE(12346);
    head.writeUInt32LE(n, 4);
  }
  parts.push(head);
  const desc = Buffer.alloc(4 * n);
  containers.forEach((c, i) => {
    desc.writeUInt16LE(c.key, 4 * i);
    desc.writeUInt16LE(c.values.length - 1, 4 * i + 2);
  });
  parts.push(desc);
  const bodies = containers.map((c) => {
    if (c.kind === 'array') {
      const b = Buffer.alloc(2 * c.values.length);
      c.values.forEach((v, k) => b.writeUInt16LE(v, 2 * k));
      return b;
    }
    if (c.kind === 'bitmap') {
      const b = Buffer.alloc(8192);
      for (const v of c.values) b[v >> 3]! |= 1 << (v & 7);
      return b;
    }
    const runs = rowRanges(c.values);
    const b = Buffer.alloc(2 + 4 * runs.length);
    b.writeUInt16LE(runs.length);
    runs.forEach(([lo, hi], k) => {
      b.writeUInt16LE(lo, 2 + 4 * k);
      b.writeUInt16LE(hi - lo, 4 + 4 * k);
    });
    return b;
  });
  if (!withRuns || n >= 4) {
    const offs = Buffer.alloc(4 * n);
    let at = parts.reduce((a, p) => a + p.length, 0) + 4 * n;
    bodies.forEach((b, i) => {
      offs.writeUInt32LE(at, 4 * i);
      at += b.length;
    });
    parts.push(offs);
  }
  return Buffer.concat([...parts, ...bodies]);
}

function dvBytes(buckets: { high: number; bitmap: Buffer }[]): Buffer {
  const head = Buffer.alloc(12);
  head.writeUInt32LE(1681511377);
  head.writeBigUInt64LE(BigInt(buckets.length), 4);
  return Buffer.concat([
    head,
    ...buckets.flatMap((b) => {
      const k = Buffer.alloc(4);
      k.writeUInt32LE(b.high);
      return [k, b.bitmap];
    }),
  ]);
}

const evens = Array.from({ length: 5000 }, (_, i) => i * 2);
const sample = dvBytes([
  {
    high: 0,
    bitmap: roaring32(
      [
        { key: 0, kind: 'array', values: [1, 5, 9] },
        { key: 1, kind: 'bitmap', values: evens },
        { key: 2, kind: 'run', values: [100, 101, 102, 103, 200] },
      ],
      true,
    ),
  },
  { high: 1, bitmap: roaring32([{ key: 0, kind: 'array', values: [7] }], false) },
]);
const sampleRows = [
  1,
  5,
  9,
  ...evens.map((v) => 65536 + v),
  2 * 65536 + 100,
  2 * 65536 + 101,
  2 * 65536 + 102,
  2 * 65536 + 103,
  2 * 65536 + 200,
  2 ** 32 + 7,
];

describe('deletion vectors', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'ml-dv-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('decodes inline DVs (Z85, padded to 4 bytes)', async () => {
    const bytes = dvBytes([
      { high: 0, bitmap: roaring32([{ key: 0, kind: 'array', values: [3, 4, 7, 11, 18, 29, 30] }], false) },
    ]);
    expect(bytes.length % 4).not.toBe(0);
    const dv = {
      storageType: 'i',
      pathOrInlineDv: z85Encode(bytes),
      sizeInBytes: bytes.length,
      cardinality: 7,
    };
    expect(await deletedRows(dir, dv)).toEqual([3, 4, 7, 11, 18, 29, 30]);
    expect(Buffer.from(z85Decode('HelloWorld'))).toEqual(
      Buffer.from([0x86, 0x4f, 0xd2, 0x6f, 0xb5, 0x59, 0xf7, 0x5b]),
    );
  });

  it("decodes Delta's native layout too (a count, then sized 32-bit bitmaps)", () => {
    const map = roaring32([{ key: 0, kind: 'array', values: [2] }], false);
    const b = Buffer.alloc(12);
    b.writeUInt32LE(1681511376);
    b.writeUInt32LE(2, 4);
    b.writeUInt32LE(map.length, 8);
    const size = Buffer.alloc(4);
    size.writeUInt32LE(map.length);
    expect(decodeDeletionVector(Buffer.concat([b, map, size, map]))).toEqual([2, 2 ** 32 + 2]);
  });

  it('decodes array, bitmap and run containers in several 32-bit buckets', () => {
    expect(decodeDeletionVector(sample)).toEqual(sampleRows);
    expect(() => decodeDeletionVector(Buffer.from('not a dv at all'))).toThrow(/magic number/);
  });

  it('reads u (relative, UUID-named, with a prefix) and p (absolute) DV files, checking sizes and checksums', async () => {
    const uuid = Buffer.from('d2c639aa8816431aaaf6d3fe2512ff61', 'hex');
    const id = z85Encode(uuid);
    expect(id).toHaveLength(20);
    const file = deletionVectorPath(dir, {
      storageType: 'u',
      pathOrInlineDv: `ab${id}`,
      sizeInBytes: 0,
      cardinality: 0,
    });
    expect(file).toBe(path.join(dir, 'ab', 'deletion_vector_d2c639aa-8816-431a-aaf6-d3fe2512ff61.bin'));
    // Two DVs in one file: the second one starts after the first's size, data and checksum.
    const other = dvBytes([{ high: 0, bitmap: roaring32([{ key: 0, kind: 'array', values: [0] }], false) }]);
    const frame = (b: Buffer) => {
      const s = Buffer.alloc(4);
      s.writeUInt32BE(b.length);
      const c = Buffer.alloc(4);
      c.writeUInt32BE(crc32(b));
      return Buffer.concat([s, b, c]);
    };
    const { mkdir } = await import('node:fs/promises');
    await mkdir(path.dirname(file!), { recursive: true });
    await writeFile(file!, Buffer.concat([Buffer.from([1]), frame(other), frame(sample)]));
    const second = 1 + 4 + other.length + 4;
    const u = {
      storageType: 'u',
      pathOrInlineDv: `ab${id}`,
      offset: second,
      sizeInBytes: sample.length,
      cardinality: sampleRows.length,
    };
    expect(await deletedRows(dir, u)).toEqual(sampleRows);
    const p = {
      ...u,
      storageType: 'p',
      pathOrInlineDv: `file://${file}`,
      offset: 1,
      sizeInBytes: other.length,
      cardinality: 1,
    };
    expect(await deletedRows('/nowhere', p)).toEqual([0]);
    await expect(deletedRows(dir, { ...u, cardinality: 3 })).rejects.toMatchObject({
      errorCode: 'DELTA_DELETION_VECTOR_CORRUPT',
    });
    const bad = Buffer.concat([Buffer.from([1]), frame(other)]);
    bad[bad.length - 1]! ^= 0xff;
    await writeFile(file!, bad);
    await expect(deletedRows('/nowhere', p)).rejects.toThrow(/checksum/);
    expect(() =>
      deletionVectorPath(dir, {
        storageType: 'u',
        pathOrInlineDv: `../${id}`,
        sizeInBytes: 0,
        cardinality: 0,
      }),
    ).toThrow(/folder name/);
  });

  it('turns rows into ranges', () => {
    expect(rowRanges([1, 2, 3, 7, 9, 10])).toEqual([
      [1, 3],
      [7, 7],
      [9, 10],
    ]);
  });

  it('encodes the 64-bit portable layout: round trip through the decoder for every container kind', () => {
    const cases: number[][] = [
      [],
      [0],
      [3, 4, 7, 11],
      Array.from({ length: 10000 }, (_, i) => i), // one run
      Array.from({ length: 5000 }, (_, i) => i * 2), // a bitmap (more than 4096, no runs)
      Array.from({ length: 6 }, (_, i) => i * 65536 + 1), // more than 4 containers: offsets with runs absent
      [
        ...Array.from({ length: 300 }, (_, i) => i),
        70000,
        70002,
        ...Array.from({ length: 5 }, (_, i) => 2 * 65536 + i * 3),
      ],
      sampleRows,
      [5, 2 ** 32 + 1, 2 ** 33 + 9, 2 ** 40],
    ];
    for (const rows of cases) expect(decodeDeletionVector(encodeDeletionVector(rows))).toEqual(rows);
    // Runs make 10,000 contiguous rows tiny (Spark's runOptimize does the same).
    expect(encodeDeletionVector(Array.from({ length: 10000 }, (_, i) => i)).byteLength).toBeLessThan(40);
    expect(() => encodeDeletionVector([2, 1])).toThrow(/ascending/);
    expect(z85EncodeSrc(z85Decode('HelloWorld'))).toBe('HelloWorld');
  });

  it('writes DV files the reader reads back (version byte, sizes, checksums, two DVs at their offsets)', async () => {
    const a = [1, 2, 3, 100];
    const b = Array.from({ length: 7000 }, (_, i) => i * 3);
    const { file, descriptors } = await writeDeletionVectors(dir, [
      { bytes: encodeDeletionVector(a), cardinality: a.length },
      { bytes: encodeDeletionVector(b), cardinality: b.length },
    ]);
    expect(path.dirname(file)).toBe(dir);
    expect(descriptors[0]!.offset).toBe(1);
    expect(deletionVectorPath(dir, descriptors[1]!)).toBe(file);
    expect(await deletedRows(dir, descriptors[0]!)).toEqual(a);
    expect(await deletedRows(dir, descriptors[1]!)).toEqual(b);
  });
});
