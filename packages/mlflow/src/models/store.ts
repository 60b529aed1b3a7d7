/**
 * Registered models and model versions in Unity Catalog: ONE store behind both API families that serve them
 * (`/api/2.1/unity-catalog/models`, what the SDKs, the CLI and Terraform call, and
 * `/api/2.0/mlflow/unity-catalog/*`, what the mlflow client calls). A model is `catalog.schema.model` in Unity
 * Catalog's namespace (its schema must exist; it is counted, dropped and moved with the schema, and granted
 * as a FUNCTION through Unity Catalog's grants), but its records and files are this store's: each version's
 * files live in `<dir>/<model id>/versions/<n>` (the model's storage location; the Files API serves them at
 * `/Models/<catalog>/<schema>/<model>/<n>/...`), writable while the version is PENDING_REGISTRATION and
 * read-only once finalized (READY). No Hono or HTTP types here.
 */
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import {
  CollectionStore,
  permissionDenied,
  uuid,
  type Clock,
  type Collection,
  type StateDb,
} from '@minilake/core';
import { checkName, type ExternalSecurables } from '@minilake/unity-catalog';
import {
  aliasNotFound,
  badAlias,
  modelExists,
  modelNotFound,
  notThreeLevels,
  versionNotFound,
} from '../errors.js';

export type VersionStatus = 'PENDING_REGISTRATION' | 'READY' | 'FAILED_REGISTRATION';

export interface ModelRecord {
  id: string;
  catalog_name: string;
  schema_name: string;
  name: string;
  comment?: string;
  owner: string;
  created_at: number;
  created_by: string;
  updated_at: number;
  updated_by: string;
  /** alias (lowercase) to version number */
  aliases: Record<string, number>;
  tags: Record<string, string>;
  /** The number the next version gets (numbers are never reused). */
  next_version: number;
  deployment_job_id?: string;
}

export interface VersionRecord {
  model_id: string;
  version: number;
  id: string;
  source?: string;
  run_id?: string;
  run_workspace_id?: number;
  comment?: string;
  status: VersionStatus;
  created_at: number;
  created_by: string;
  updated_at: number;
  updated_by: string;
  tags: Record<string, string>;
  /** The MLflow LoggedModel it was registered from (`models:/m-...`). */
  logged_model_id?: string;
  dependencies?: unknown;
}

/** What the store needs from Unity Catalog: a schema that exists (or its 404). */
export interface SchemaCheck {
  getSchema(fullName: string): Promise<unknown>;
}

export interface ModelStoreOptions {
  clock: Clock;
  user: string;
  /** Where model versions keep their files. */
  dir: string;
  uc: SchemaCheck;
}

const ALIAS = /^[A-Za-z_][A-Za-z0-9_]{0,254}$/;

export class ModelStore extends CollectionStore {
  private readonly models: Collection<ModelRecord>;
  private readonly versions: Collection<VersionRecord>;
  private readonly clock: Clock;
  private readonly user: string;
  readonly dir: string;
  private readonly uc: SchemaCheck;
  /** Folders of dropped models being removed (a forced schema drop does not wait for them). */
  private removing: Promise<unknown> = Promise.resolve();
  /** Called when a model is renamed or deleted, so its grants follow (`to` undefined: deleted). */
  onRenamed?: (from: string, to: string | undefined) => void;

  constructor(db: StateDb, o: ModelStoreOptions) {
    super('mlflow-models', 1, db);
    this.models = this.collection('models');
    this.versions = this.collection('versions');
    this.clock = o.clock;
    this.user = o.user;
    this.dir = o.dir;
    this.uc = o.uc;
  }

  protected override async onReset(): Promise<void> {
    await this.removing;
    await rm(this.dir, { recursive: true, force: true });
  }

  // ---- names ----

  /** `catalog.schema.model`, each part checked and lowercased as Unity Catalog stores it. */
  parseName(fullName: string): [string, string, string] {
    const parts = typeof fullName === 'string' ? fullName.split('.') : [];
    if (parts.length !== 3) throw notThreeLevels(String(fullName));
    return [checkName('catalog', parts[0]!), checkName('schema', parts[1]!), checkName('model', parts[2]!)];
  }

