/**
 * A testcontainers module for MiniLake, in the style of the `@testcontainers/*` modules:
 *
 *   const lake = await new MiniLakeContainer('minilake:local').start();
 *   const w = await lake.getClient();               // @databricks/sdk-experimental's WorkspaceClient
 *   process.env = { ...process.env, ...lake.getEnv() };   // DATABRICKS_HOST / DATABRICKS_TOKEN
 *   await lake.stop();
 *
 * Readiness is `GET /_minilake/ready` answering 200 (every service started, the data dir checked), polled from
 * the test's side after the start-up line, never a fixed sleep. On a Docker daemon without a bridge network
 * (started with --bridge=none, as on MiniLake's development machines) the container shares the host's network
 * on a free port; elsewhere port 8000 is published on a random host port, as usual.
 */
import { createServer } from 'node:net';
import type { Readable } from 'node:stream';
import {
  AbstractStartedContainer,
  GenericContainer,
  getContainerRuntimeClient,
  Wait,
  type StartedTestContainer,
} from 'testcontainers';

const PORT = 8000;
const OUTPUT_LINES = 200;

export type NetworkChoice = 'host' | 'bridge' | 'auto';

export class MiniLakeContainer extends GenericContainer {
  private token = 'dapi-minilake';
  private network: NetworkChoice = 'auto';
  private readyTimeoutMs = 120_000;

  constructor(image = 'minilake:local') {
    super(image);
  }

  /** The token clients send (MiniLake accepts any). */
  withToken(token: string): this {
    this.token = token;
    return this;
  }

  /** Only these API groups (MINILAKE_SERVICES); the others answer 501. */
  withServices(...services: string[]): this {
    return this.withEnvironment({ MINILAKE_SERVICES: services.join(',') });
  }

  /** Keep the state in the container's /data across restarts (MINILAKE_PERSIST=1). */
  withPersistence(): this {
    return this.withEnvironment({ MINILAKE_PERSIST: '1' });
  }

  /** `host`, `bridge`, or `auto` (the default): the bridge when the daemon has one, else the host's network. */
  withNetworkChoice(network: NetworkChoice): this {
    this.network = network;
    return this;
  }

  /** How long to wait for /_minilake/ready after the start-up line (default 120 s). */
  withReadyTimeout(ms: number): this {
    this.readyTimeoutMs = ms;
    return this;
  }

  override async start(): Promise<StartedMiniLakeContainer> {
    const host = (this.network === 'auto' ? await daemonNetwork() : this.network) === 'host';
    let url: ((c: StartedTestContainer) => string) | undefined;
    if (host) {
      const port = await freePort();
      this.withNetworkMode('host').withEnvironment({
        MINILAKE_PORT: String(port),
        MINILAKE_BIND_HOST: '127.0.0.1',
        // Spark Connect on a free port too, so two containers never compete for 15002.
        MINILAKE_SPARK_CONNECT_PORT: String(await freePort()),
      });
      url = () => `http://127.0.0.1:${port}`;
    } else {
      this.withExposedPorts(PORT);
      url = (c) => `http://${c.getHost()}:${c.getMappedPort(PORT)}`;
    }
    // The server's own words, for a start that fails (testcontainers' error says only that the wait failed).
    const output: string[] = [];
    this.withLogConsumer((stream: Readable) => {
      stream.on('data', (d: Buffer | string) => {
        output.push(...String(d).split('\n').filter(Boolean));
        if (output.length > OUTPUT_LINES) output.splice(0, output.length - OUTPUT_LINES);
      });
    });
    this.withWaitStrategy(Wait.forLogMessage(/listening on /)).withStartupTimeout(this.readyTimeoutMs);
    let started: StartedTestContainer;
    try {
      started = await super.start();
    } catch (e) {
      throw new Error(
        `MiniLake's container did not start: ${e instanceof Error ? e.message : String(e)}\n${output.slice(-30).join('\n')}`,
        { cause: e },
      );
    }
    const lake = new StartedMiniLakeContainer(started, url(started), this.token);
    try {
      await lake.waitReady(this.readyTimeoutMs);
    } catch (e) {
      await started.stop();
      throw new Error(`${e instanceof Error ? e.message : String(e)}\n${output.slice(-30).join('\n')}`);
    }
    return lake;
  }
}

export class StartedMiniLakeContainer extends AbstractStartedContainer {
  constructor(
    started: StartedTestContainer,
    private readonly url: string,
    private readonly token: string,
  ) {
    super(started);
  }

  /** MiniLake's URL as the tests see it (what DATABRICKS_HOST is set to). */
  getUrl(): string {
    return this.url;
  }

  getToken(): string {
    return this.token;
  }

  /** The environment the Databricks SDKs, the CLI, Terraform and dbt read to find this server. */
  getEnv(): { DATABRICKS_HOST: string; DATABRICKS_TOKEN: string } {
    return { DATABRICKS_HOST: this.url, DATABRICKS_TOKEN: this.token };
  }

  /** A WorkspaceClient of `@databricks/sdk-experimental` (an optional peer dependency) for this server. */
  async getClient() {
    const { WorkspaceClient } = await import('@databricks/sdk-experimental');
    return new WorkspaceClient({ host: this.url, token: this.token, authType: 'pat' });
  }

  /** Everything back to a fresh server's state (named snapshots stay). */
  async reset(): Promise<void> {
    await this.admin('POST', '/_minilake/reset');
  }

  /** Saves the whole state as `name`. */
  async snapshot(name: string): Promise<void> {
    await this.admin('POST', '/_minilake/snapshots', { name });
  }

  /** Puts the state back as snapshot `name` left it. */
  async restore(name: string): Promise<void> {
    await this.admin('POST', `/_minilake/snapshots/${encodeURIComponent(name)}/restore`);
  }

  /** @internal Polls /_minilake/ready until 200. */
  async waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let last = '';
    for (;;) {
      try {
        const r = await fetch(`${this.url}/_minilake/ready`, { signal: AbortSignal.timeout(5_000) });
        if (r.status === 200) return;
        last = `${r.status} ${await r.text()}`;
      } catch (e) {
        last = e instanceof Error ? e.message : String(e);
      }
      if (Date.now() > deadline)
        throw new Error(`MiniLake at ${this.url} was not ready within ${timeoutMs} ms (${last})`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  private async admin(method: string, path: string, body?: unknown): Promise<unknown> {
    const r = await fetch(this.url + path, {
      method,
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await r.text();
    if (!r.ok) throw new Error(`${method} ${path}: ${r.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  }
}

/** `bridge` when the daemon has the default bridge network, `host` when it was started without one. */
async function daemonNetwork(): Promise<'host' | 'bridge'> {
  const client = await runtimeClient();
  try {
    await client.network.getById('bridge').inspect();
    return 'bridge';
  } catch {
    return 'host';
  }
}

/**
 * testcontainers' client. Run inside a container (/.dockerenv) against a unix socket, testcontainers looks for
 * the Docker host as the gateway of the `bridge` network, and a daemon without one (--bridge=none) fails every
 * strategy; the containers this module starts there share the host's network, so the host is localhost.
 */
async function runtimeClient() {
  try {
    return await getContainerRuntimeClient();
  } catch (e) {
    if (process.env.TESTCONTAINERS_HOST_OVERRIDE !== undefined) throw e;
    process.env.TESTCONTAINERS_HOST_OVERRIDE = 'localhost';
    return await getContainerRuntimeClient();
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.on('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const a = s.address();
      s.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}
