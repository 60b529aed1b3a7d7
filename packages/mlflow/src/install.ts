/**
 * Where the MLflow install is. The version is pinned once, in versions.json, which install.sh reads too: both
 * derive the same cache folder from it, so the server finds what the install step made without being told.
 */
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import versions from '../versions.json' with { type: 'json' };

export const mlflowVersions: { mlflow: string; python: string[] } = versions;

/** MINILAKE_MLFLOW_* settings with their defaults ('' means "derived", see the README). */
export const mlflowConfigDefaults: Record<string, string> = {
  /** A Python whose environment has `mlflow` (the server); '' = <MINILAKE_CACHE>/mlflow-<version>/venv/bin/python. */
  MINILAKE_MLFLOW_PYTHON: '',
  /** Seconds the MLflow server may take to answer after it is started. */
  MINILAKE_MLFLOW_START_TIMEOUT: '180',
};

export interface MlflowSettings {
  python: string;
  /** Whether python is the install's own (the hint then names install.sh). */
  derived: boolean;
  startTimeoutMs: number;
}

export function settingsFrom(config: Readonly<Record<string, string | undefined>>): MlflowSettings {
  const cache = config.MINILAKE_CACHE || path.join(os.homedir(), '.cache', 'minilake');
  const configured = config.MINILAKE_MLFLOW_PYTHON || '';
  const timeout = Number(
    config.MINILAKE_MLFLOW_START_TIMEOUT || mlflowConfigDefaults.MINILAKE_MLFLOW_START_TIMEOUT,
  );
  return {
    python: configured || path.join(installDir(cache), 'venv', 'bin', 'python'),
    derived: !configured,
    startTimeoutMs: (Number.isFinite(timeout) && timeout > 0 ? timeout : 180) * 1000,
  };
}

/** The folder install.sh fills, derived from the pinned version. */
export function installDir(cacheDir: string): string {
  return path.join(cacheDir, `mlflow-${mlflowVersions.mlflow}`);
}

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * The package's own folder. Unbundled (src/ or dist/) it is one level up; when apps/server bundles this
 * package, import.meta.url is the server's dist/, so the monorepo layout is tried next.
 */
function packageRoots(): string[] {
  return [path.resolve(here, '..'), path.resolve(here, '../../../packages/mlflow')];
}

export function installCommand(): string {
  const script = packageRoots()
    .map((r) => path.join(r, 'install.sh'))
    .find((p) => existsSync(p));
  return `bash ${script ?? 'packages/mlflow/install.sh'}`;
}
