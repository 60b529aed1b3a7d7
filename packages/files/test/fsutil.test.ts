import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeAtomically } from '../src/fsutil.js';

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
});
