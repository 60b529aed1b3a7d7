/**
 * Where the MLflow install is. The version is pinned once, in versions.json, which install.sh reads too: both
 * derive the same cache folder from it, so the server finds what the install step made without being told.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheSetting, numberSetting, textSetting, type SettingsOf } from '@minilake/core';
import versions from '../versions.json' with { type: 'json' };

export const mlflowVersions: { mlflow: string; python: string[] } = versions;

/**
 * The variables the service reads (parsed once by the host: ctx.settings). MINILAKE_CACHE is the shared one:
 * the install's folder is derived from it when no Python is named.
 */
export const mlflowSettings = {
  ...cacheSetting,
  MINILAKE_MLFLOW_PYTHON: textSetting({
    doc:
      'A Python with `mlflow` for the MLflow tracking server MiniLake starts on the first MLflow request ' +
      '(`bash packages/mlflow/install.sh` installs the pinned one). See [mlflow](packages/mlflow/README.md).',
    shown: "the install's venv",
  }),
  MINILAKE_MLFLOW_START_TIMEOUT: numberSetting({
    doc: 'Seconds the MLflow server may take to answer after it is started.',
    default: 180,
    positive: true,
  }),
};
export type MlflowSettingValues = SettingsOf<typeof mlflowSettings>;

export interface MlflowSettings {
  python: string;
  /** Whether python is the install's own (the hint then names install.sh). */
  derived: boolean;
  startTimeoutMs: number;
}

/** The server's view of the parsed settings. */
export function mlflowSettingsOf(s: MlflowSettingValues): MlflowSettings {
  return {
    python: s.MINILAKE_MLFLOW_PYTHON ?? path.join(installDir(s.MINILAKE_CACHE), 'venv', 'bin', 'python'),
    derived: s.MINILAKE_MLFLOW_PYTHON === undefined,
    startTimeoutMs: s.MINILAKE_MLFLOW_START_TIMEOUT * 1000,
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
