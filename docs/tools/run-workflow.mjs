// Runs a GitHub Actions workflow of the docs the way a runner would, as far as it concerns MiniLake:
// `node docs/tools/run-workflow.mjs <workflow.yml>` (the doc runner calls it with the page's environment).
// The first job's steps run in order in the current folder: MiniLake's action (`uses: ./`, the action.yml at
// the repository root) runs action/start.sh with its `with:` inputs over action.yml's defaults; a `run:` step
// runs with bash -e -o pipefail (GitHub's bash), seeing what earlier steps put in GITHUB_ENV; `${{ env.X }}`,
// `${{ steps.<id>.outputs.<name> }}` and `${{ runner.temp }}` are expanded. The well-known setup actions
// (checkout, setup-python, setup-node, setup-java, cache, databricks/setup-cli) are skipped: the runner's machine
// has what they give. Two substitutions, both printed: while @minilake/server is not published, the doc runner
// names this repository's packed server (MINILAKE_DOC_SERVER_TGZ) for the `package` source; and a port the
// step leaves at its default becomes a free one (MINILAKE_DOC_PORT), so a busy 8000 on a shared machine
// cannot fail the page.
// Anything else fails, so an example cannot silently stop being runnable. Servers the action started are
// stopped at the end (action/stop.sh).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const workflow = parse(readFileSync(process.argv[2], 'utf8'));
const action = parse(readFileSync(path.join(root, 'action.yml'), 'utf8'));
const jobs = Object.entries(workflow.jobs ?? {});
if (jobs.length === 0) throw new Error('the workflow has no jobs');
const [jobName, job] = jobs[0];
const temp = mkdtempSync(path.join(os.tmpdir(), 'workflow-'));
const githubEnv = path.join(temp, 'github_env');
writeFileSync(githubEnv, '');
const outputs = {}; // step id -> { name: value }
const skipped =
  /^(actions\/(checkout|setup-python|setup-node|setup-java|setup-go|cache)|databricks\/setup-cli)@/;

const exported = () =>
  Object.fromEntries(
    readFileSync(githubEnv, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
const env = { ...process.env, ...(workflow.env ?? {}), ...(job.env ?? {}), RUNNER_TEMP: temp, CI: 'true' };
const expand = (value, stepEnv) =>
  String(value).replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr) => {
    let m;
    if ((m = /^env\.(\w+)$/.exec(expr))) return stepEnv[m[1]] ?? '';
    if ((m = /^steps\.([\w-]+)\.outputs\.([\w-]+)$/.exec(expr))) return outputs[m[1]]?.[m[2]] ?? '';
    if (expr === 'runner.temp') return temp;
    throw new Error(`the workflow uses \${{ ${expr} }}, which this runner does not expand`);
  });
const readOutputs = (file) =>
  Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );

console.log(`job ${jobName}`);
let failed = false;
for (const [i, step] of (job.steps ?? []).entries()) {
  const name = step.name ?? step.uses ?? String(step.run).split('\n')[0];
  const stepEnv = { ...env, ...exported() };
  for (const [k, v] of Object.entries(step.env ?? {})) stepEnv[k] = expand(v, stepEnv);
  const outFile = path.join(temp, `output_${i}`);
  writeFileSync(outFile, '');
  let r;
  if (step.uses && skipped.test(step.uses)) {
    console.log(`- ${name}: skipped (the machine running the docs has what it sets up)`);
    continue;
  } else if (step.uses === './') {
    const inputs = {};
    for (const [k, spec] of Object.entries(action.inputs ?? {})) inputs[k] = String(spec.default ?? '');
    for (const [k, v] of Object.entries(step.with ?? {})) {
      if (!(k in inputs)) throw new Error(`step '${name}': the action has no input '${k}'`);
      inputs[k] = expand(v, stepEnv);
    }
    if (inputs.source === 'package' && !step.with?.package && process.env.MINILAKE_DOC_SERVER_TGZ) {
      inputs.package = process.env.MINILAKE_DOC_SERVER_TGZ;
      console.log(
        `  (docs runner: package ${inputs.package}, this repository's @minilake/server, not yet published)`,
      );
    }
    if (!step.with?.port && process.env.MINILAKE_DOC_PORT) {
      inputs.port = process.env.MINILAKE_DOC_PORT;
      console.log(`  (docs runner: port ${inputs.port} instead of 8000)`);
    }
    for (const [k, v] of Object.entries(inputs)) stepEnv[`INPUT_${k.toUpperCase().replace(/-/g, '_')}`] = v;
    console.log(`- ${name}: action.yml (${JSON.stringify(step.with ?? {})})`);
    r = spawnSync('bash', [path.join(root, 'action', 'start.sh')], {
      env: { ...stepEnv, GITHUB_ENV: githubEnv, GITHUB_OUTPUT: outFile },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } else if (step.uses) {
    throw new Error(`step '${name}' uses ${step.uses}, which this runner does not know`);
  } else if (step.run !== undefined) {
    console.log(`- ${name}`);
    const script = path.join(temp, `step_${i}.sh`);
    writeFileSync(script, expand(step.run, stepEnv));
    r = spawnSync('bash', ['--noprofile', '--norc', '-e', '-o', 'pipefail', script], {
      env: { ...stepEnv, GITHUB_ENV: githubEnv, GITHUB_OUTPUT: outFile },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 900_000,
    });
  } else {
    throw new Error(`step '${name}' has neither uses nor run`);
  }
  process.stdout.write(r.stdout ?? '');
  process.stdout.write(r.stderr ?? '');
  if (step.id) outputs[step.id] = readOutputs(outFile);
  if (r.status !== 0) {
    console.log(`step '${name}' failed with exit code ${r.status ?? r.signal}`);
    failed = true;
    break;
  }
}
// What the action started stops with the job, as on a hosted runner.
const left = exported();
if (left.MINILAKE_PID || left.MINILAKE_CONTAINER)
  spawnSync('bash', [path.join(root, 'action', 'stop.sh')], { env: { ...env, ...left }, stdio: 'inherit' });
process.exit(failed ? 1 : 0);
