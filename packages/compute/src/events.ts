/** The event log of each cluster (clusters/events): newest kept, both paging styles the SDKs use. */
import type { Clock, Collection } from '@minilake/core';
import { decodeOffset, encodeOffset } from './paging.js';

export interface ClusterEvent {
  cluster_id: string;
  timestamp: number;
  type: string;
  details: Record<string, unknown>;
}

const MAX_EVENTS_PER_CLUSTER = 5000;

export interface EventsQuery {
  cluster_id: string;
  start_time?: number | undefined;
  end_time?: number | undefined;
  order?: 'ASC' | 'DESC' | undefined;
  event_types?: readonly string[] | undefined;
  offset?: number | undefined;
  limit?: number | undefined;
  page_size?: number | undefined;
  page_token?: string | undefined;
}

export class ClusterEventLog {
  constructor(
    private readonly records: Collection<ClusterEvent[]>,
    private readonly clock: Clock,
  ) {}

  forget(clusterId: string): void {
    this.records.delete(clusterId);
  }

  add(clusterId: string, type: string, details: Record<string, unknown>): void {
    const list = this.records.get(clusterId) ?? [];
    list.push({ cluster_id: clusterId, timestamp: this.clock.now(), type, details });
    if (list.length > MAX_EVENTS_PER_CLUSTER) list.splice(0, list.length - MAX_EVENTS_PER_CLUSTER);
    this.records.set(clusterId, list);
  }

  list(q: EventsQuery) {
    const types = q.event_types && q.event_types.length > 0 ? new Set(q.event_types) : undefined;
    const order = q.order ?? 'DESC';
    const all = (this.records.get(q.cluster_id) ?? [])
      .map((e, i) => ({ e, i }))
      .filter(
        ({ e }) =>
          (q.start_time === undefined || e.timestamp >= q.start_time) &&
          (q.end_time === undefined || e.timestamp <= q.end_time) &&
          (!types || types.has(e.type)),
      )
      .sort((a, b) => (a.e.timestamp - b.e.timestamp || a.i - b.i) * (order === 'ASC' ? 1 : -1))
      .map(({ e }) => e);
    const total_count = all.length;
    if (q.page_token !== undefined || q.page_size !== undefined) {
      // The newer token paging: page_size 0..500 (0 or absent: the server decides), out of range is clamped.
      const size = Math.min(500, Math.max(0, q.page_size ?? 0)) || 50;
      const start = q.page_token ? decodeOffset(q.page_token) : 0;
      const events = all.slice(start, start + size);
      return {
        events,
        total_count,
        ...(start + size < total_count ? { next_page_token: encodeOffset(start + size) } : {}),
        ...(start > 0 ? { prev_page_token: encodeOffset(Math.max(0, start - size)) } : {}),
      };
    }
    const offset = q.offset ?? 0;
    const limit = q.limit ?? 50;
    const events = all.slice(offset, offset + limit);
    const next =
      offset + limit < total_count
        ? {
            next_page: {
              cluster_id: q.cluster_id,
              ...(q.start_time !== undefined ? { start_time: q.start_time } : {}),
              ...(q.end_time !== undefined ? { end_time: q.end_time } : {}),
              order,
              ...(q.event_types ? { event_types: q.event_types } : {}),
              offset: offset + limit,
              limit,
            },
          }
        : {};
    return { events, total_count, ...next };
  }
}
