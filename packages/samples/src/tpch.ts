/**
 * TPC-H rows with dbgen's rules (specification 4.2.3) at a scale factor: key ranges, sparse order keys,
 * customers whose key is a multiple of 3 never ordering, the partsupp supplier formula, the retail price
 * formula, ship/commit/receipt dates around the order date, return flags and line statuses against the
 * spec's CURRENTDATE, and order totals and statuses computed from their lines. Values are drawn from one
 * seeded stream per table, so a table is the same whenever and wherever it is made.
 */
import { Random } from './random.js';
import { text, vstring } from './text.js';

export type Row = (string | number)[];

const DAY = 86_400_000;
const STARTDATE = Date.UTC(1992, 0, 1) / DAY;
const CURRENTDATE = Date.UTC(1995, 5, 17) / DAY;
const ENDDATE = Date.UTC(1998, 11, 31) / DAY;

const isoDate = (day: number) => new Date(day * DAY).toISOString().slice(0, 10);
const pad9 = (n: number) => String(n).padStart(9, '0');

export const REGIONS = ['AFRICA', 'AMERICA', 'ASIA', 'EUROPE', 'MIDDLE EAST'];
/** The 25 nations with their regions, in key order (spec 4.2.3). */
export const NATIONS: [string, number][] = [
  ['ALGERIA', 0], ['ARGENTINA', 1], ['BRAZIL', 1], ['CANADA', 1], ['EGYPT', 4], ['ETHIOPIA', 0],
  ['FRANCE', 3], ['GERMANY', 3], ['INDIA', 2], ['INDONESIA', 2], ['IRAN', 4], ['IRAQ', 4], ['JAPAN', 2],
  ['JORDAN', 4], ['KENYA', 0], ['MOROCCO', 0], ['MOZAMBIQUE', 0], ['PERU', 1], ['CHINA', 2],
  ['ROMANIA', 3], ['SAUDI ARABIA', 4], ['VIETNAM', 2], ['RUSSIA', 3], ['UNITED KINGDOM', 3],
  ['UNITED STATES', 1],
]; // prettier-ignore

const COLORS = `almond antique aquamarine azure beige bisque black blanched blue blush brown burlywood
  burnished chartreuse chiffon chocolate coral cornflower cornsilk cream cyan dark deep dim dodger drab
  firebrick floral forest frosted gainsboro ghost goldenrod green grey honeydew hot indian ivory khaki lace
  lavender lawn lemon light lime linen magenta maroon medium metallic midnight mint misty moccasin navajo
  navy olive orange orchid pale papaya peach peru pink plum powder puff purple red rose rosy royal saddle
  salmon sandy seashell sienna sky slate smoke snow spring steel tan thistle tomato turquoise violet wheat
  white yellow`.split(/\s+/);
const TYPE_1 = ['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO'];
const TYPE_2 = ['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED'];
const TYPE_3 = ['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER'];
const CONTAINER_1 = ['SM', 'LG', 'MED', 'JUMBO', 'WRAP'];
const CONTAINER_2 = ['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM'];
const SEGMENTS = ['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD'];
const PRIORITIES = ['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW'];
const INSTRUCTIONS = ['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN'];
const MODES = ['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB'];

export interface Counts {
  supplier: number;
  part: number;
  customer: number;
  orders: number;
  clerks: number;
}

export function counts(sf: number): Counts {
  return {
    supplier: Math.max(1, Math.round(10_000 * sf)),
    part: Math.max(1, Math.round(200_000 * sf)),
    customer: Math.max(1, Math.round(150_000 * sf)),
    orders: Math.max(1, Math.round(1_500_000 * sf)),
    clerks: Math.max(1, Math.round(1_000 * sf)),
  };
}

/** dbgen's phone number: the nation's country code (key + 10), then three random groups. */
const phone = (r: Random, nation: number) =>
  `${nation + 10}-${r.int(100, 999)}-${r.int(100, 999)}-${r.int(1000, 9999)}`;

/** P_RETAILPRICE = (90000 + ((key / 10) modulo 20001) + 100 * (key modulo 1000)) / 100. */
export const retailPrice = (partkey: number) =>
  (90_000 + (Math.floor(partkey / 10) % 20_001) + 100 * (partkey % 1000)) / 100;

/** The i-th (0..3) supplier of a part: PS_SUPPKEY = (key + (i * ((S / 4) + (key - 1) / S))) mod S + 1. */
export const partSupplier = (partkey: number, i: number, suppliers: number) =>
  ((partkey + i * (Math.floor(suppliers / 4) + Math.floor((partkey - 1) / suppliers))) % suppliers) + 1;

/** The sparse order keys: of every 32 keys only the first 8 are used. */
const orderKey = (i: number) => Math.floor(i / 8) * 32 + (i % 8) + 1;