  fullName(r: ModelRecord): string {
    return `${r.catalog_name}.${r.schema_name}.${r.name}`;
  }

  modelDir(r: ModelRecord): string {
    return path.join(this.dir, r.id);
  }

  versionDir(r: ModelRecord, version: number): string {
    return path.join(this.modelDir(r), 'versions', String(version));
  }

  private audit() {
    const now = this.clock.now();
    return { created_at: now, created_by: this.user, updated_at: now, updated_by: this.user };
  }

  private touch<T extends { updated_at: number; updated_by: string }>(r: T): T {
    r.updated_at = this.clock.now();
    r.updated_by = this.user;
    return r;
  }

  // ---- registered models ----

  async createModel(input: {
    catalog_name: string;
    schema_name: string;
    name: string;
    comment?: string | undefined;
    tags?: Record<string, string> | undefined;
    deployment_job_id?: string | undefined;
  }): Promise<ModelRecord> {
    const c = checkName('catalog', input.catalog_name);
    const s = checkName('schema', input.schema_name);
    const n = checkName('model', input.name);
    const full = `${c}.${s}.${n}`;
    await this.uc.getSchema(`${c}.${s}`);
    // Checked after the await: a concurrent create of the same name may have come first.
    if (this.models.has(full)) throw modelExists(full);
    const r: ModelRecord = {
      id: uuid(),
      catalog_name: c,
      schema_name: s,
      name: n,
      ...(input.comment ? { comment: input.comment } : {}),
      owner: this.user,
      ...this.audit(),
      aliases: {},
      tags: { ...input.tags },
      next_version: 1,
      ...(input.deployment_job_id ? { deployment_job_id: input.deployment_job_id } : {}),
    };
    this.models.set(full, r);
    await mkdir(this.modelDir(r), { recursive: true });
    return r;
  }

  getModel(fullName: string): ModelRecord {
    const [c, s, n] = this.parseName(fullName);
    const r = this.models.get(`${c}.${s}.${n}`);
    if (!r) throw modelNotFound(`${c}.${s}.${n}`);
    return r;
  }

