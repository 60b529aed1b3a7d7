/**
 * Where MiniLake's own jars for Spark are (the Unity Catalog plugin with the Databricks SQL extension, the
 * file systems for dbfs:/ and /Volumes). install.sh compiles each into the shared install folder under the
 * hash of its Java sources (`<install>/uc-catalog/<hash>/minilake-uc-spark.jar`), and also as the plain
 * `<install>/uc-catalog/minilake-uc-spark.jar`. The engine takes the jar built from the sources it ships
 * with, so checkouts with different plugin sources (git worktrees, a branch and main) sharing one
 * MINILAKE_CACHE never run each other's plugin; the plain path serves a bundled server without sources.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The package's roots: unbundled (src/ or dist/) one level up; bundled into apps/server, the monorepo's. */
const roots = () => [path.resolve(here, '..'), path.resolve(here, '../../../packages/engine-spark')];

/**
 * The hash install.sh keeps next to a jar: `find . -name '*.java' | LC_ALL=C sort | xargs sha256sum |
 * sha256sum` run in the sources folder, i.e. the SHA-256 of sha256sum's lines in byte order of the paths.
 */
export function sourcesHash(srcDir: string): string {
  const files: string[] = [];
  const walk = (rel: string) => {
    for (const e of readdirSync(path.join(srcDir, rel), { withFileTypes: true })) {
      const r = `${rel}/${e.name}`;
      if (e.isDirectory()) walk(r);
      else if (e.name.endsWith('.java')) files.push(r);
    }
  };
  walk('.');
  files.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const lines = files
    .map(
      (f) =>
        `${createHash('sha256')
          .update(readFileSync(path.join(srcDir, f)))
          .digest('hex')}  ${f}\n`,
    )
    .join('');
  return createHash('sha256').update(lines).digest('hex');
}

const cache = new Map<string, string | undefined>();

/** The hash of this package's sources in `sources` (`catalog/src`), or undefined when it ships none. */
function shippedHash(sources: string): string | undefined {
  if (!cache.has(sources)) {
    const dir = roots()
      .map((r) => path.join(r, sources))
      .find((d) => existsSync(d));
    cache.set(sources, dir ? sourcesHash(dir) : undefined);
  }
  return cache.get(sources);
}

/** The jar built from this package's sources when install.sh built it, else the plain path. */
export function pluginJar(installDir: string, sources: string, folder: string, jar: string): string {
  const hash = shippedHash(sources);
  const own = hash ? path.join(installDir, folder, hash.slice(0, 16), jar) : undefined;
  return own && existsSync(own) ? own : path.join(installDir, folder, jar);
}
