/**
 * An Alert V2 is also a workspace file, `<parent_path>/<display_name>.dbalert.json`, as on Databricks: listed
 * (object_type FILE), exported (the alert's definition in the `.dbalert.json` form bundles use; `bundle
 * generate alert` reads it), moved when the alert is renamed, gone when the alert is trashed, and a delete of
 * the file (or of a folder holding it) trashes the alert. The entry goes through the workspace's owned-object
 * seam; the file's content is the alert itself, serialized on each export.
 */
import { invalidParameter } from '@minilake/core';
import type { ForeignObjectType, WorkspaceApi } from '@minilake/workspace';
import type { AlertV2Record } from './alerts-v2.js';
import type { Json } from './store.js';

/** The tree's name for the entry; clients see FILE (the CLI's test server records the same). */
export const ALERT_V2 = 'ALERT_V2';
const SUFFIX = '.dbalert.json';

type Placed = Pick<AlertV2Record, 'parent_path' | 'display_name'>;

/**
 * The workspace path of an alert's file (as the CLI joins it: `path.Join(parent_path, name + suffix)`). An
 * alert created without parent_path has its file in `home` (the workspace user's home folder); parent_path
 * stays absent in its answers (the Terraform provider keeps parent_path optional, not computed: a value it
 * did not send fails its apply).
 */
export function alertFilePath(a: Placed, home: string): string {
  const parent = (a.parent_path || home).replace(/\/+$/, '');
  return `${parent}/${a.display_name}${SUFFIX}`;
}

/** A number the way the alerts backend writes a threshold in the file: always with a decimal point. */
class Double {
  constructor(readonly value: number) {}
  toString(): string {
    const s = JSON.stringify(this.value);
    return /[.eE]/.test(s) ? s : `${s}.0`;
  }
}

/** JSON with two-space indents, as the file is written, where a Double keeps its decimal point. */
function pretty(value: unknown, indent = ''): string {
  if (value instanceof Double) return value.toString();
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const inner = `${indent}  `;
    return `[\n${value.map((x) => inner + pretty(x, inner)).join(',\n')}\n${indent}]`;
  }
  if (value && typeof value === 'object') {
    const entries = Object.entries(value).filter(([, x]) => x !== undefined);
    if (entries.length === 0) return '{}';
    const inner = `${indent}  `;
    const body = entries.map(([k, x]) => `${inner}${JSON.stringify(k)}: ${pretty(x, inner)}`).join(',\n');
    return `{\n${body}\n${indent}}`;
  }
  return JSON.stringify(value);
}

/** Lines as bundles write them (each ends with a newline when joined, so the last empty one is dropped). */
const linesOf = (s: string | undefined) => (s ? s.replace(/\n$/, '').split('\n') : undefined);

const column = (c: Json | undefined) => c && { name: c.name, display: c.display, aggregation: c.aggregation };

/**
 * The `.dbalert.json` content: what the alerts backend materializes (the CLI's goldens record it): no
 * display_name nor warehouse_id (the bundle keeps those), source before comparison_operator, a notification
 * object always (notify_on_ok written even when false), `query_text` and `custom_description` as lines.
 */
export function serializeAlertFile(a: AlertV2Record): string {
  const ev = a.evaluation;
  const t = ev.threshold as Json | undefined;
  const tv = t?.value as Json | undefined;
  const n = ev.notification as Json | undefined;
  const file = {
    custom_summary: a.custom_summary || undefined,
    evaluation: {
      source: column(ev.source as Json),
      comparison_operator: ev.comparison_operator,
      threshold: t && {
        column: column(t.column as Json | undefined),
        value: tv && {
          bool_value: tv.bool_value || undefined,
          double_value: typeof tv.double_value === 'number' ? new Double(tv.double_value) : undefined,
          string_value: tv.string_value || undefined,
        },
      },
      empty_result_state: ev.empty_result_state,
      notification: n ? { ...n, notify_on_ok: n.notify_on_ok ?? false } : {},
    },
    schedule: {
      quartz_cron_schedule: a.schedule.quartz_cron_schedule,
      timezone_id: a.schedule.timezone_id,
      pause_status: a.schedule.pause_status,
    },
    query_lines: linesOf(a.query_text),
    custom_description_lines: linesOf(a.custom_description),
  };
  return `${pretty(file)}\n`;
}

export interface AlertFilesDeps {
  workspace: WorkspaceApi;
  /** Where the file of an alert without parent_path is: the workspace user's home, `/Users/<name>`. */
  home: string;
  alert(id: string): AlertV2Record | undefined;
  /** A client deleted the file (or a folder above it): the alert goes to the trash. */
  trash(id: string): void;
}

/** Keeps each alert's workspace file in step with the alert. */
export class AlertFiles {
  constructor(private readonly d: AlertFilesDeps) {}

  /** The workspace path in its canonical form (no `/Workspace` prefix), for comparisons. */
  private canonical(a: Placed): string {
    return this.d.workspace.canonicalPath(alertFilePath(a, this.d.home));
  }

  /** A display name is the file's name: one path segment. */
  checkName(name: string | undefined): void {
    if (name && (name.includes('/') || name === '.' || name === '..'))
      throw invalidParameter(`display_name must not contain '/': ${name}`);
  }

  /** The new alert's file: 404 when its folder is missing, 409 when the name is taken (nothing is kept). */
  async add(a: AlertV2Record): Promise<void> {
    await this.d.workspace.addObject(alertFilePath(a, this.d.home), ALERT_V2, a.id);
  }

  /** After a rename or a new parent_path: the file moves (the target must be free). */
  async move(before: AlertV2Record, after: AlertV2Record): Promise<void> {
    const from = this.canonical(before);
    const to = this.canonical(after);
    if (from === to) return;
    if (this.d.workspace.objectAt(from, ALERT_V2)?.resource_id === before.id)
      await this.d.workspace.moveObject(from, to);
    else await this.d.workspace.addObject(to, ALERT_V2, after.id);
  }

  async remove(a: AlertV2Record): Promise<void> {
    await this.d.workspace.removeObject(alertFilePath(a, this.d.home), a.id);
  }

  hooks(): ForeignObjectType {
    return {
      noun: 'an alert',
      objectType: 'FILE',
      export: async (id) => {
        const a = this.d.alert(id);
        if (!a) throw invalidParameter(`Alert ${id} does not exist.`);
        return { content: Buffer.from(serializeAlertFile(a)), file_type: 'json' };
      },
      onDeleted: (objects) => {
        for (const o of objects) this.d.trash(o.resourceId);
      },
    };
  }
}
