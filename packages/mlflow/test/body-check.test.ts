import { describe, expect, it } from 'vitest';
import { checkJsonBody } from '../src/tracking.js';

// What the MLflow server's parser answered with an HTML 500 (found by e2e/python/test_fuzz.py) is refused
// before it is forwarded.
describe('checkJsonBody', () => {
  it('passes empty and ordinary JSON, brackets inside strings not counted', () => {
    expect(() => checkJsonBody('')).not.toThrow();
    expect(() => checkJsonBody('{"run_id": "a", "metrics": [{"key": "k", "value": 1}]}')).not.toThrow();
    expect(() => checkJsonBody(JSON.stringify({ s: '['.repeat(5000), t: 'x\\"[' }))).not.toThrow();
  });
  it('refuses 1000 levels of nesting and what is not JSON, as 400 MALFORMED_REQUEST', () => {
    for (const text of [`{"a": ${'['.repeat(1000)}${']'.repeat(1000)}}`, 'this is {not json']) {
      expect(() => checkJsonBody(text)).toThrow(
        expect.objectContaining({ status: 400, errorCode: 'MALFORMED_REQUEST' }),
      );
    }
  });
});
