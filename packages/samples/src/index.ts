/**
 * @minilake/samples: the `samples` catalog a Databricks workspace ships, as metadata (this module: cheap to
 * import, what Unity Catalog lists from the start) and as generators that write each table as a Delta
 * table on first use (`@minilake/samples/generate`). Nothing is downloaded and nothing is committed: every
 * row comes from a seeded generator, so every server makes the same data.
 *
 * - `nyctaxi.trips`: Databricks' six columns and row count (21,932), with realistic New York values.
 * - `tpch.*`: the eight TPC-H tables at scale factor 0.01 (dbgen's key ranges, formulas and value rules:
 *   `customer` 1,500, `orders` 15,000, `lineitem` ~60,000 rows), typed as Databricks' `samples.tpch` is.
 */

export const SAMPLES_CATALOG = 'samples';

/** The TPC-H scale factor of `samples.tpch`. */
export const TPCH_SCALE_FACTOR = 0.01;

export interface SampleColumn {
  name: string;
  /** The Delta (Spark) primitive type: long, integer, double, string, date, timestamp, decimal(18,2). */
  type: string;
}

export interface SampleTable {
  schema: string;
  name: string;
  comment: string;
  columns: SampleColumn[];
}

const cols = (spec: string): SampleColumn[] =>
  spec
    .trim()
    // Commas inside a type (decimal(18,2)) do not separate columns.
    .split(/,(?![^(]*\))/)
    .map((c) => {
      const [name, type] = c.trim().split(/\s+/) as [string, string];
      return { name, type };
    });

const MONEY = 'decimal(18,2)';

export const SAMPLE_SCHEMAS: Record<string, string> = {
  nyctaxi: 'New York City taxi trips (yellow cabs, January and February 2016).',
  tpch: `The TPC-H benchmark tables at scale factor ${TPCH_SCALE_FACTOR}, generated with dbgen's rules.`,
};

export const SAMPLE_TABLES: SampleTable[] = [
  {
    schema: 'nyctaxi',
    name: 'trips',
    comment: 'Yellow taxi trips in New York City: pickup and drop-off times, distance, fare and ZIP codes.',
    columns: cols(`tpep_pickup_datetime timestamp, tpep_dropoff_datetime timestamp, trip_distance double,
      fare_amount double, pickup_zip integer, dropoff_zip integer`),
  },
  {
    schema: 'tpch',
    name: 'customer',
    comment: 'TPC-H customers.',
    columns: cols(`c_custkey long, c_name string, c_address string, c_nationkey long, c_phone string,
      c_acctbal ${MONEY}, c_mktsegment string, c_comment string`),
  },
  {
    schema: 'tpch',
    name: 'lineitem',
    comment: 'TPC-H order lines.',
    columns: cols(`l_orderkey long, l_partkey long, l_suppkey long, l_linenumber integer,
      l_quantity ${MONEY}, l_extendedprice ${MONEY}, l_discount ${MONEY}, l_tax ${MONEY},
      l_returnflag string, l_linestatus string, l_shipdate date, l_commitdate date, l_receiptdate date,
      l_shipinstruct string, l_shipmode string, l_comment string`),
  },
  {
    schema: 'tpch',
    name: 'nation',
    comment: 'TPC-H nations.',
    columns: cols('n_nationkey long, n_name string, n_regionkey long, n_comment string'),
  },
  {
    schema: 'tpch',
    name: 'orders',
    comment: 'TPC-H orders.',
    columns: cols(`o_orderkey long, o_custkey long, o_orderstatus string, o_totalprice ${MONEY},
      o_orderdate date, o_orderpriority string, o_clerk string, o_shippriority integer, o_comment string`),
  },
  {
    schema: 'tpch',
    name: 'part',
    comment: 'TPC-H parts.',
    columns: cols(`p_partkey long, p_name string, p_mfgr string, p_brand string, p_type string,
      p_size integer, p_container string, p_retailprice ${MONEY}, p_comment string`),
  },
  {
    schema: 'tpch',
    name: 'partsupp',
    comment: 'TPC-H part suppliers.',
    columns: cols(`ps_partkey long, ps_suppkey long, ps_availqty integer, ps_supplycost ${MONEY},
      ps_comment string`),
  },
  {
    schema: 'tpch',
    name: 'region',
    comment: 'TPC-H regions.',
    columns: cols('r_regionkey long, r_name string, r_comment string'),
  },
  {
    schema: 'tpch',
    name: 'supplier',
    comment: 'TPC-H suppliers.',
    columns: cols(`s_suppkey long, s_name string, s_address string, s_nationkey long, s_phone string,
      s_acctbal ${MONEY}, s_comment string`),
  },
];

export function sampleTable(schema: string, name: string): SampleTable | undefined {
  return SAMPLE_TABLES.find((t) => t.schema === schema && t.name === name);
}
