import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { silentLogger, type Logger } from './logger.js';
import type { Identity, ServiceContext, SharedResource } from './service.js';
import { StateDb } from './state.js';

export const defaultIdentity: Identity = {
  userName: 'dev@minilake.local',
  userId: '1000000000000001',
  displayName: 'MiniLake Developer',
  workspaceId: '1000000000000000',
};

export interface ContextOptions {
  /** The service this context is for; names its folder (`dir`). */
  service?: string;
  dataDir?: string;
  clock?: Clock;
  logger?: Logger;
  state?: StateDb;
  identity?: Identity;
  config?: Record<string, string | undefined>;
  peers?: Map<string, unknown>;
  sharedResources?: Map<string, Promise<SharedResource>>;
  /** Where the host listens, once it does (see ServiceContext.selfUrl). */
  selfUrl?: () => string | undefined;
  /** The host's app, for ServiceContext.request (looked up per call: the app is composed after create()). */
  hostApp?: () => { request(path: string, init?: RequestInit): Response | Promise<Response> } | undefined;
}

/**
 * Builds a ServiceContext. apps/server uses it with everything filled in; an embedder or a test can call it
 * with nothing and get a temp data dir, in-memory state and the system clock.
 */
export function createContext(opts: ContextOptions = {}): ServiceContext {
  const shared = opts.sharedResources ?? new Map<string, Promise<SharedResource>>();
  const peers = opts.peers ?? new Map<string, unknown>();
  const dataDir = path.resolve(opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'minilake-')));
  return {
    config: opts.config ?? {},
    clock: opts.clock ?? systemClock,
    logger: opts.logger ?? silentLogger,
    dataDir,
    dir: path.join(dataDir, opts.service ?? 'service'),
    state: opts.state ?? StateDb.memory(),
    identity: opts.identity ?? defaultIdentity,
    shared<T extends SharedResource>(key: string, create: () => T | Promise<T>): Promise<T> {
      let p = shared.get(key);
      if (!p) {
        p = Promise.resolve(create());
        shared.set(key, p);
      }
      return p as Promise<T>;
    },
    peer<T>(name: string): T | undefined {
      return peers.get(name) as T | undefined;
    },
    selfUrl: opts.selfUrl ?? (() => undefined),
    async request(p: string, init?: RequestInit): Promise<Response> {
      const app = opts.hostApp?.();
      if (!app) throw new Error('This host has no app to send requests through');
      return app.request(`http://localhost${p}`, init);
    },
  };
}
