/**
 * The SQL service's warm-up, so the first statement after `ready` costs what a later new text costs instead of
 * a hidden second start-up (issue 16). It loads the dialect's WebAssembly (dialect/polyglot.ts), then runs a
 * few typical statements through the same pipeline statements use (executeDatabricksSql on a pooled engine
 * connection): the dialect's functions, the session set-up on that connection, DuckDB's first query and the
 * JavaScript of the pipeline are then compiled, and the translation of the most common first statement is
 * cached. It goes around the StatementManager on purpose: nothing shows in query history.
 *
 * Not at start-up: the loaded dialect holds ~65 MB of RSS that a server nobody sends SQL to should not carry
 * (bench/README.md, "Issue 16, warm"). The service starts it when SQL becomes likely: the first request to the
 * SQL API (clients list, get or create their warehouse first) and a warehouse starting, which any front end
 * (REST, Thrift, MCP, jobs) does before its first statement on it and which takes longer than the warm-up.
 */
import type { DuckDbEngine } from '@minilake/engine-duckdb';
import type { UnityCatalogApi } from '@minilake/unity-catalog';
import type { Logger } from '@minilake/core';
import { executeDatabricksSql, warmPolyglot } from './dialect/index.js';

/** What clients send first (`SELECT 1` is the SDKs' and the CLI's connectivity check), and a typical query. */
const WARM_TEXTS = ['SELECT 1', "SELECT CAST(2 AS STRING) AS s, concat('a', 'b') AS c, current_date() AS d"];

interface ChunkLike {
  rowCount: number;
}
interface ResultLike {
  columnCount: number;
  fetchChunk?(): Promise<ChunkLike | null>;
}

export interface SqlWarmerOptions {
  engine: DuckDbEngine;
  uc?: UnityCatalogApi | undefined;
  user: string;
  logger: Logger;
}

export interface SqlWarmer {
  /** Starts the warm-up once per service; later calls return the same promise. It never rejects. */
  warm(): Promise<void>;
  /** Waits for a warm-up under way (the service's close, before the engine closes). */
  settle(): Promise<void>;
}

export function sqlWarmer(opts: SqlWarmerOptions): SqlWarmer {
  let warming: Promise<void> | undefined;
  let closed = false;
  const run = async () => {
    const t0 = performance.now();
    await warmPolyglot();
    for (const statement of WARM_TEXTS) {
      if (closed) return;
      const { conn, release } = await opts.engine.acquire();
      try {
        const result = (await executeDatabricksSql(
          conn as never,
          { statement, namespaceMayBeMissing: true, user: opts.user },
          { engine: opts.engine, uc: opts.uc },
        )) as unknown as ResultLike;
        // Read to the end: a connection goes back to the pool with nothing left running on it.
        if (typeof result.fetchChunk === 'function') while (((await result.fetchChunk())?.rowCount ?? 0) > 0);
      } finally {
        release();
      }
    }
    opts.logger.debug(`SQL warm-up done in ${(performance.now() - t0).toFixed(0)} ms`);
  };
  return {
    warm() {
      warming ??= run().catch((e: unknown) => {
        // A failed warm-up only means the first statement pays for the load; that statement reports errors.
        if (!closed) opts.logger.warn('SQL warm-up failed', { error: String(e) });
      });
      return warming;
    },
    async settle() {
      closed = true;
      await warming;
    },
  };
}
