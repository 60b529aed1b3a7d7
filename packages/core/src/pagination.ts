/**
 * The three Databricks pagination styles. None of them ever returns a next token on the last page:
 * the SDK iterators loop while a token is present, so a stray token is an endless loop.
 */
import { invalidParameter } from './errors.js';

const encodeToken = (key: string) => Buffer.from(key, 'utf8').toString('base64url');
function decodeToken(token: string): string {
  const key = Buffer.from(token, 'base64url').toString('utf8');
  if (encodeToken(key) !== token) throw invalidParameter(`Invalid page_token: ${token}`);
  return key;
}

export interface Page<T> {
  items: T[];
  nextPageToken?: string;
}

/**
 * Keyset pagination over items sorted by `key`: a token is the last key of the previous page, so pages stay
 * correct when items are added or removed between calls.
 */
export function keysetPage<T>(
  sorted: readonly T[],
  key: (item: T) => string,
  pageSize: number | undefined,
  pageToken: string | undefined,
): Page<T> {
  let start = 0;
  if (pageToken) {
    const after = decodeToken(pageToken);
    start = sorted.findIndex((item) => key(item) > after);
    if (start < 0) start = sorted.length;
  }
  if (pageSize === undefined) return { items: sorted.slice(start) };
  const items = sorted.slice(start, start + pageSize);
  const last = items[items.length - 1];
  const more = start + pageSize < sorted.length;
  return more && last !== undefined ? { items, nextPageToken: encodeToken(key(last)) } : { items };
}

/**
 * Unity Catalog `max_results`: absent returns everything (legacy), 0 means the server's page size,
 * a positive value is capped at the server maximum, a negative value is rejected.
 */
export function ucPageSize(
  maxResults: number | undefined,
  serverDefault = 1000,
  serverMax = 1000,
): number | undefined {
  if (maxResults === undefined) return undefined;
  if (maxResults < 0) throw invalidParameter('max_results must be greater than or equal to 0');
  if (maxResults === 0) return serverDefault;
  return Math.min(maxResults, serverMax);
}

export function ucPage<T>(
  sorted: readonly T[],
  key: (item: T) => string,
  query: { max_results?: number | undefined; page_token?: string | undefined },
  limits?: { serverDefault?: number; serverMax?: number },
): Page<T> {
  const size = ucPageSize(query.max_results, limits?.serverDefault, limits?.serverMax);
  return keysetPage(sorted, key, size, query.page_token || undefined);
}

/** Jobs style: `limit` (1..max, default 20), `page_token`, answering `has_more` and `next_page_token`. */
export function jobsPage<T>(
  sorted: readonly T[],
  key: (item: T) => string,
  query: { limit?: number | undefined; page_token?: string | undefined },
  limits: { defaultLimit?: number; maxLimit?: number } = {},
): Page<T> & { hasMore: boolean } {
  const { defaultLimit = 20, maxLimit = 100 } = limits;
  const limit = query.limit;
  if (limit !== undefined && (limit < 0 || limit > maxLimit)) {
    throw invalidParameter(`limit must be between 1 and ${maxLimit}`);
  }
  const size = limit === undefined || limit === 0 ? defaultLimit : limit;
  const page = keysetPage(sorted, key, size, query.page_token || undefined);
  return { ...page, hasMore: page.nextPageToken !== undefined };
}

export interface ScimListResponse<T> {
  schemas: string[];
  totalResults: number;
  startIndex: number;
  itemsPerPage: number;
  Resources: T[];
}

/**
 * SCIM: 1-based `startIndex` and `count`. The SDK iterator stops only on a page with zero Resources and
 * computes the next index from the one echoed back, so startIndex is always echoed.
 */
export function scimPage<T>(
  all: readonly T[],
  query: { startIndex?: number | undefined; count?: number | undefined },
  defaultCount = 10000,
): ScimListResponse<T> {
  const startIndex = Math.max(1, query.startIndex ?? 1);
  const count = Math.max(0, query.count ?? defaultCount);
  const Resources = all.slice(startIndex - 1, startIndex - 1 + count);
  return {
    schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
    totalResults: all.length,
    startIndex,
    itemsPerPage: Resources.length,
    Resources,
  };
}
