/**
 * Event log entries in Databricks' shape (PipelineEvent): `id`, `sequence`, `origin`, `timestamp` (ISO),
 * `message`, `level`, `maturity_level`, `event_type`, `error` and the type's `details`. Messages follow
 * Databricks' wording ("Update 6fc8a0 is RUNNING.", "Flow 'x' has COMPLETED.") because clients print them.
 */
import type { PipelinesStore, PipelineRecord, UpdateRecord } from './store.js';

export interface ErrorDetail {
  exceptions: {
    class_name?: string;
    message: string;
    stack?: { declaring_class?: string; file_name?: string; line_number?: number; method_name?: string }[];
  }[];
  fatal: boolean;
}

export interface EventInput {
  event_type: string;
  message: string;
  level?: 'INFO' | 'WARN' | 'ERROR' | 'METRICS';
  maturity_level?: 'STABLE' | 'EVOLVING' | 'DEPRECATED';
  details?: Record<string, unknown>;
  origin?: Record<string, unknown>;
  error?: ErrorDetail;
  /** ms; default now (never before the previous event) */
  at?: number;
}

export const shortId = (updateId: string) => updateId.replace(/-/g, '').slice(0, 6);

export class Emitter {
  constructor(
    private readonly store: PipelinesStore,
    private readonly orgId: string,
  ) {}

  emit(p: PipelineRecord, u: UpdateRecord | undefined, e: EventInput) {
    return this.store.addEvent(
      p.pipeline_id,
      u?.update_id,
      ({ id, seq, ts }) => {
        const origin: Record<string, unknown> = {
          org_id: Number(this.orgId) || this.orgId,
          pipeline_id: p.pipeline_id,
          pipeline_name: p.spec.name ?? '',
          ...(u ? { update_id: u.update_id } : {}),
          ...e.origin,
        };
        return {
          id,
          sequence: { control_plane_seq_no: seq, data_plane_id: { instance: 'minilake', seq_no: seq } },
          origin,
          timestamp: new Date(ts).toISOString(),
          message: e.message,
          level: e.level ?? 'INFO',
          maturity_level: e.maturity_level ?? 'STABLE',
          event_type: e.event_type,
          ...(e.error ? { error: e.error } : {}),
          ...(e.details ? { details: e.details } : {}),
        };
      },
      e.at,
    );
  }
}
