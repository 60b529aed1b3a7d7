/**
 * The built server runs the SQL dialect's WebAssembly on V8's baseline compiler (cli.ts): after the first
 * statements its memory stays well below what V8's background optimisation of the 22.7 MB module took
 * (peak RSS 450-560 MB before, ~230 MB after; bench/README.md, "Issue 16, warm").
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { startServer } from '@minilake/testing';

const peakRssMb = (pid: number) =>
  Number(/VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

describe('the dialect after the first statements', () => {
  it('answers new statement texts without the optimising compiler taking hundreds of MB', async () => {
    const s = await startServer();
    try {
      for (const statement of [
        'SELECT 1',
        "SELECT 2 AS y, 'a' || 'b'",
        "SELECT upper('x'), current_date()",
      ]) {
        const r = await fetch(`${s.url}/api/2.0/sql/statements`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ warehouse_id: 'dev', statement, wait_timeout: '30s' }),
        });
        expect(((await r.json()) as { status: { state: string } }).status.state).toBe('SUCCEEDED');
      }
      // V8 tiered up in background threads for seconds after the first translations, with nothing to poll
      // for: the high-water mark after that time says whether it did.
      await new Promise((r) => setTimeout(r, 3000));
      const peak = peakRssMb(s.proc.pid!);
      expect(peak).toBeLessThan(330);
    } finally {
      await s.stop();
    }
  });
});
