/**
 * Query history: one record per statement, updated as it runs. Listed most recent first, filtered the way
 * GET /api/2.0/sql/history/queries filters (statuses, warehouse_ids, statement_ids, user_ids, start time).
 */
import { CollectionStore, invalidParameter, type Collection, type StateDb } from '@minilake/core';

export interface QueryTag {
  key: string;
  value?: string | null;
}

export type QueryStatus = 'QUEUED' | 'RUNNING' | 'CANCELED' | 'FAILED' | 'FINISHED';

export interface QueryRecord {
  query_id: string;
  status: QueryStatus;
  query_text: string;
  query_start_time_ms: number;
  execution_end_time_ms?: number;
  query_end_time_ms?: number;
  duration?: number;
  warehouse_id: string;
  endpoint_id: string;
  user_id: number;
  user_name: string;
  executed_as_user_id: number;
  executed_as_user_name: string;
  rows_produced?: number;
  error_message?: string;
  statement_type?: string;
  is_final: boolean;
  client_application: string;
  channel_used: { name: string };
  plans_state: string;
  query_tags?: QueryTag[];
  /** total_time_ms etc. */
  metrics?: Record<string, number | boolean>;
}

export interface QueryFilter {
  statuses?: string[];
  warehouse_ids?: string[];
  statement_ids?: string[];
  user_ids?: number[];
  start_time_ms?: number;
  end_time_ms?: number;
}

const MAX_RECORDS = 10_000;

export class QueryHistoryStore extends CollectionStore {
  private readonly queries: Collection<QueryRecord>;
  /** Insertion order (start time order) of ids, kept in memory; entries before `head` were evicted. */
  private order: string[];
  private head = 0;

  constructor(db: StateDb) {
    super('sql-history', 1, db);
    this.queries = this.collection('queries');
    this.order = this.startOrder();
  }

  private startOrder(): string[] {
    return [...this.queries.values()]
      .sort((a, b) => a.query_start_time_ms - b.query_start_time_ms)
      .map((q) => q.query_id);
  }

  /** A snapshot's records, listed again: the order index is not part of the state, so it is rebuilt. */
  override restore(snapshot: unknown): void {
    super.restore(snapshot);
    this.order = this.startOrder();
    this.head = 0;
  }

  put(rec: QueryRecord): void {
    if (!this.queries.has(rec.query_id)) {
      this.order.push(rec.query_id);
      // Evicting by moving `head` (compacting once per MAX_RECORDS evictions): a splice at the front of a
      // 10,000-entry array on every statement cost ~10 µs per statement once the history was full.
      while (this.order.length - this.head > MAX_RECORDS) this.queries.delete(this.order[this.head++]!);
      if (this.head >= MAX_RECORDS) {
        this.order = this.order.slice(this.head);
        this.head = 0;
      }
    }
    this.queries.set(rec.query_id, rec);
  }

  get(id: string): QueryRecord | undefined {
    return this.queries.get(id);
  }

  list(
    filter: QueryFilter,
    maxResults: number | undefined,
    pageToken: string | undefined,
    includeMetrics: boolean,
  ): { res: QueryRecord[]; has_next_page: boolean; next_page_token?: string } {
    const size = maxResults ?? 100;
    if (size < 1 || size > 1000) throw invalidParameter('max_results must be between 1 and 1000.');
    let start = this.order.length - 1; // most recent first
    if (pageToken) {
      const decoded = decodeToken(pageToken);
      // A token whose record was evicted since has nothing older left to return.
      const idx = this.order.lastIndexOf(decoded);
      start = idx < this.head ? -1 : idx - 1;
    }
    const res: QueryRecord[] = [];
    let i = start;
    for (; i >= this.head && res.length < size; i--) {
      const q = this.queries.get(this.order[i]!);
      if (q && matches(q, filter)) res.push(q);
    }
    // Is there any further match? Look ahead so that the last page never carries a token.
    let more = false;
    for (let j = i; j >= this.head; j--) {
      const q = this.queries.get(this.order[j]!);
      if (q && matches(q, filter)) {
        more = true;
        break;
      }
    }
    const out = res.map((q) => {
      if (includeMetrics) return q;
      const { metrics: _m, ...rest } = q;
      return rest as QueryRecord;
    });
    const last = res[res.length - 1];
    return more && last
      ? { res: out, has_next_page: true, next_page_token: encodeToken(last.query_id) }
      : { res: out, has_next_page: false };
  }

  protected override onReset(): void {
    this.order = [];
    this.head = 0;
  }
}

function matches(q: QueryRecord, f: QueryFilter): boolean {
  if (f.statuses?.length && !f.statuses.includes(q.status)) return false;
  if (f.warehouse_ids?.length && !f.warehouse_ids.includes(q.warehouse_id)) return false;
  if (f.statement_ids?.length && !f.statement_ids.includes(q.query_id)) return false;
  if (f.user_ids?.length && !f.user_ids.includes(q.user_id)) return false;
  if (f.start_time_ms !== undefined && q.query_start_time_ms < f.start_time_ms) return false;
  if (f.end_time_ms !== undefined && q.query_start_time_ms > f.end_time_ms) return false;
  return true;
}

const encodeToken = (id: string) => Buffer.from(id, 'utf8').toString('base64url');
function decodeToken(token: string): string {
  const id = Buffer.from(token, 'base64url').toString('utf8');
  if (encodeToken(id) !== token) throw invalidParameter(`Invalid page_token: ${token}`);
  return id;
}
