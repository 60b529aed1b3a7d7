/**
 * @polyglot-sql/sdk compiles its WASM module when imported (~80-100 ms): load it on the first statement, not
 * when the server starts. `loadPolyglot()` is awaited at the top of executeDatabricksSql; everything after it
 * reaches the SDK through the synchronous `polyglot()`.
 */
import type * as Polyglot from '@polyglot-sql/sdk';

let mod: typeof Polyglot | undefined;
let loading: Promise<typeof Polyglot> | undefined;

export function loadPolyglot(): Promise<typeof Polyglot> {
  if (mod) return Promise.resolve(mod);
  loading ??= import('@polyglot-sql/sdk').then(
    (m) => (mod = m),
    (e: unknown) => {
      loading = undefined;
      throw e;
    },
  );
  return loading;
}

export function polyglot(): typeof Polyglot {
  if (!mod) throw new Error('The SQL dialect is not loaded yet (await loadPolyglot() first).');
  return mod;
}

let warming: Promise<void> | undefined;

/**
 * Loads the SDK and runs one parse / generate / transpile in the background, once per process. V8 compiles
 * WASM functions lazily on their first call, and the first translation paid for that (with the import, over
 * a second of CPU on a loaded 2-core machine: bench/README.md), so the first statement after `ready` did a
 * hidden start-up. The SQL service starts this when it is created, off the ready path.
 */
export function warmPolyglot(): Promise<void> {
  warming ??= loadPolyglot().then(
    (m) => {
      const ast = m.parse('SELECT a, sum(b) AS s FROM t WHERE c = 1 GROUP BY a', m.Dialect.Databricks);
      if (ast.success && ast.ast) m.generate(ast.ast, m.Dialect.Databricks);
      m.transpile('SELECT 1 AS x', m.Dialect.Databricks, m.Dialect.DuckDB);
    },
    () => undefined,
  );
  return warming;
}
