/**
 * What a newcomer meets first: `/` opens the web UI, `/mcp` with MCP off says how to turn it on (an agent
 * pointed at it would otherwise read a bare 404), and the start-up lines name every address MiniLake serves.
 */
import { existsSync } from 'node:fs';
import { Hono } from 'hono';

export const MCP_OFF_MESSAGE =
  'The MCP server is off. Start MiniLake with MINILAKE_MCP=1 (or add mcp to MINILAKE_SERVICES) to serve it at /mcp, or run `minilake mcp --stdio` for an MCP client that starts its servers itself.';

export function welcomeApp(o: { mcp: boolean }): Hono {
  const app = new Hono();
  app.on(['GET', 'HEAD'], '/', (c) => c.redirect('/ui/', 302));
  // Databricks' page addresses (what the API's links and the CLI print: run_page_url is
  // `<host>/jobs/<job>/runs/<run>?o=<workspace id>`) open MiniLake's page for the same object.
  const to = (...parts: string[]) => `/ui/${parts.map((p) => encodeURIComponent(p)).join('/')}`;
  const pages: [string, (p: Record<string, string>) => string][] = [
    ['/jobs/runs/:run', (p) => to('jobs', 'runs', p.run!)],
    ['/jobs/:job/runs/:run', (p) => to('jobs', p.job!, 'runs', p.run!)],
    ['/jobs/:job', (p) => to('jobs', p.job!)],
    ['/jobs', () => to('jobs')],
    // A pipeline's page (the CLI's `bundle run` prints `<host>/pipelines/<id>/updates/<update>`).
    ['/pipelines/:id/updates/:update', (p) => to('pipelines', p.id!)],
    ['/pipelines/:id', (p) => to('pipelines', p.id!)],
    ['/pipelines', () => to('pipelines')],
    ['/explore/data/volumes/:c/:s/:v', (p) => to('catalog', p.c!, p.s!, p.v!)],
    ['/explore/data/:c/:s/:t', (p) => to('catalog', p.c!, p.s!, p.t!)],
    ['/explore/data/:c/:s', (p) => to('catalog', p.c!, p.s!)],
    ['/explore/data/:c', (p) => to('catalog', p.c!)],
    ['/explore/data', () => to('catalog')],
    ['/sql/editor/:id', (p) => to('queries', p.id!)],
    ['/queries/:id', (p) => to('queries', p.id!)],
    // A warehouse's page (the SQL persona's address; the compute page's newer one with its tab after it).
    ['/sql/warehouses/:id', (p) => to('warehouses', p.id!)],
    ['/sql/warehouses', () => to('warehouses')],
    ['/compute/sql-warehouses/:id/*', (p) => to('warehouses', p.id!)],
    ['/compute/sql-warehouses/:id', (p) => to('warehouses', p.id!)],
    ['/compute/sql-warehouses', () => to('warehouses')],
  ];
  for (const [path, target] of pages)
    app.on(['GET', 'HEAD'], path, (c) => c.redirect(target(c.req.param() as Record<string, string>), 302));
  // Databricks' error shape, so an MCP client (or curl) shows the sentence as it is.
  if (!o.mcp)
    app.all('/mcp', (c) => c.json({ error_code: 'FEATURE_DISABLED', message: MCP_OFF_MESSAGE }, 404));
  return app;
}

/** The lines under "listening on": where the UI, MCP, JupyterLab and Spark Connect are (or how to get them). */
export function addressLines(o: {
  url: string;
  mcp: boolean;
  jupyterPython: string;
  /** The Spark Connect port setting (MINILAKE_SPARK_CONNECT_PORT), when this build has one. */
  sparkConnectPort?: string | undefined;
}): string[] {
  const host = new URL(o.url).hostname;
  const lines = [
    `  Web UI:        ${o.url}/ui/`,
    o.mcp
      ? `  MCP:           ${o.url}/mcp`
      : '  MCP:           off (MINILAKE_MCP=1 serves it at /mcp; or `minilake mcp --stdio`)',
    existsSync(o.jupyterPython)
      ? `  JupyterLab:    ${o.url}/jupyter/lab`
      : '  JupyterLab:    not installed (bash apps/server/scripts/install-jupyter.sh, then /jupyter/lab)',
  ];
  // The setting and the server behind it belong to Spark Connect's own service; this only shows its address.
  if (o.sparkConnectPort) lines.push(`  Spark Connect: sc://${host}:${o.sparkConnectPort}`);
  return lines;
}
