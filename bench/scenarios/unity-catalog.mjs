// Unity Catalog over HTTP: create and get of catalogs/schemas/tables (rate, p50/p99), and a list of 10,000
// tables in one schema (ms per full list, after the first list has assigned table ids).
import { load, median, startServer, postJson as post } from '../lib.mjs';

const TABLES = Number(process.env.BENCH_UC_TABLES ?? 10_000);

export const targets = { table_get_p50_ms: '< 1', list_10000_tables_ms: '< 50' };

const column = (name, type_text) => ({ name, type_text, type_name: type_text.toUpperCase(), position: 0 });

export async function run() {
  const s = await startServer();
  const uc = `${s.url}/api/2.1/unity-catalog`;
  try {
    await post(`${uc}/catalogs`, { name: 'bench' });
    await post(`${uc}/schemas`, { catalog_name: 'bench', name: 'small' });
    const createCatalogs = await load(`${uc}/catalogs`, {
      method: 'POST',
      requests: 300,
      concurrency: 4,
      body: (i) => JSON.stringify({ name: `c${i}` }),
    });
    const createSchemas = await load(`${uc}/schemas`, {
      method: 'POST',
      requests: 1000,
      concurrency: 4,
      body: (i) => JSON.stringify({ catalog_name: 'bench', name: `s${i}` }),
    });
    const tableBody = (schema) => (i) =>
      JSON.stringify({
        catalog_name: 'bench',
        schema_name: schema,
        name: `t${i}`,
        table_type: 'MANAGED',
        data_source_format: 'DELTA',
        columns: [column('id', 'bigint'), column('name', 'string')],
      });
    const createTables = await load(`${uc}/tables`, {
      method: 'POST',
      requests: 1000,
      concurrency: 4,
      body: tableBody('small'),
    });
    const getCatalog = await load(`${uc}/catalogs/bench`, { requests: 5000 });
    const getSchema = await load(`${uc}/schemas/bench.small`, { requests: 5000 });
    const getTable = await load(`${uc}/tables/bench.small.t7`, { requests: 5000 });

    await post(`${uc}/schemas`, { catalog_name: 'bench', name: 'big' });
    const createBig = await load(`${uc}/tables`, {
      method: 'POST',
      requests: TABLES,
      concurrency: 4,
      body: tableBody('big'),
    });
    const listUrl = `${uc}/tables?catalog_name=bench&schema_name=big`;
    const firstStart = performance.now();
    const first = await (await fetch(listUrl)).json();
    const firstMs = performance.now() - firstStart;
    if (first.tables.length !== TABLES) throw new Error(`listed ${first.tables.length} tables`);
    const times = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      const r = await fetch(listUrl);
      await r.arrayBuffer();
      times.push(performance.now() - t0);
    }
    const pageTimes = [];
    for (let i = 0; i < 7; i++) {
      const t0 = performance.now();
      await (await fetch(`${listUrl}&max_results=100`)).arrayBuffer();
      pageTimes.push(performance.now() - t0);
    }
    return {
      create_catalog: createCatalogs,
      create_schema: createSchemas,
      create_table: createTables,
      get_catalog: getCatalog,
      get_schema: getSchema,
      get_table: getTable,
      tables_in_big_schema: TABLES,
      create_table_into_big_schema: createBig,
      list_10000_tables_first_ms: +firstMs.toFixed(1),
      list_10000_tables_ms_median: +median(times).toFixed(1),
      list_10000_tables_page_of_100_ms_median: +median(pageTimes).toFixed(1),
      peak_rss_mb: +s.rssPeakMb().toFixed(1),
    };
  } finally {
    await s.stop();
  }
}
