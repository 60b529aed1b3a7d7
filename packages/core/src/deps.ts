/**
 * Service dependencies, derived from the one truth: each ServiceDefinition's `uses` (required) and
 * `optionalUses` (used when enabled). The host asks for the enabled set and the start order here.
 */
import type { ServiceDefinition } from './service.js';

type Def = Pick<ServiceDefinition, 'name' | 'uses' | 'optionalUses'>;

/** A dependency problem found before any service starts (unknown name, cycle). */
export class DependencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DependencyError';
  }
}

function checkKnown(defs: ReadonlyMap<string, Def>): void {
  for (const d of defs.values()) {
    for (const u of [...(d.uses ?? []), ...(d.optionalUses ?? [])]) {
      if (!defs.has(u))
        throw new DependencyError(`Service '${d.name}' declares '${u}', which is not a known service`);
    }
  }
}

/**
 * The services to enable for the names asked for: those plus, transitively, every service they require
 * (`uses`). Optional peers are not pulled in. The result keeps the order of `defs`.
 */
export function withRequired(defs: ReadonlyMap<string, Def>, names: readonly string[]): string[] {
  checkKnown(defs);
  const want = new Set<string>();
  const visit = (n: string) => {
    if (want.has(n)) return;
    want.add(n);
    for (const u of defs.get(n)?.uses ?? []) visit(u);
  };
  for (const n of names) visit(n);
  return [...defs.keys()].filter((n) => want.has(n));
}

/**
 * The order in which to create the enabled services: every service after the ones it uses (required, or
 * optional and enabled); otherwise the order of `defs`. A cycle is an error naming it.
 */
export function startOrder(defs: ReadonlyMap<string, Def>, enabled: readonly string[]): string[] {
  checkKnown(defs);
  const on = new Set(enabled);
  const order: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (n: string, trail: string[]) => {
    if (state.get(n) === 'done') return;
    if (state.get(n) === 'visiting') {
      const cycle = [...trail.slice(trail.indexOf(n)), n];
      throw new DependencyError(`Services depend on each other in a cycle: ${cycle.join(' -> ')}`);
    }
    state.set(n, 'visiting');
    const d = defs.get(n)!;
    for (const u of [...(d.uses ?? []), ...(d.optionalUses ?? [])]) if (on.has(u)) visit(u, [...trail, n]);
    state.set(n, 'done');
    order.push(n);
  };
  for (const n of defs.keys()) if (on.has(n)) visit(n, []);
  return order;
}
