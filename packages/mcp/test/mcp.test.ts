import { describe, expect, it } from 'vitest';
import { allTools, hostnameOf, toolsFor } from '../src/host.js';

describe('tool declarations', () => {
  it('have unique names, descriptions on every argument and honest annotations', () => {
    expect(new Set(allTools.map((t) => t.name)).size).toBe(allTools.length);
    for (const t of allTools) {
      expect(t.description.length, t.name).toBeGreaterThan(10);
      for (const [k, schema] of Object.entries(t.input))
        expect((schema as { description?: string }).description, `${t.name}.${k}`).toBeTruthy();
      // A read-only tool can be neither destructive nor anything but idempotent.
      if (t.hints.readOnlyHint)
        expect(t.hints, t.name).toMatchObject({ destructiveHint: false, idempotentHint: true });
      if (/^(delete|terminate)_/.test(t.name)) expect(t.hints.destructiveHint, t.name).toBe(true);
      if (/^(list|get|describe)_/.test(t.name)) expect(t.hints.readOnlyHint, t.name).toBe(true);
    }
  });

  it('are grouped by the services they call', () => {
    expect(toolsFor(new Set()).map((t) => t.name)).toEqual([
      'health',
      'list_services',
      'reset_state',
      'snapshot_state',
      'restore_state',
      'list_snapshots',
      'delete_snapshot',
    ]);
    const noJobs = toolsFor(
      new Set(['iam', 'secrets', 'unity-catalog', 'sql', 'workspace', 'files', 'compute']),
    );
    expect(noJobs.length).toBeGreaterThanOrEqual(67);
    expect(noJobs.map((t) => t.name)).not.toContain('run_job');
    const withJobs = toolsFor(
      new Set(['iam', 'secrets', 'unity-catalog', 'sql', 'workspace', 'files', 'compute', 'jobs']),
    );
    expect(withJobs.map((t) => t.name)).toEqual(expect.arrayContaining(['run_job', 'run_python_script']));
    // The seeds' composites need Unity Catalog and SQL.
    expect(toolsFor(new Set(['unity-catalog'])).map((t) => t.name)).not.toContain('seed_table');
  });
});

describe('hostnameOf', () => {
  it('drops the port and normalizes case; brackets stay on IPv6', () => {
    expect(hostnameOf('LocalHost:8000')).toBe('localhost');
    expect(hostnameOf('127.0.0.1')).toBe('127.0.0.1');
    expect(hostnameOf('[::1]:8000')).toBe('[::1]');
    expect(hostnameOf('evil.example.com:8000')).toBe('evil.example.com');
    expect(hostnameOf('bad host')).toBeUndefined();
  });
});
