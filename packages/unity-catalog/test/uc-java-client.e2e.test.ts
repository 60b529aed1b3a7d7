/**
 * The OSS Java `io.unitycatalog:unitycatalog-client` (0.6.0, the client UC's own Spark connector is built
 * on) against the built server: test/java/UcJavaClientContract.java is compiled and run here. Maven resolves
 * the client and its dependencies once into $MINILAKE_CACHE/m2 (the classpath is cached beside it). Skipped
 * only when javac or mvn is missing (.ci/run installs both).
 */
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, uniqueName, type RunningServer } from '@minilake/testing';

const run = promisify(execFile);
const here = path.dirname(fileURLToPath(import.meta.url));
const has = (cmd: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
};
const missing = ['javac', 'java', 'mvn'].filter((c) => !has(c));
const cache = process.env.MINILAKE_CACHE ?? path.join(os.homedir(), '.cache', 'minilake');
const VERSION = '0.6.0';

const POM = `<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>dev.minilake</groupId>
  <artifactId>uc-java-client-contract</artifactId>
  <version>1</version>
  <dependencies>
    <dependency>
      <groupId>io.unitycatalog</groupId>
      <artifactId>unitycatalog-client</artifactId>
      <version>${VERSION}</version>
    </dependency>
  </dependencies>
</project>
`;

/** The client's classpath, resolved by Maven once and cached. */
async function classpath(): Promise<string> {
  const dir = path.join(cache, `uc-java-client-${VERSION}`);
  const cpFile = path.join(dir, 'classpath.txt');
  if (existsSync(cpFile)) {
    const cp = readFileSync(cpFile, 'utf8').trim();
    if (cp.split(':').every((j) => existsSync(j))) return cp;
  }
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'pom.xml'), POM);
  await run(
    'mvn',
    [
      '-B',
      '-q',
      '-Dstyle.color=never',
      `-Dmaven.repo.local=${path.join(cache, 'm2')}`,
      'org.apache.maven.plugins:maven-dependency-plugin:3.8.1:build-classpath',
      `-Dmdep.outputFile=${cpFile}`,
    ],
    { cwd: dir, timeout: 600_000 },
  );
  return readFileSync(cpFile, 'utf8').trim();
}

describe.skipIf(missing.length > 0)(
  `unitycatalog-client ${VERSION} for Java (${missing.length ? `missing: ${missing.join(', ')}` : 'found'})`,
  () => {
    let server: RunningServer;
    beforeAll(async () => {
      server = await startServer();
    });
    afterAll(async () => {
      await server?.stop();
    });

    it('creates, lists and gets catalogs, schemas and an EXTERNAL Delta table, and asks for credentials', async () => {
      const cp = await classpath();
      const classes = mkdtempSync(path.join(os.tmpdir(), 'uc-java-'));
      await run('javac', ['-d', classes, '-cp', cp, path.join(here, 'java', 'UcJavaClientContract.java')], {
        timeout: 300_000,
      });
      const ext = mkdtempSync(path.join(os.tmpdir(), 'uc-java-ext-'));
      const { stdout } = await run(
        'java',
        [
          '-cp',
          `${classes}:${cp}`,
          'UcJavaClientContract',
          server.url,
          uniqueName('javauc'),
          `file://${ext}/events`,
        ],
        { timeout: 300_000 },
      ).catch((e: { stdout?: string; stderr?: string }) => {
        throw new Error(`${e.stdout ?? ''}\n${e.stderr ?? ''}`);
      });
      expect(stdout).toContain('ok list schemas [default, s1]');
      expect(stdout).toContain('ok columns [id:bigint:LONG, tags:array<string>:ARRAY]');
      expect(stdout).toContain('ok deleted table is gone (404)');
      expect(stdout.trim().split('\n').at(-1)).toBe('ALL OK');
    }, 900_000);
  },
);
