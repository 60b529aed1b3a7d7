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
