/** Random hex ids and the offset page tokens the compute APIs hand out. */
import { randomBytes } from 'node:crypto';
import { invalidParameter } from '@minilake/core';

export const hex = (n: number) =>
  randomBytes(Math.ceil(n / 2))
    .toString('hex')
    .slice(0, n);

export const encodeOffset = (n: number) => Buffer.from(`offset:${n}`, 'utf8').toString('base64url');

export function decodeOffset(token: string, field = 'page_token'): number {
  const m = /^offset:(\d{1,9})$/.exec(Buffer.from(token, 'base64url').toString('utf8'));
  if (!m) throw invalidParameter(`Invalid ${field}: ${token}`);
  return Number(m[1]);
}
