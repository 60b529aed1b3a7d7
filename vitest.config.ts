import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

// Two projects: `unit` (stores, engines, in-process API tests) and `e2e` (a real minilake process driven by
// the official TypeScript SDK; needs `pnpm build` first).
export default defineConfig({
  test: {
    // At least two files at once: vitest's default (one fewer than the cores) is one on a 2-core machine, where
    // most tests wait on a server, DuckDB or a Spark process and leave the other core idle. There, with
    // scripts/test-all.sh's JVM options too: unit 490 s → 370 s, e2e 740 s → 530 s.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts'],
          exclude: ['**/*.e2e.test.ts', '**/node_modules/**'],
          testTimeout: 30_000,
          hookTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: [
            'packages/*/test/**/*.e2e.test.ts',
            'apps/*/test/**/*.e2e.test.ts',
            'e2e/ts/**/*.test.ts',
          ],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
});
