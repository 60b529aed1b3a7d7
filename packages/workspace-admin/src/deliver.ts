/**
 * Delivering a notification to a destination: a webhook gets a real POST (the JSON payload, basic auth when
 * the destination has credentials); e-mail and the other kinds MiniLake cannot reach are reported as not
 * delivered. A failure is reported, never thrown: what triggered the notification stands.
 */
import type { DeliveryTarget } from './store.js';

export interface Delivery {
  delivered: boolean;
  /** `HTTP 200`, the network error, or why it was not sent. */
  detail: string;
}

export async function deliver(target: DeliveryTarget, payload: unknown): Promise<Delivery> {
  if (target.type === 'WEBHOOK' && 'url' in target) {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (target.username !== undefined || target.password !== undefined) {
      const user = `${target.username ?? ''}:${target.password ?? ''}`;
      headers.authorization = `Basic ${Buffer.from(user).toString('base64')}`;
    }
    try {
      const res = await fetch(target.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(payload),
        signal: AbortSignal.timeout(10_000),
      });
      await res.arrayBuffer().catch(() => undefined);
      return { delivered: res.status >= 200 && res.status < 300, detail: `HTTP ${res.status}` };
    } catch (e) {
      return { delivered: false, detail: (e as Error).message };
    }
  }
  const to = 'addresses' in target ? ` to ${target.addresses.join(', ')}` : '';
  return { delivered: false, detail: `${target.type} destinations${to} are not delivered by MiniLake` };
}
