// Rewrites the configuration table in README.md and the reference in docs/configuration.md from the settings
// schemas (run after `pnpm build`; apps/server/test/settings.test.ts fails until both match them).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../..');
const { withConfigTable, withConfigReference } = await import(path.resolve(here, '../dist/index.js'));
for (const [file, rewrite, what] of [
  ['README.md', withConfigTable, 'settings table'],
  ['docs/configuration.md', withConfigReference, 'configuration reference'],
]) {
  const before = readFileSync(path.join(root, file), 'utf8');
  const after = rewrite(before);
  if (after !== before) writeFileSync(path.join(root, file), after);
  console.log(`${file}: ${what} ${after === before ? 'up to date' : 'rewritten'}`);
}