export function region(): Row[] {
  const r = new Random(0x7c01);
  return REGIONS.map((name, key) => [key, name, text(r, 31, 115)]);
}

export function nation(): Row[] {
  const r = new Random(0x7c02);
  return NATIONS.map(([name, reg], key) => [key, name, reg, text(r, 31, 114)]);
}

export function supplier(sf: number): Row[] {
  const r = new Random(0x7c03);
  const out: Row[] = [];
  for (let key = 1; key <= counts(sf).supplier; key++) {
    const n = r.int(0, 24);
    out.push([
      key,
      `Supplier#${pad9(key)}`,
      vstring(r, 10, 40),
      n,
      phone(r, n),
      r.money(-99_999, 999_999),
      text(r, 25, 100),
    ]);
  }
  return out;
}

export function customer(sf: number): Row[] {
  const r = new Random(0x7c04);
  const out: Row[] = [];
  for (let key = 1; key <= counts(sf).customer; key++) {
    const n = r.int(0, 24);
    out.push([
      key,
      `Customer#${pad9(key)}`,
      vstring(r, 10, 40),
      n,
      phone(r, n),
      r.money(-99_999, 999_999),
      r.pick(SEGMENTS),
      text(r, 29, 116),
    ]);
  }
  return out;
}

export function part(sf: number): Row[] {
  const r = new Random(0x7c05);
  const out: Row[] = [];
  for (let key = 1; key <= counts(sf).part; key++) {
    const words = new Set<string>();
    while (words.size < 5) words.add(r.pick(COLORS));
    const m = r.int(1, 5);
    out.push([
      key,
      [...words].join(' '),
      `Manufacturer#${m}`,
      `Brand#${m}${r.int(1, 5)}`,
      `${r.pick(TYPE_1)} ${r.pick(TYPE_2)} ${r.pick(TYPE_3)}`,
      r.int(1, 50),
      `${r.pick(CONTAINER_1)} ${r.pick(CONTAINER_2)}`,
      retailPrice(key),
      text(r, 5, 22),
    ]);
  }
  return out;
}

export function partsupp(sf: number): Row[] {
  const r = new Random(0x7c06);
  const { part: parts, supplier: suppliers } = counts(sf);
  const out: Row[] = [];
  for (let key = 1; key <= parts; key++)
    for (let i = 0; i < 4; i++)
      out.push([
        key,
        partSupplier(key, i, suppliers),
        r.int(1, 9999),
        r.money(100, 100_000),
        text(r, 49, 198),
      ]);
  return out;
}

/** Orders and their lines together: an order's total price and status come from its lines. */
export function ordersAndLines(sf: number): { orders: Row[]; lines: Row[] } {
  const r = new Random(0x7c07);
  const c = counts(sf);
  const orders: Row[] = [];
  const lines: Row[] = [];
  for (let i = 0; i < c.orders; i++) {
    const okey = orderKey(i);
    let cust = r.int(1, c.customer);
    // A third of the customers never order (spec 4.2.3: O_CUSTKEY is not a multiple of 3).
    while (cust % 3 === 0 && c.customer > 2) cust = r.int(1, c.customer);
    const odate = r.int(STARTDATE, ENDDATE - 151);
    let total = 0;
    let shipped = 0;
    const n = r.int(1, 7);
    for (let ln = 1; ln <= n; ln++) {
      const pkey = r.int(1, c.part);
      const skey = partSupplier(pkey, r.int(0, 3), c.supplier);
      const qty = r.int(1, 50);
      const price = Math.round(qty * retailPrice(pkey) * 100) / 100;
      const discount = r.int(0, 10) / 100;
      const tax = r.int(0, 8) / 100;
      const ship = odate + r.int(1, 121);
      const commit = odate + r.int(30, 90);
      const receipt = ship + r.int(1, 30);
      const returnFlag = receipt <= CURRENTDATE ? (r.int(0, 1) ? 'R' : 'A') : 'N';
      const status = ship > CURRENTDATE ? 'O' : 'F';
      if (status === 'F') shipped++;
      total += price * (1 + tax) * (1 - discount);
      lines.push([
        okey,
        pkey,
        skey,
        ln,
        qty,
        price,
        discount,
        tax,
        returnFlag,
        status,
        isoDate(ship),
        isoDate(commit),
        isoDate(receipt),
        r.pick(INSTRUCTIONS),
        r.pick(MODES),
        text(r, 10, 43),
      ]);
    }
    orders.push([
      okey,
      cust,
      shipped === n ? 'F' : shipped === 0 ? 'O' : 'P',
      Math.round(total * 100) / 100,
      isoDate(odate),
      r.pick(PRIORITIES),
      `Clerk#${pad9(r.int(1, c.clerks))}`,
      0,
      text(r, 19, 78),
    ]);
  }
  return { orders, lines };
}
