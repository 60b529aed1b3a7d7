/**
 * /mcp: the MCP Streamable HTTP endpoint (protocol 2025-11-25), stateless: every POST gets a fresh server and
 * transport, so there is no session to lose and nothing to clean up. GET (a server-initiated SSE stream) and
 * DELETE (ending a session) have nothing to do without sessions and answer 405, as the spec allows.
 *
 * DNS rebinding: a page on a foreign site can make a browser send requests to 127.0.0.1. A Host or Origin
 * header naming anything but this machine's loopback names, the bind host or a configured host is refused with
 * 403 before the body is read.
 */
import { Hono, type Context } from 'hono';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { buildMcpServer, type McpHost } from './server.js';

export interface McpAppOptions {
  host: McpHost;
  /** Host names (no port) accepted besides localhost, 127.0.0.1 and [::1]. */
  allowedHosts: () => string[];
  maxBodyBytes: number;
}

const LOOPBACK = ['localhost', '127.0.0.1', '[::1]'];

/** `[::1]:8000` -> `[::1]`, `Example.COM:80` -> `example.com`; undefined when it is not a host. */
export function hostnameOf(hostHeader: string): string | undefined {
  try {
    return new URL(`http://${hostHeader}`).hostname.toLowerCase();
  } catch {
    return undefined;
  }
}

function rpcError(
  c: Context,
  status: 403 | 405 | 500,
  message: string,
  headers: Record<string, string> = {},
) {
  return c.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, status, headers);
}

export function mcpApp(o: McpAppOptions): Hono {
  const app = new Hono();
  const allowed = () => {
    const set = new Set(LOOPBACK);
    for (const h of o.allowedHosts()) {
      // A bare IPv6 address (two or more colons) needs brackets to parse as a host.
      const name = hostnameOf((h.match(/:/g)?.length ?? 0) >= 2 && !h.startsWith('[') ? `[${h}]` : h);
      if (name && name !== '0.0.0.0' && name !== '[::]') set.add(name);
    }
    return set;
  };

  app.use('/mcp', async (c, next) => {
    const names = allowed();
    const host = c.req.header('host') ?? new URL(c.req.url).host;
    const hostname = hostnameOf(host);
    if (!hostname || !names.has(hostname)) return rpcError(c, 403, `Host '${host}' is not allowed.`);
    const origin = c.req.header('origin');
    if (origin !== undefined) {
      let originHost: string | undefined;
      try {
        originHost = new URL(origin).hostname.toLowerCase();
      } catch {
        originHost = undefined;
      }
      if (!originHost || !names.has(originHost))
        return rpcError(c, 403, `Origin '${origin}' is not allowed.`);
    }
    await next();
  });

  app.post('/mcp', async (c) => {
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: o.maxBodyBytes,
    });
    const server = await buildMcpServer(o.host);
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw);
    } finally {
      // JSON responses are complete when handleRequest returns: nothing else will use this server.
      void server.close();
    }
  });
  app.on(['GET', 'DELETE', 'PUT', 'PATCH'], '/mcp', (c) =>
    rpcError(c, 405, 'Method not allowed: this MCP endpoint is stateless (POST only).', { allow: 'POST' }),
  );
  return app;
}
