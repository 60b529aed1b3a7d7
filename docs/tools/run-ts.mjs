// Runs one TypeScript (or JavaScript) example of the docs: `node docs/tools/run-ts.mjs <file.ts>`. TypeScript is
// only transpiled (types are not checked: the examples are checked by running them), into an .mjs beside the
// file, so imports resolve from docs/ (its package.json lists what the examples import).
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const file = process.argv[2];
let target = file;
if (file.endsWith('.ts')) {
  const out = ts.transpileModule(readFileSync(file, 'utf8'), {
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    fileName: file,
  });
  target = file.replace(/\.ts$/, '.mjs');
  writeFileSync(target, out.outputText);
}
await import(pathToFileURL(target).href);
