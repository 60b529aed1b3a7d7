/**
 * The shared, serialized parts of the composites: the one warehouse MCP tools run SQL on when no warehouse is
 * named, and setup_fixture itself. Two agents calling setup_fixture at once get one catalog, one schema and
 * one warehouse, not two, because both calls pass through the same queue.
 */
import { Mutex } from '@minilake/core';
import type { Rest } from './rest.js';

export const MCP_WAREHOUSE_NAME = 'MiniLake MCP';

interface Warehouse {
  id: string;
  name?: string;
  state?: string;
}

export class Fixtures {
  readonly setupLock = new Mutex();
  private readonly warehouseLock = new Mutex();
  private warehouseId: string | undefined;
  private readonly memo = new Map<string, Promise<unknown>>();

  constructor(private readonly rest: Rest) {}

  /** Computes a value once per host (a failure is not remembered). */
  once<T>(key: string, compute: () => Promise<T>): Promise<T> {
    let p = this.memo.get(key) as Promise<T> | undefined;
    if (!p) {
      p = compute().catch((e: unknown) => {
        this.memo.delete(key);
        throw e;
      });
      this.memo.set(key, p);
    }
    return p;
  }

  /** Forgets the remembered warehouse (after reset_state). */
  forget(): void {
    this.warehouseId = undefined;
  }

  /**
   * The warehouse to use when a tool names none: the one this server used before if it still exists, else
   * the one named "MiniLake MCP", else any warehouse that is not deleted (preferring a running one), else a
   * new "MiniLake MCP" warehouse. A stopped warehouse is fine: a statement starts it.
   */
  warehouse(): Promise<{ id: string; created: boolean }> {
    return this.warehouseLock.run(async () => {
      if (this.warehouseId) {
        try {
          const w = await this.rest.get<Warehouse>(`/api/2.0/sql/warehouses/${this.warehouseId}`);
          if (w.state !== 'DELETED' && w.state !== 'DELETING')
            return { id: this.warehouseId, created: false };
        } catch {
          // gone (reset): look again
        }
      }
      const list = await this.rest.get<{ warehouses?: Warehouse[] }>('/api/2.0/sql/warehouses');
      const live = (list.warehouses ?? []).filter((w) => w.state !== 'DELETED' && w.state !== 'DELETING');
      // The agent's own warehouse if it made one, else the workspace's starter warehouse (what a user of a
      // fresh workspace runs on too), else whatever runs: run_sql's description says the same.
      const pick =
        live.find((w) => w.name === MCP_WAREHOUSE_NAME) ??
        live.find((w) => w.id === 'dev') ??
        live.find((w) => w.state === 'RUNNING') ??
        live[0];
      if (pick) {
        this.warehouseId = pick.id;
        return { id: pick.id, created: false };
      }
      const made = await this.rest.post<{ id: string }>('/api/2.0/sql/warehouses', {
        name: MCP_WAREHOUSE_NAME,
        cluster_size: '2X-Small',
        // An agent's warehouse should not stop under it between two calls.
        auto_stop_mins: 0,
        max_num_clusters: 1,
      });
      this.warehouseId = made.id;
      return { id: made.id, created: true };
    });
  }
}
