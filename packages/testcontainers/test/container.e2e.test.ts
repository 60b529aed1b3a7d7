/**
 * MiniLakeContainer against the real Docker daemon and a real MiniLake image (minilake:slim unless
 * MINILAKE_TEST_IMAGE names another; `bash docker/build.sh --slim`), with the official TypeScript SDK.
 * Skipped, saying why, only when no daemon answers or the image is missing (.ci/run provides both).
 */
import { execFileSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { MiniLakeContainer, type StartedMiniLakeContainer } from '../src/index.js';

// No image registry here: Ryuk, testcontainers' reaper, is an image it would pull. Each test stops its own.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';
const image = process.env.MINILAKE_TEST_IMAGE ?? 'minilake:slim';

function whyNot(): string | undefined {
  try {
    execFileSync('docker', ['info'], { stdio: 'ignore' });
  } catch {
    return 'no Docker daemon answers (docker/dockerd.sh start)';
  }
  try {
    execFileSync('docker', ['image', 'inspect', image], { stdio: 'ignore' });
  } catch {
    return `no image ${image} (bash docker/build.sh --slim)`;
  }
  return undefined;
}
const skip = whyNot();

describe.skipIf(skip !== undefined)(`MiniLakeContainer (${skip ?? image})`, () => {
  const started: StartedMiniLakeContainer[] = [];
  afterAll(async () => {
    for (const c of started) await c.stop().catch(() => undefined);
  });

  it('starts ready, hands out a client and the environment, resets and snapshots', async () => {
    const lake = await new MiniLakeContainer(image).start();
    started.push(lake);
    const w = await lake.getClient();
    expect((await w.currentUser.me()).userName).toBe('dev@minilake.local');
    await w.catalogs.create({ name: 'tc_node' });
    await lake.snapshot('with_node');
    await lake.reset();
    const names = async () => {
      const out: string[] = [];
      for await (const c of w.catalogs.list({})) out.push(c.name!);
      return out;
    };
    expect(await names()).not.toContain('tc_node');
    await lake.restore('with_node');
    expect(await names()).toContain('tc_node');
    expect(lake.getEnv()).toEqual({ DATABRICKS_HOST: lake.getUrl(), DATABRICKS_TOKEN: 'dapi-minilake' });
    const id = lake.getId();
    await lake.stop();
    started.pop();
    expect(execFileSync('docker', ['ps', '-aq', '--filter', `id=${id}`], { encoding: 'utf8' }).trim()).toBe(
      '',
    );
  }, 180_000);

  it('serves only the services asked for, two containers side by side', async () => {
    const a = await new MiniLakeContainer(image).withServices('secrets').withToken('dapi-a').start();
    started.push(a);
    const b = await new MiniLakeContainer(image).start();
    started.push(b);
    expect(a.getUrl()).not.toBe(b.getUrl());
    expect((await fetch(`${a.getUrl()}/api/2.1/unity-catalog/catalogs`)).status).toBe(501);
    const wa = await a.getClient();
    await wa.secrets.createScope({ scope: 'only_here' });
    const wb = await b.getClient();
    const scopes: string[] = [];
    for await (const s of wb.secrets.listScopes()) scopes.push(s.name!);
    expect(scopes).toEqual([]);
  }, 180_000);

  it('a container that cannot start fails with the server own words', async () => {
    await expect(
      new MiniLakeContainer(image)
        .withEnvironment({ MINILAKE_LOG_LEVEL: 'loud' })
        .withReadyTimeout(60_000)
        .start(),
    ).rejects.toThrow(/MINILAKE_LOG_LEVEL="loud" must be one of/);
  }, 120_000);
});
