import { defineConfig } from 'vitest/config';

// Two projects: `unit` (stores, engines, in-process API tests) and `e2e` (a real minilake process driven by
// the official TypeScript SDK; needs `pnpm build` first).
export default defineConfig({
  test: {
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
