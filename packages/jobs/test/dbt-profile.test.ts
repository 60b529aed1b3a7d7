import { describe, expect, it } from 'vitest';
import { dbtProfile } from '../src/tasks/dbt.js';

describe('the profile a dbt_task with warehouse_id writes', () => {
  const profile = dbtProfile({
    name: 'shop',
    host: 'http://127.0.0.1:8123',
    httpPath: '/sql/1.0/warehouses/abc',
    catalog: 'main',
    schema: 'sales',
  });

  it('names the warehouse and the target schema', () => {
    expect(profile).toContain('"shop":\n  target: databricks');
    expect(profile).toContain('http_path: "/sql/1.0/warehouses/abc"');
    expect(profile).toContain('_connection_uri: "http://127.0.0.1:8123/sql/1.0/warehouses/abc"');
    expect(profile).toContain('schema: "sales"');
  });

  it('holds no token: dbt reads the run token from the task environment', () => {
    // The run folder outlives the run in the data directory (issue 30: nothing the server writes holds a secret).
    expect(profile).toContain(`token: "{{ env_var('DATABRICKS_TOKEN') }}"`);
    expect(profile).not.toMatch(/dapi[0-9a-f]/);
  });
});
