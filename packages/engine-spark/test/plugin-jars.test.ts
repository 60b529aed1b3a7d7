import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pluginJar, sourcesHash } from '../src/plugin-jars.js';

const catalogSrc = path.resolve(import.meta.dirname, '../catalog/src');

describe('plugin jars', () => {
  it('hashes the Java sources as install.sh does', () => {
    const shell = execFileSync(
      'bash',
      ['-c', "find . -name '*.java' | LC_ALL=C sort | xargs sha256sum | sha256sum | cut -d' ' -f1"],
      { cwd: catalogSrc, encoding: 'utf8' },
    ).trim();
    expect(sourcesHash(catalogSrc)).toBe(shell);
  });

  it('takes the jar built from its own sources, else the plain one', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'plugin-jars-'));
    const plain = path.join(dir, 'uc-catalog', 'minilake-uc-spark.jar');
    const src = path.join('catalog', 'src');
    expect(pluginJar(dir, src, 'uc-catalog', 'minilake-uc-spark.jar')).toBe(plain);
    const own = path.join(dir, 'uc-catalog', sourcesHash(catalogSrc).slice(0, 16));
    mkdirSync(own, { recursive: true });
    writeFileSync(path.join(own, 'minilake-uc-spark.jar'), '');
    expect(pluginJar(dir, src, 'uc-catalog', 'minilake-uc-spark.jar')).toBe(
      path.join(own, 'minilake-uc-spark.jar'),
    );
    rmSync(dir, { recursive: true, force: true });
  });
});