  /** All models, or those of one catalog (and schema), sorted by full name. */
  listModels(catalog?: string, schema?: string): ModelRecord[] {
    const prefix = catalog
      ? `${checkName('catalog', catalog)}.${schema ? `${checkName('schema', schema)}.` : ''}`
      : '';
    return [...this.models.entries()]
      .filter(([k]) => k.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, r]) => r);
  }

  updateModel(
    fullName: string,
    u: {
      new_name?: string | undefined;
      comment?: string | undefined;
      owner?: string | undefined;
      deployment_job_id?: string | undefined;
    },
  ): ModelRecord {
    const r = this.getModel(fullName);
    let key = this.fullName(r);
    if (u.new_name !== undefined && u.new_name !== '') {
      // A new name is the model's own name, or a full name in the same schema.
      const newName = u.new_name.includes('.')
        ? this.parseName(u.new_name)
        : [r.catalog_name, r.schema_name, checkName('model', u.new_name)];
      if (newName[0] !== r.catalog_name || newName[1] !== r.schema_name)
        throw notThreeLevels(`${u.new_name} (a model is renamed within its schema)`);
      const newKey = newName.join('.');
      if (newKey !== key) {
        if (this.models.has(newKey)) throw modelExists(newKey);
        this.models.delete(key);
        this.models.set(newKey, { ...r, name: newName[2]! });
        this.onRenamed?.(key, newKey);
        key = newKey;
      }
    }
    return this.models.update(key, (x) => {
      if (u.comment !== undefined) {
        if (u.comment === '') delete x.comment;
        else x.comment = u.comment;
      }
      if (u.owner) x.owner = u.owner;
      if (u.deployment_job_id !== undefined) {
        if (u.deployment_job_id === '') delete x.deployment_job_id;
        else x.deployment_job_id = u.deployment_job_id;
      }
      this.touch(x);
    })!;
  }

  /** Deletes the model with all its versions and files, as Databricks does. */
  async deleteModel(fullName: string): Promise<void> {
    const r = this.getModel(fullName);
    this.dropRecords(r);
    await rm(this.modelDir(r), { recursive: true, force: true });
  }

  private dropRecords(r: ModelRecord): void {
    for (const k of Array.from(this.versions.keys())) if (k.startsWith(`${r.id}/`)) this.versions.delete(k);
    const full = this.fullName(r);
    this.models.delete(full);
    this.onRenamed?.(full, undefined);
  }

  setModelTag(fullName: string, key: string, value: string): void {
    const r = this.getModel(fullName);
    this.models.update(this.fullName(r), (x) => {
      x.tags[key] = value;
      this.touch(x);
    });
  }

  deleteModelTag(fullName: string, key: string): void {
    const r = this.getModel(fullName);
    this.models.update(this.fullName(r), (x) => {
      delete x.tags[key];
      this.touch(x);
    });
  }

  // ---- aliases ----

  setAlias(fullName: string, alias: string, version: number): { model: ModelRecord; alias: string } {
    const r = this.getModel(fullName);
    const a = this.checkAlias(alias);
    this.getVersion(fullName, version);
    const model = this.models.update(this.fullName(r), (x) => {
      x.aliases[a] = version;
      this.touch(x);
    })!;
    return { model, alias: a };
  }

  deleteAlias(fullName: string, alias: string): void {
    const r = this.getModel(fullName);
    const a = alias.toLowerCase();
    if (r.aliases[a] === undefined) throw aliasNotFound(this.fullName(r), alias);
    this.models.update(this.fullName(r), (x) => {
      delete x.aliases[a];
      this.touch(x);
    });
  }

  versionByAlias(fullName: string, alias: string): { model: ModelRecord; version: VersionRecord } {
    const r = this.getModel(fullName);
    const v = r.aliases[alias.toLowerCase()];
    if (v === undefined) throw aliasNotFound(this.fullName(r), alias);
    return { model: r, version: this.getVersion(fullName, v).version };
  }

  private checkAlias(alias: string): string {
    if (typeof alias !== 'string' || !ALIAS.test(alias) || /^latest$/i.test(alias) || /^v\d+$/i.test(alias))
      throw badAlias(String(alias));
    return alias.toLowerCase();
  }

  /** The aliases pointing at one version, sorted. */
  aliasesOf(r: ModelRecord, version: number): string[] {
    return Object.entries(r.aliases)
      .filter(([, v]) => v === version)
      .map(([a]) => a)
      .sort();
  }

  // ---- versions ----

  async createVersion(
    fullName: string,
    input: {
      source?: string | undefined;
      run_id?: string | undefined;
      run_workspace_id?: number | undefined;
      comment?: string | undefined;
      tags?: Record<string, string> | undefined;
      logged_model_id?: string | undefined;
      dependencies?: unknown;
    },
  ): Promise<{ model: ModelRecord; version: VersionRecord }> {
    const r = this.getModel(fullName);
    const n = r.next_version;
    const model = this.models.update(this.fullName(r), (x) => {
      x.next_version = n + 1;
      this.touch(x);
    })!;
    const v: VersionRecord = {
      model_id: r.id,
      version: n,
      id: uuid(),
      ...(input.source ? { source: input.source } : {}),
      ...(input.run_id ? { run_id: input.run_id } : {}),
      ...(input.run_workspace_id ? { run_workspace_id: input.run_workspace_id } : {}),
      ...(input.comment ? { comment: input.comment } : {}),
      status: 'PENDING_REGISTRATION',
      ...this.audit(),
      tags: { ...input.tags },
      ...(input.logged_model_id ? { logged_model_id: input.logged_model_id } : {}),
      ...(input.dependencies !== undefined ? { dependencies: input.dependencies } : {}),
    };
    await mkdir(this.versionDir(r, n), { recursive: true });
    this.versions.set(`${r.id}/${n}`, v);
    return { model, version: v };
  }

  getVersion(fullName: string, version: number | string): { model: ModelRecord; version: VersionRecord } {
    const r = this.getModel(fullName);
    const n = Number(version);
    const v = Number.isInteger(n) && n > 0 ? this.versions.get(`${r.id}/${n}`) : undefined;
    if (!v) throw versionNotFound(this.fullName(r), version);
    return { model: r, version: v };
  }

  /** A model's versions, newest first. */
  listVersions(fullName: string): { model: ModelRecord; versions: VersionRecord[] } {
    const r = this.getModel(fullName);
    return { model: r, versions: this.versionsOf(r) };
  }

  versionsOf(r: ModelRecord): VersionRecord[] {
    const out: VersionRecord[] = [];
    for (const [k, v] of this.versions.entries()) if (k.startsWith(`${r.id}/`)) out.push(v);
    return out.sort((a, b) => b.version - a.version);
  }

  updateVersion(
    fullName: string,
    version: number | string,
    u: { comment?: string | undefined },
  ): VersionRecord {
    const { model, version: v } = this.getVersion(fullName, version);
    return this.versions.update(`${model.id}/${v.version}`, (x) => {
      if (u.comment !== undefined) {
        if (u.comment === '') delete x.comment;
        else x.comment = u.comment;
      }
      this.touch(x);
    })!;
  }

  setVersionTag(fullName: string, version: number | string, key: string, value: string): void {
    const { model, version: v } = this.getVersion(fullName, version);
    this.versions.update(`${model.id}/${v.version}`, (x) => {
      x.tags[key] = value;
      this.touch(x);
    });
  }

  deleteVersionTag(fullName: string, version: number | string, key: string): void {
    const { model, version: v } = this.getVersion(fullName, version);
    this.versions.update(`${model.id}/${v.version}`, (x) => {
      delete x.tags[key];
      this.touch(x);
    });
  }

  /** PENDING_REGISTRATION -> READY: its files are complete and read-only from now on. */
  finalizeVersion(
    fullName: string,
    version: number | string,
  ): { model: ModelRecord; version: VersionRecord } {
    const { model, version: v } = this.getVersion(fullName, version);
    const done = this.versions.update(`${model.id}/${v.version}`, (x) => {
      if (x.status === 'PENDING_REGISTRATION') x.status = 'READY';
      this.touch(x);
    })!;
    return { model, version: done };
  }

  /** Deletes the version, its files and the aliases that pointed at it. */
  async deleteVersion(fullName: string, version: number | string): Promise<void> {
    const { model, version: v } = this.getVersion(fullName, version);
    this.versions.delete(`${model.id}/${v.version}`);
    if (this.aliasesOf(model, v.version).length)
      this.models.update(this.fullName(model), (x) => {
        for (const [a, n] of Object.entries(x.aliases)) if (n === v.version) delete x.aliases[a];
      });
    await rm(this.versionDir(model, v.version), { recursive: true, force: true });
  }

  /**
   * The directory a version's files are in, for the Files API root `/Models`: any version can be read,
   * only a PENDING_REGISTRATION one written.
   */
  versionFiles(fullName: string, version: string, access: 'read' | 'write'): string {
    const { model, version: v } = this.getVersion(fullName, version);
    if (access === 'write' && v.status !== 'PENDING_REGISTRATION')
      throw permissionDenied(
        `Model version ${this.fullName(model)} version ${v.version} is ${v.status}: its files are read-only.`,
      );
    return this.versionDir(model, v.version);
  }

  // ---- Unity Catalog's view of them (ExternalSecurables) ----

  asSecurables(): ExternalSecurables {
    return {
      grantType: 'function',
      fullName: (n) => {
        try {
          return this.fullName(this.getModel(n));
        } catch {
          return undefined;
        }
      },
      countUnder: (prefix) => [...this.models.keys()].filter((k) => k.startsWith(prefix)).length,
      dropUnder: (prefix) => {
        const dropped = [...this.models.entries()].filter(([k]) => k.startsWith(prefix)).map(([, r]) => r);
        for (const r of dropped) this.dropRecords(r);
        // The records are gone at once; the folders follow without holding up the schema's drop.
        const dirs = dropped.map((r) => this.modelDir(r));
        this.removing = this.removing.then(() =>
          Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }).catch(() => undefined))),
        );
      },
      rekeyUnder: (oldPrefix, newPrefix) => {
        for (const [k, r] of Array.from(this.models.entries())) {
          if (!k.startsWith(oldPrefix)) continue;
          const newKey = newPrefix + k.slice(oldPrefix.length);
          const [c, s] = newKey.split('.') as [string, string];
          this.models.delete(k);
          this.models.set(newKey, { ...r, catalog_name: c, schema_name: s });
        }
      },
    };
  }
}
