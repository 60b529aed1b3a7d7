/** /jupyter without JupyterLab: a page that says how to enable it (the rest of the server is unaffected). */
import { describe, expect, it } from 'vitest';
import { silentLogger } from '@minilake/core';
import { Jupyter } from '../src/jupyter.js';

describe('/jupyter without JupyterLab', () => {
  it('answers a page saying how to install it', async () => {
    const j = new Jupyter({
      python: '/nonexistent/python',
      rootDir: '/tmp/unused',
      selfUrl: () => undefined,
      logger: silentLogger,
      sparkJars: [],
    });
    const app = j.app();
    expect((await app.request('/jupyter')).headers.get('location')).toBe('/jupyter/lab');
    const res = await app.request('/jupyter/lab');
    expect(res.status).toBe(404);
    const html = await res.text();
    expect(html).toContain('install-jupyter.sh');
    expect(html).toContain('MINILAKE_JUPYTER_PYTHON');
  });
});
