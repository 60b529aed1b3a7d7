/**
 * `samples.nyctaxi.trips`: 21,932 yellow-cab trips (Databricks' row count) between 1 January and 29 February
 * 2016. Pickups follow the city's day (quiet before dawn, busy in the evening), distances are mostly short
 * Manhattan hops with a long tail to the airports, durations follow from a traffic speed, and the fare is
 * the 2016 meter: $2.50 on entry, $0.50 per fifth of a mile, $0.50 per slow minute. ZIP codes are the ones
 * New York trips start and end in, Manhattan first.
 */
import { Random } from './random.js';
import type { Row } from './tpch.js';

export const TRIPS = 21_932;

const START = Date.UTC(2016, 0, 1) / 1000;
const DAYS = 60; // January and February 2016 (a leap year)

/** Relative pickups per hour of the day (midnight first). */
const HOURLY = [7, 5, 4, 3, 3, 3, 5, 8, 10, 10, 9, 9, 10, 10, 10, 10, 10, 11, 13, 13, 12, 11, 10, 9];

const MANHATTAN = [
  10001, 10002, 10003, 10009, 10010, 10011, 10012, 10013, 10014, 10016, 10017, 10018, 10019, 10021,
  10022, 10023, 10024, 10025, 10026, 10027, 10028, 10029, 10036, 10038, 10065, 10075, 10103, 10110,
  10119, 10128, 10153, 10165, 10169, 10199, 10280, 10282,
]; // prettier-ignore
const BOROUGHS = [11101, 11106, 11201, 11205, 11211, 11215, 11217, 11222, 11238, 10451, 10463, 11375];
const AIRPORTS = [11371, 11430]; // LaGuardia, JFK

function hourOfDay(r: Random): number {
  const total = HOURLY.reduce((a, b) => a + b, 0);
  let x = r.float() * total;
  for (let h = 0; h < 24; h++) {
    x -= HOURLY[h]!;
    if (x < 0) return h;
  }
  return 23;
}

function zip(r: Random): number {
  const x = r.float();
  return x < 0.86 ? r.pick(MANHATTAN) : r.pick(BOROUGHS);
}

export function trips(): Row[] {
  const r = new Random(0x7a11);
  const out: Row[] = [];
  for (let i = 0; i < TRIPS; i++) {
    const pickup = START + r.int(0, DAYS - 1) * 86_400 + hourOfDay(r) * 3600 + r.int(0, 3599);
    const airport = r.float() < 0.03;
    const distance = airport ? 9 + r.float() * 12 : Math.min(Math.max(0.1, r.exponential(2.4)), 28);
    // Slower in the day's traffic, faster at night and on the highways to the airports.
    const hour = Math.floor(((pickup - START) % 86_400) / 3600);
    const mph = (hour >= 7 && hour <= 19 ? 8 : 13) + r.float() * (airport ? 14 : 6);
    const minutes = Math.max(1, (distance / mph) * 60 + r.float() * 4);
    const slowMinutes = Math.floor(minutes * r.float() * 0.25);
    const fare = airport && r.float() < 0.5 ? 52 : 2.5 + Math.ceil(distance * 5) * 0.5 + slowMinutes * 0.5;
    const pickupZip = airport && r.float() < 0.5 ? r.pick(AIRPORTS) : zip(r);
    const dropoffZip = airport && !AIRPORTS.includes(pickupZip) ? r.pick(AIRPORTS) : zip(r);
    out.push([
      pickup,
      pickup + Math.round(minutes * 60),
      Math.round(distance * 100) / 100,
      Math.round(fare * 100) / 100,
      pickupZip,
      dropoffZip,
    ]);
  }
  return out;
}
