// Rewrites the configuration table in README.md from the settings schemas (run after `pnpm build`;
// apps/server/test/settings.test.ts fails until README.md matches them).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const readme = path.resolve(here, '../../../README.md');
const { withConfigTable } = await import(path.resolve(here, '../dist/index.js'));
const before = readFileSync(readme, 'utf8');
const after = withConfigTable(before);
if (after !== before) writeFileSync(readme, after);
console.log(
  after === before ? 'README.md: settings table up to date' : 'README.md: settings table rewritten',
);
