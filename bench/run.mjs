#!/usr/bin/env node
// Runs the benchmark scenarios against the built server (pnpm build first) and writes
// bench/results/<scenario>.json. Usage: node bench/run.mjs [scenario ...]   (default: all)
import { readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './lib.mjs';

const dir = path.join(root, 'bench/scenarios');
const all = readdirSync(dir)
  .filter((f) => f.endsWith('.mjs'))
  .map((f) => f.replace(/\.mjs$/, ''))
  .sort();
const chosen = process.argv.slice(2).length ? process.argv.slice(2) : all;
const ratios = [];
for (const name of chosen) {
  const mod = await import(path.join(dir, `${name}.mjs`));
  process.stderr.write(`bench ${name}...\n`);
  const figures = await mod.run();
  const result = {
    scenario: name,
    date: new Date().toISOString(),
    machine: {
      cpus: os.cpus().length,
      cpu: os.cpus()[0]?.model,
      memGb: Math.round(os.totalmem() / 2 ** 30),
      node: process.version,
    },
    targets: mod.targets ?? {},
    figures,
  };
  writeFileSync(path.join(root, 'bench/results', `${name}.json`), JSON.stringify(result, null, 2) + '\n');
  console.log(JSON.stringify(result.figures, null, 2));
  for (const [k, v] of Object.entries(figures ?? {}))
    if (typeof v === 'number' && /ratio|_over_/.test(k)) ratios.push(`${name}.${k} = ${v}`);
}
// The figures that travel between machines (ratios measured in the same run), together at the end.
if (ratios.length) process.stderr.write(`\nratios:\n  ${ratios.join('\n  ')}\n`);
