/**
 * The JVM tasks, run by spark-submit on this machine's Spark (the same install, Unity Catalog's catalogs and
 * MiniLake's file systems as the Python tasks), whatever compute the task names:
 * - spark_jar_task: `main_class_name` from the task's `jar` libraries (or the deprecated `jar_uri`), with
 *   `parameters` (run-now's `jar_params` override them) as its arguments.
 * - spark_submit_task: `parameters` are spark-submit's own arguments (run-now's `spark_submit_params`
 *   override them); workspace, `dbfs:/` and `/Volumes/` paths among them become local files first.
 * Every jar is copied into the attempt's folder, so a container executor sees it as well.
 */
import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { v } from '@minilake/core';
import { resolveAll, resolveRefs } from '../refs.js';
import { codeTask, overridden, overriding } from './spark.js';
import { fail, texts, type ExecDeps, type ExecInput } from './types.js';

/** A path the task names, as a local file in the attempt's folder. */
async function localCopy(d: ExecDeps, input: ExecInput, p: string): Promise<string> {
  const file = await d.files.localFile(p, input.workDir);
  if (path.dirname(file) === input.workDir) return file;
  await mkdir(input.workDir, { recursive: true });
  const target = path.join(input.workDir, path.basename(file));
  await copyFile(file, target);
  return target;
}

/** Whether an argument names a file in one of MiniLake's path families (not an option or a plain value). */
const isRemotePath = (a: string) =>
  /^(dbfs:\/|\/Volumes\/|\/Workspace\/|\/Users\/|\/Shared\/|\/Repos\/)/.test(a);

export const sparkJarTask = codeTask(
  'spark_jar_task',
  v.looseObject({
    main_class_name: v.optional(v.string()),
    parameters: v.optional(texts),
    jar_uri: v.optional(v.string()),
  }),
  async (d, input, t, refs) => {
    if (!t.main_class_name) return fail('spark_jar_task.main_class_name is required.');
    const jars = [
      ...(t.jar_uri ? [t.jar_uri] : []),
      ...(input.task.spec.libraries ?? [])
        .map((l) => l.jar)
        .filter((x): x is string => typeof x === 'string' && x !== ''),
    ].map((j) => resolveRefs(j, refs));
    if (jars.length === 0)
      return fail('spark_jar_task needs its jar in libraries (jar), where its main class is found.');
    const local = await Promise.all(jars.map((j) => localCopy(d, input, j)));
    const params = overridden(overriding(input).jar_params, texts, 'jar_params') ?? t.parameters ?? [];
    return {
      kind: 'jar',
      file: local[0]!,
      args: resolveAll(params, refs),
      jar: { mainClass: t.main_class_name, jars: local.slice(1) },
    };
  },
);

export const sparkSubmitTask = codeTask(
  'spark_submit_task',
  v.looseObject({ parameters: v.optional(texts) }),
  async (d, input, t, refs) => {
    const params = resolveAll(
      overridden(overriding(input).spark_submit_params, texts, 'spark_submit_params') ?? t.parameters ?? [],
      refs,
    );
    if (params.length === 0)
      return fail('spark_submit_task.parameters must name the application (a jar or a Python file).');
    const args: string[] = [];
    for (const a of params) {
      // A comma list (--jars, --py-files, --files) is a list of paths.
      const parts = a.split(',');
      if (!parts.some(isRemotePath)) {
        args.push(a);
        continue;
      }
      const local = await Promise.all(parts.map((p) => (isRemotePath(p) ? localCopy(d, input, p) : p)));
      args.push(local.join(','));
    }
    const app = args.find((a) => /\.(jar|py)$/.test(a)) ?? args[args.length - 1]!;
    return { kind: 'submit', file: app, args: [], submitArgs: args };
  },
);
