import { randomUUID, randomInt } from 'node:crypto';

export const uuid = (): string => randomUUID();

/** Databricks numeric ids (jobs, runs, users) are positive 53-bit-safe integers. */
export const numericId = (): number => randomInt(1, 2 ** 47);

/** Cluster ids look like `0123-456789-abcdefgh`. */
export function clusterId(): string {
  const d = (n: number) => Array.from({ length: n }, () => randomInt(0, 10)).join('');
  const a = Array.from({ length: 8 }, () => 'abcdefghijklmnopqrstuvwxyz'[randomInt(0, 26)]).join('');
  return `${d(4)}-${d(6)}-${a}`;
}

/** SQL warehouse ids are 16 lowercase hex characters. */
export const hexId = (length = 16): string =>
  Array.from({ length }, () => randomInt(0, 16).toString(16)).join('');
