import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { systemClock, type Clock } from './clock.js';
import { silentLogger, type Logger } from './logger.js';
import type {
  FaultPoint,
  Identity,
  InjectedFault,
  ServiceContext,
  ServiceDefinition,
  SharedResource,
} from './service.js';
import { identityPrincipal, requestPrincipal } from './principal.js';
import { readSettings, type SettingsSchema } from './settings.js';
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
  /** The service's settings, already parsed (what the host passes). */
  settings?: object;
  /**
   * Raw MINILAKE_* values (what a test or an embedder gives), parsed with `settingsSchema` (contextFor: the
   * definition's `settings`) when `settings` is not given. A bad value throws a SettingsError.
   */
  config?: Record<string, string | undefined>;
  settingsSchema?: SettingsSchema;
  peers?: Map<string, unknown>;
  /**
   * What the service declares (ServiceDefinition.uses / optionalUses). When given, a peer lookup outside
   * these lists throws; contextFor(def) fills them in from the definition.
   */
  uses?: readonly string[];
  optionalUses?: readonly string[];
  /** ServiceDefinition.folders; when given, ctx.folder of another name throws. */
  folders?: readonly string[];
  sharedResources?: Map<string, Promise<SharedResource>>;
  /** See ServiceContext.hostToken; a random one (accepted by nobody) when not given. */
  hostToken?: string;
  /** Where the host listens, once it does (see ServiceContext.selfUrl). */
  selfUrl?: () => string | undefined;
  /** The host's injected faults (see ServiceContext.fault); none when not given. */
  fault?: (point: FaultPoint, subject: string) => InjectedFault | undefined;
  /** The host's app, for ServiceContext.request (looked up per call: the app is composed after create()). */
  hostApp?: () => { request(path: string, init?: RequestInit): Response | Promise<Response> } | undefined;
}

/**
 * Builds a ServiceContext. apps/server uses it with everything filled in; an embedder or a test can call it
 * with nothing and get a temp data dir, in-memory state and the system clock.
 */
// The settings type is the caller's to name (a test context for an engine); the host passes parsed values.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function createContext<S extends object = any>(opts: ContextOptions = {}): ServiceContext<S> {
  const shared = opts.sharedResources ?? new Map<string, Promise<SharedResource>>();
  const peers = opts.peers ?? new Map<string, unknown>();
  const dataDir = path.resolve(opts.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'minilake-')));
  const who = opts.service ?? 'service';
  const declared = opts.uses !== undefined || opts.optionalUses !== undefined;
  const checkDeclared = (name: string, optional: boolean) => {
    if (!declared) return;
    if (opts.uses?.includes(name)) return;
    if (optional && opts.optionalUses?.includes(name)) return;
    const list = optional ? 'uses or optionalUses' : 'uses';
    throw new Error(
      `Service '${who}' looked up peer '${name}' without declaring it: add '${name}' to its ${list}` +
        ` (ServiceDefinition in its src/index.ts).`,
    );
  };
  const settings = opts.settings ?? readSettings(opts.settingsSchema ?? {}, opts.config ?? {});
  const identity = opts.identity ?? defaultIdentity;
  const fallback = identityPrincipal(identity);
  return {
    settings: settings as S,
    clock: opts.clock ?? systemClock,
    logger: opts.logger ?? silentLogger,
    dataDir,
    dir: path.join(dataDir, opts.service ?? 'service'),
    folder(name: string): string {
      if (opts.folders !== undefined && !opts.folders.includes(name)) {
        throw new Error(
          `Service '${who}' asked for folder '${name}' without declaring it: add it to its folders` +
            ` (ServiceDefinition in its src/index.ts).`,
        );
      }
      if (name === '' || name.includes('/') || name.includes('\\') || name === '.' || name === '..')
        throw new Error(`Folder name ${JSON.stringify(name)} must be one plain segment`);
      return path.join(dataDir, name);
    },
    state: opts.state ?? StateDb.memory(),
    identity,
    principal: () => requestPrincipal() ?? fallback,
    shared<T extends SharedResource>(key: string, create: () => T | Promise<T>): Promise<T> {
      let p = shared.get(key);
      if (!p) {
        p = Promise.resolve(create());
        shared.set(key, p);
      }
      return p as Promise<T>;
    },
    peer<A>(def: ServiceDefinition<A, SettingsSchema>): A {
      const name = def.name;
      checkDeclared(name, false);
      if (!peers.has(name)) {
        throw new Error(
          `Service '${who}' needs service '${name}', which is not enabled here` +
            ` (enable '${name}', or give its api in the host's peers).`,
        );
      }
      return peers.get(name) as A;
    },
    optionalPeer<A>(def: ServiceDefinition<A, SettingsSchema>): A | undefined {
      checkDeclared(def.name, true);
      return peers.get(def.name) as A | undefined;
    },
    hostToken: opts.hostToken ?? `dapi${randomBytes(16).toString('hex')}`,
    selfUrl: opts.selfUrl ?? (() => undefined),
    fault: opts.fault ?? (() => undefined),
    async request(p: string, init?: RequestInit): Promise<Response> {
      const app = opts.hostApp?.();
      if (!app) throw new Error('This host has no app to send requests through');
      return app.request(`http://localhost${p}`, init);
    },
  };
}

/**
 * The context for one service definition: its name names its folder, its declared `uses` / `optionalUses`
 * bound what ctx.peer may look up, and `opts.config` (raw values) is parsed with its `settings` unless
 * `opts.settings` is given. What hosts (apps/server, the test helpers) call.
 */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function contextFor<S extends object = any>(
  def: Pick<ServiceDefinition, 'name' | 'uses' | 'optionalUses' | 'folders' | 'settings'>,
  opts: Omit<ContextOptions, 'service' | 'uses' | 'optionalUses' | 'folders' | 'settingsSchema'> = {},
): ServiceContext<S> {
  return createContext<S>({
    ...opts,
    settingsSchema: def.settings ?? {},
    service: def.name,
    uses: def.uses ?? [],
    optionalUses: def.optionalUses ?? [],
    folders: def.folders ?? [],
  });
}
