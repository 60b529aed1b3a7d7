import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Reclaimer, REPLACED_SUFFIX, writeAtomically } from '../src/fsutil.js';

// /dev/shm is usually another file system than the temp dir: the case of an external volume elsewhere.
const otherFs = existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir();

describe('writeAtomically', () => {
  it('moves a temp file across file systems and leaves no temp file behind', async () => {
    const tmpDir = await mkdtemp(path.join(os.tmpdir(), 'minilake-fsu-'));
    const targetDir = await mkdtemp(path.join(otherFs, 'minilake-fsu-'));
    try {
      const target = path.join(targetDir, 'f.bin');
      await writeAtomically(
        Buffer.from('one'),
        path.join(tmpDir, 'a'),
        target,
        true,
        () => new Error('exists'),
      );
      expect(await readFile(target, 'utf8')).toBe('one');
      await expect(
        writeAtomically(Buffer.from('two'), path.join(tmpDir, 'b'), target, false, () => new Error('exists')),
      ).rejects.toThrow('exists');
      await writeAtomically(
        Buffer.from('three'),
        path.join(tmpDir, 'c'),
        target,
        true,
        () => new Error('exists'),
      );
      expect(await readFile(target, 'utf8')).toBe('three');
      expect(await readdir(tmpDir)).toEqual([]);
      expect(await readdir(targetDir)).toEqual(['f.bin']);
    } finally {
      await rm(targetDir, { recursive: true, force: true });
      await rm(tmpDir, { recursive: true, force: true });
    }
  });

  it('writes a durable (fsynced) upload the same way', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'minilake-fsu-'));
    try {
      const target = path.join(dir, 'd.bin');
      const bytes = await writeAtomically(
        Buffer.from('durable'),
        path.join(dir, '.tmp-d'),
        target,
        false,
        () => new Error('exists'),
        { durable: true },
      );
      expect(bytes).toBe(7);
      expect(await readFile(target, 'utf8')).toBe('durable');
      expect(await readdir(dir)).toEqual(['d.bin']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('replaces a file atomically and frees the old one after, leaving nothing behind', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'minilake-fsu-'));
    const targetDir = await mkdtemp(path.join(otherFs, 'minilake-fsu-'));
    try {
      const reclaim = new Reclaimer();
      const tmpDir = path.join(dir, 'tmp');
      await mkdir(tmpDir);
      for (const [target, label] of [
        [path.join(dir, 'r.bin'), 'same fs'],
        [path.join(targetDir, 'r.bin'), 'other fs'],
      ] as const) {
        for (const [i, text] of ['one', 'two', 'three'].entries()) {
          const n = await writeAtomically(
            Buffer.from(text),
            path.join(tmpDir, `t${i}`),
            target,
            true,
            () => {
              throw new Error('exists');
            },
            { reclaim },
          );
          expect(n, label).toBe(text.length);
          expect(await readFile(target, 'utf8'), label).toBe(text);
        }
      }
      await reclaim.settled();
      expect(await readdir(tmpDir)).toEqual([]);
      expect((await readdir(dir)).sort()).toEqual(['r.bin', 'tmp']);
      expect(await readdir(targetDir)).toEqual(['r.bin']);
    } finally {
      await rm(targetDir, { recursive: true, force: true });
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('sweeps the links a crash left between an overwrite and its reclaim, and nothing else', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'minilake-fsu-'));
    try {
      await writeFile(path.join(dir, `abc${REPLACED_SUFFIX}`), 'old');
      await writeFile(path.join(dir, 'h-42'), 'an open DBFS handle');
      await new Reclaimer().sweep(dir);
      expect(await readdir(dir)).toEqual(['h-42']);
      await new Reclaimer().sweep(path.join(dir, 'missing')); // no folder yet: nothing to do
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
