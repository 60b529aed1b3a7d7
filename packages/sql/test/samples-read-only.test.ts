/**
 * The read-only samples catalog refuses every kind of change from SQL in the same words (Databricks' error
 * class INSUFFICIENT_PERMISSIONS, Unity Catalog's sentence naming the securable), whether the engine, the
 * Delta layer or Unity Catalog is the one that refuses; and the table is still there, unchanged, after.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { jsonInit } from '@minilake/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSqlApps, type CatalogSqlApps } from './statement-app.js';

const refused = (securable: string) =>
  `[INSUFFICIENT_PERMISSIONS] Insufficient privileges:\nUser does not have MODIFY on ${securable}: the samples catalog is read-only.`;
const TABLE = refused("Table 'samples.tpch.region'");
const CATALOG = refused("Catalog 'samples'");

describe('samples is read-only from SQL, in one set of words', () => {
  let dataDir: string;
  let apps: CatalogSqlApps;
  const q = async (statement: string) => {
    const res = await apps.sqlApp.request(
      '/api/2.0/sql/statements',
      jsonInit('POST', { warehouse_id: apps.wh, statement, wait_timeout: '30s' }),
    );
    return ((await res.json()) as { status: { state: string; error?: { message: string } } }).status;
  };
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ml-samples-ro-'));
    apps = await catalogSqlApps(dataDir, {});
  }, 120_000);
  afterAll(async () => {
    await apps.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it.each([
    ["INSERT INTO samples.tpch.region VALUES (9, 'X', 'y')", TABLE],
    ['INSERT OVERWRITE samples.tpch.region SELECT * FROM samples.tpch.region', TABLE],
    ["UPDATE samples.tpch.region SET r_name = 'x'", TABLE],
    ['DELETE FROM samples.tpch.region', TABLE],
    [
      'MERGE INTO samples.tpch.region t USING samples.tpch.region s ON t.r_regionkey = s.r_regionkey WHEN MATCHED THEN DELETE',
      TABLE,
    ],
    ['TRUNCATE TABLE samples.tpch.region', TABLE],
    ['DROP TABLE samples.tpch.region', TABLE],
    ['DROP TABLE IF EXISTS samples.tpch.region', TABLE],
    ["ALTER TABLE samples.tpch.region SET TBLPROPERTIES ('a' = 'b')", TABLE],
    ['ALTER TABLE samples.tpch.region ADD COLUMN z INT', TABLE],
    ['ALTER TABLE samples.tpch.region RENAME TO samples.tpch.r2', TABLE],
    ["COMMENT ON TABLE samples.tpch.region IS 'x'", TABLE],
    ['OPTIMIZE samples.tpch.region', TABLE],
    ['VACUUM samples.tpch.region', TABLE],
    ['CREATE TABLE samples.tpch.mine (x INT)', CATALOG],
    ['CREATE OR REPLACE TABLE samples.tpch.region AS SELECT 1 AS a', CATALOG],
    ['CREATE VIEW samples.tpch.v AS SELECT 1 AS a', CATALOG],
    ['CREATE SCHEMA samples.mine', CATALOG],
    ['DROP SCHEMA samples.tpch CASCADE', refused("Schema 'samples.tpch'")],
  ])('%s', async (statement, message) => {
    const status = await q(statement);
    expect(status.state).toBe('FAILED');
    expect(status.error!.message).toBe(message);
    const still = await q('SELECT count(*) FROM samples.tpch.region');
    expect(still.state).toBe('SUCCEEDED');
  });
});
