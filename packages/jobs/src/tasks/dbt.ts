/**
 * dbt_task: the task's dbt commands in its project, with the dbt its environment installs (dbt-databricks
 * in the task's `libraries` or its environment's `dependencies`, as on Databricks), against MiniLake's own
 * SQL warehouse through the Thrift endpoint. With `warehouse_id` the task writes the profile itself (the
 * project's profile name, the warehouse's http_path, the run's token, `catalog` and `schema`); without one
 * the project's `profiles_directory` (default: the project's root) is used as it is. dbt's output is the
 * task's logs; the first command that fails fails the task.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { v } from '@minilake/core';
import { resolveAll } from '../refs.js';
import { copyFromCheckout, fromGit, inCheckout } from './git.js';
import { codeTask } from './spark.js';
import { fail, text, texts } from './types.js';

/** A command's words as a POSIX shell would split them (quotes and backslashes; no expansion). */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let cur = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < command.length; i++) {
    const ch = command[i]!;
    if (quote) {
      if (ch === quote) quote = undefined;
      else if (ch === '\\' && quote === '"' && i + 1 < command.length) cur += command[++i];
      else cur += ch;
    } else if (ch === '"' || ch === "'") {
      quote = ch;
      inWord = true;
    } else if (ch === '\\' && i + 1 < command.length) {
      cur += command[++i];
      inWord = true;
    } else if (/\s/.test(ch)) {
      if (inWord) words.push(cur);
      cur = '';
      inWord = false;
    } else {
      cur += ch;
      inWord = true;
    }
  }
  if (quote) throw new Error(`unclosed ${quote} in: ${command}`);
  if (inWord) words.push(cur);
  return words;
}

/** The `profile:` a dbt_project.yml names (dbt's own default is the project's name). */
function profileName(projectYml: string): string | undefined {
  const m = /^profile:\s*['"]?([^'"\s#]+)/m.exec(projectYml) ?? /^name:\s*['"]?([^'"\s#]+)/m.exec(projectYml);
  return m?.[1];
}

const yamlString = (s: string) => JSON.stringify(s);

/**
 * The profile a dbt_task with `warehouse_id` runs with. The token is the run's, read by dbt from the task's
 * environment (DATABRICKS_TOKEN, which the engine sets to the run's token and nothing overrides) rather than
 * written into the file: the run folder stays in the data directory after the run, and nothing the server
 * writes may hold a credential.
 */
export function dbtProfile(p: {
  name: string;
  host: string;
  httpPath: string;
  catalog: string;
  schema: string;
}): string {
  return [
    `${yamlString(p.name)}:`,
    '  target: databricks',
    '  outputs:',
    '    databricks:',
    '      type: databricks',
    `      host: ${yamlString(p.host)}`,
    `      http_path: ${yamlString(p.httpPath)}`,
    `      token: "{{ env_var('DATABRICKS_TOKEN') }}"`,
    `      catalog: ${yamlString(p.catalog)}`,
    `      schema: ${yamlString(p.schema)}`,
    '      threads: 4',
    '      connection_parameters:',
    // The connector speaks https only unless given the whole URI (MiniLake may serve plain http).
    `        _connection_uri: ${yamlString(p.host + p.httpPath)}`,
    '        enable_telemetry: false',
    '',
  ].join('\n');
}

export const dbtTask = codeTask(
  'dbt_task',
  v.looseObject({
    commands: v.optional(texts),
    project_directory: v.optional(v.string()),
    profiles_directory: v.optional(v.string()),
    warehouse_id: v.optional(text),
    catalog: v.optional(v.string()),
    schema: v.optional(v.string()),
    source: v.optional(v.string()),
  }),
  async (d, input, t, refs) => {
    const commands = resolveAll(t.commands ?? [], refs);
    if (commands.length === 0) return fail('dbt_task.commands must list at least one dbt command.');
    let words: string[][];
    try {
      words = commands.map(shellWords);
    } catch (e) {
      return fail(`Invalid dbt_task.commands: ${(e as Error).message}`);
    }
    const bad = words.find((w) => w[0] !== 'dbt');
    if (bad) return fail(`Every dbt_task command must start with dbt (got: ${bad.join(' ')}).`);
    const projectDir = path.join(input.workDir, 'project');
    if (fromGit(input, t.source)) {
      const root = await d.git.checkout(input);
      await copyFromCheckout(inCheckout(root, t.project_directory ?? ''), projectDir);
    } else {
      if (!t.project_directory)
        return fail('dbt_task.project_directory is required for a project in the workspace.');
      await d.files.copyFolder(t.project_directory, projectDir);
    }
    let projectYml: string;
    try {
      projectYml = await readFile(path.join(projectDir, 'dbt_project.yml'), 'utf8');
    } catch {
      return fail(`There is no dbt_project.yml in ${t.project_directory ?? 'the repository root'}.`);
    }
    let profilesDir = path.join(projectDir, ...(t.profiles_directory ?? '').split('/').filter(Boolean));
    if (t.warehouse_id) {
      if (t.profiles_directory)
        return fail('dbt_task.profiles_directory can only be set when warehouse_id is not.');
      const selfUrl = d.selfUrl();
      if (!selfUrl) return fail('The server has no address yet for dbt to connect to.');
      const name = profileName(projectYml) ?? 'default';
      const httpPath = `/sql/1.0/warehouses/${t.warehouse_id}`;
      profilesDir = path.join(input.workDir, 'profiles');
      await mkdir(profilesDir, { recursive: true });
      await writeFile(
        path.join(profilesDir, 'profiles.yml'),
        dbtProfile({
          name,
          host: selfUrl,
          httpPath,
          catalog: t.catalog ?? 'main',
          schema: t.schema ?? 'default',
        }),
        { mode: 0o600 },
      );
    }
    return {
      kind: 'dbt',
      file: projectDir,
      args: [],
      dbt: { commands: words, projectDir, profilesDir },
    };
  },
);
