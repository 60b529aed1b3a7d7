import { describe, expect, it } from 'vitest';
import { defaultMemoryLimit } from '../src/index.js';

describe('defaultMemoryLimit', () => {
  it('is a quarter of the machine memory, at least 1 GB', () => {
    expect(defaultMemoryLimit(16 * 2 ** 30)).toBe('4096MB');
    expect(defaultMemoryLimit(2 * 2 ** 30)).toBe('1024MB');
  });
});
