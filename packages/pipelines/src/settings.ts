/**
 * Pipeline settings as Databricks keeps them: the spec is what the client sent (PipelineSpec's fields), plus
 * `id`, plus a default `storage` (`dbfs:/pipelines/<id>`) for a pipeline without a catalog. Nothing else is
 * added, so the Terraform provider and the CLI read back exactly their configuration and plan no change
 * (the provider's own defaults, `edition: ADVANCED` and `channel: CURRENT`, arrive in its requests and are
 * echoed like any field). Request-only fields (`allow_duplicate_names`, `dry_run`, `expected_last_modified`)
 * are never stored; `parameters` and `run_as` live beside the spec, as GetPipelineResponse has them.
 */
import { invalidParameter } from '@minilake/core';
import type { PipelineSettingsInput } from './schemas.js';

export type Spec = Record<string, unknown> & {
  id: string;
  name?: string;
  catalog?: string;
  schema?: string;
  target?: string;
  storage?: string;
  configuration?: Record<string, string>;
  libraries?: Library[];
  root_path?: string;
  continuous?: boolean;
  development?: boolean;
  serverless?: boolean;
  environment?: { dependencies?: string[] };
};

export interface Library {
  notebook?: { path?: string };
  file?: { path?: string };
  glob?: { include?: string };
  jar?: string;
  whl?: string;
  maven?: unknown;
}

const REQUEST_ONLY = new Set([
  'allow_duplicate_names',
  'dry_run',
  'expected_last_modified',
  'parameters',
  'run_as',
]);

/** Unity Catalog names: one segment, no dots, slashes, spaces or control characters (CreatePipeline's rule). */
const SEGMENT = /^[^.\s/\\\p{Cc}]+$/u;

export function specFrom(body: PipelineSettingsInput, pipelineId: string): Spec {
  const spec: Record<string, unknown> = {};
  for (const [k, val] of Object.entries(body)) if (!REQUEST_ONLY.has(k) && val !== undefined) spec[k] = val;
  spec.id = pipelineId;
  const s = spec as Spec;
  check(s);
  // Without a catalog a pipeline publishes to the Hive metastore, and Databricks picks its storage.
  if (!s.storage && !s.catalog) s.storage = `dbfs:/pipelines/${pipelineId}`;
  return s;
}

function check(s: Spec): void {
  for (const [field, value] of [
    ['target', s.target],
    ['schema', s.schema],
  ] as const) {
    if (value !== undefined && !SEGMENT.test(value))
      throw invalidParameter(
        `CreatePipeline target_schema_name "${value}" is not a valid name. Valid names must contain only alphanumeric characters and underscores, and cannot contain spaces, periods, forward slashes, or control characters.`,
      );
    void field;
  }
  if (s.catalog !== undefined && !SEGMENT.test(s.catalog))
    throw invalidParameter(`catalog "${s.catalog}" is not a valid catalog name.`);
  if (s.schema && s.target)
    throw invalidParameter('Specify either schema or target (its legacy name), not both.');
  if (s.storage && s.catalog)
    throw invalidParameter(
      'storage cannot be set for a pipeline that publishes to Unity Catalog (catalog is set): its storage is managed.',
    );
  if (s.edition !== undefined && !/^(core|pro|advanced)$/i.test(String(s.edition)))
    throw invalidParameter(`edition must be CORE, PRO or ADVANCED, not "${String(s.edition)}".`);
  if (s.channel !== undefined && !/^(current|preview)$/i.test(String(s.channel)))
    throw invalidParameter(`channel must be CURRENT or PREVIEW, not "${String(s.channel)}".`);
  for (const [i, lib] of (s.libraries ?? []).entries()) {
    const kinds = (['notebook', 'file', 'glob', 'jar', 'whl', 'maven'] as const).filter(
      (k) => lib[k] !== undefined,
    );
    if (kinds.length !== 1)
      throw invalidParameter(
        `libraries[${i}] must have exactly one of notebook, file, glob, jar, whl, maven.`,
      );
    if (lib.notebook && !lib.notebook.path)
      throw invalidParameter(`libraries[${i}].notebook.path is required.`);
    if (lib.file && !lib.file.path) throw invalidParameter(`libraries[${i}].file.path is required.`);
    if (lib.glob && !lib.glob.include) throw invalidParameter(`libraries[${i}].glob.include is required.`);
  }
}

/**
 * EditPipeline replaces the whole spec. Databricks' rules: the id cannot change, a pipeline cannot move
 * between Unity Catalog and the Hive metastore, and the storage of a Hive metastore pipeline is fixed.
 */
export function checkEdit(old: Spec, next: Spec, bodyId: string | undefined): void {
  if (bodyId !== undefined && bodyId !== old.id)
    throw invalidParameter(`The pipeline id in the settings (${bodyId}) does not match ${old.id}.`);
  if (Boolean(old.catalog) !== Boolean(next.catalog))
    throw invalidParameter(
      'A pipeline cannot switch between Unity Catalog (catalog) and the Hive metastore (storage); create a new pipeline.',
    );
  if (!old.catalog && old.storage && next.storage && next.storage !== old.storage)
    throw invalidParameter(`storage cannot be changed (it is ${old.storage}).`);
}

/** The schema datasets are published to: `schema`, else its legacy name `target`. */
export const targetSchema = (s: Spec): string | undefined => s.schema ?? s.target;
