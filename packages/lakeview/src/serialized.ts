/**
 * What Databricks stores of a `serialized_dashboard`, read from the Databricks CLI's test server (which is
 * checked against the service): the text verbatim, except that pages get `pageType: PAGE_TYPE_CANVAS` when they
 * lack one and `dataset_catalog` / `dataset_schema` set every dataset's catalog / schema, both of which
 * re-serialize the JSON; an empty object comes back as `{}`; the stored text always ends in one newline.
 * Neither the CLI nor the Terraform provider compares this text (both detect changes by etag or their own
 * hash), but `bundle generate` and `workspace export` hand it to users, so it stays as close to theirs as this.
 */
import { invalidParameter } from '@minilake/core';
import type { SerializedDashboard } from './model.js';

export function parseSerialized(text: string): SerializedDashboard {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw invalidParameter(`serialized_dashboard is not valid JSON: ${(e as Error).message}`);
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalidParameter('serialized_dashboard must be a JSON object.');
  const d = parsed as SerializedDashboard;
  if (d.pages !== undefined && !Array.isArray(d.pages))
    throw invalidParameter('serialized_dashboard.pages must be an array.');
  if (d.datasets !== undefined && !Array.isArray(d.datasets))
    throw invalidParameter('serialized_dashboard.datasets must be an array.');
  return d;
}

/** A new dashboard's content when none is sent: one empty page, as the Databricks editor starts one. */
export function emptyDashboard(pageName: string): string {
  return `${JSON.stringify({ pages: [{ name: pageName, displayName: 'New Page', pageType: 'PAGE_TYPE_CANVAS' }] })}\n`;
}

export function normalizeSerialized(
  text: string,
  opts: { datasetCatalog?: string | undefined; datasetSchema?: string | undefined } = {},
): string {
  const d = parseSerialized(text);
  let mutated = false;
  for (const page of d.pages ?? []) {
    if (page && typeof page === 'object' && page.pageType === undefined) {
      page.pageType = 'PAGE_TYPE_CANVAS';
      mutated = true;
    }
  }
  for (const ds of d.datasets ?? []) {
    if (!ds || typeof ds !== 'object') continue;
    if (opts.datasetCatalog) {
      ds.catalog = opts.datasetCatalog;
      mutated = true;
    }
    if (opts.datasetSchema) {
      ds.schema = opts.datasetSchema;
      mutated = true;
    }
  }
  const out = mutated || Object.keys(d).length === 0 ? JSON.stringify(d) : text;
  return out.endsWith('\n') ? out : `${out}\n`;
}
