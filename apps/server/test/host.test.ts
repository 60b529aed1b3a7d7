/**
 * The host's service phase with definitions of the test's own: the start order, lazy and eager creation, the
 * lifecycle hooks in the order the contract states (onListening; beforeReset and the state reset in reverse
 * start order, then afterReset, or afterRestore for a snapshot, in start order), and each service's settings.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import {
  defineService,
  numberSetting,
  silentLogger,
  StateDb,
  systemClock,
  defaultIdentity,
  type ServiceDefinition,
} from '@minilake/core';
import { ServiceHost } from '../src/host/services.js';

function fixture() {
  const log: string[] = [];
  const settings = { MINILAKE_T_DELAY: numberSetting({ doc: 'd', default: 1 }) };
  const def = (name: string, extra: Pick<ServiceDefinition, 'uses' | 'paths'> = {}) =>
    defineService<{ name: string }, typeof settings>({
      name,
      description: name,
      settings,
      ...extra,
      create(ctx) {
        log.push(`create ${name} delay=${ctx.settings.MINILAKE_T_DELAY}`);
        return {
          app: new Hono(),
          api: { name },
          state: [
            {
              name: `${name}-state`,
              version: 1,
              reset: () => void log.push(`reset ${name}`),
              snapshot: () => ({}),
              restore: () => undefined,
            },
          ],
          onListening: (url) => void log.push(`listening ${name} ${url}`),
          beforeReset: () => void log.push(`beforeReset ${name}`),
          afterReset: () => void log.push(`afterReset ${name}`),
          afterRestore: () => void log.push(`afterRestore ${name}`),
          close: () => void log.push(`close ${name}`),
        };
      },
    }) as ServiceDefinition;
  const defs = [
    def('base'),
    def('lazy', { uses: ['base'], paths: ['/api/2.0/lazy'] }),
    def('top', { uses: ['base'] }),
  ];
  const host = new ServiceHost({
    enabled: defs.map((d) => d.name),
    registry: new Map(defs.map((d) => [d.name, d])),
    persist: false,
    dataDir: mkdtempSync(path.join(os.tmpdir(), 'minilake-host-')),
    clock: systemClock,
    logger: silentLogger,
    state: StateDb.memory(),
    identity: defaultIdentity,
    settings: { MINILAKE_T_DELAY: 7 },
    hostApp: () => new Hono(),
  });
  return { host, log };
}

describe('the service host', () => {
  it('creates eager services in start order, lazy ones on use, each with its settings', async () => {
    const { host, log } = fixture();
    expect([...host.lazy]).toEqual(['lazy']);
    expect(host.eager()).toEqual(['base', 'top']);
    for (const name of host.eager()) await host.create(name);
    expect(log).toEqual(['create base delay=7', 'create top delay=7']);
    await host.create('lazy');
    await host.create('lazy');
    expect(log.filter((l) => l.startsWith('create lazy'))).toHaveLength(1);
    await host.close();
  });

  it('tells created services where it listens, and a service created later at once', async () => {
    const { host, log } = fixture();
    await host.create('base');
    host.listening('http://127.0.0.1:1234');
    expect(host.selfUrl()).toBe('http://127.0.0.1:1234');
    expect(log).toContain('listening base http://127.0.0.1:1234');
    await host.create('top');
    expect(log.slice(-1)).toEqual(['listening top http://127.0.0.1:1234']);
    expect(log.filter((l) => l.startsWith('listening base'))).toHaveLength(1);
    await host.close();
  });

  it('empties in reverse start order, then lays down a new workspace in start order; a restore ends with afterRestore', async () => {
    const { host, log } = fixture();
    await host.createAll();
    log.length = 0;
    await host.reset();
    expect(log).toEqual([
      'beforeReset top',
      'reset top',
      'beforeReset lazy',
      'reset lazy',
      'beforeReset base',
      'reset base',
      'afterReset base',
      'afterReset lazy',
      'afterReset top',
    ]);
    log.length = 0;
    await host.reset(['base']);
    expect(log).toEqual(['beforeReset base', 'reset base', 'afterReset base']);
    await expect(host.reset(['nope'])).rejects.toThrow("Service 'nope' is not enabled");
    log.length = 0;
    await host.emptyForRestore();
    await host.restored();
    expect(log).toEqual([
      'beforeReset top',
      'reset top',
      'beforeReset lazy',
      'reset lazy',
      'beforeReset base',
      'reset base',
      'afterRestore base',
      'afterRestore lazy',
      'afterRestore top',
    ]);
    log.length = 0;
    await host.close();
    expect(log).toEqual(['close top', 'close lazy', 'close base']);
  });
});
