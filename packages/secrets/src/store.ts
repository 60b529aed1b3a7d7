/**
 * Secret scopes, secrets and ACLs. Values are encrypted (AES-256-GCM) before they reach a collection, so the
 * journal and snapshots never hold them in clear text; the key lives in the data dir, readable by the owner only.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  CollectionStore,
  invalidParameter,
  parseBase64,
  type Clock,
  type Collection,
  type StateDb,
} from '@minilake/core';
import {
  aclNotFound,
  invalidName,
  scopeExists,
  scopeNotFound,
  secretNotFound,
  valueTooLarge,
} from './errors.js';

export type AclPermission = 'READ' | 'WRITE' | 'MANAGE';

interface ScopeRecord {
  name: string;
  backend_type: 'DATABRICKS';
  acls: Record<string, AclPermission>;
}

interface SecretRecord {
  scope: string;
  key: string;
  /** base64 of iv(12) | tag(16) | ciphertext */
  sealed: string;
  last_updated_timestamp: number;
}

const NAME = /^[A-Za-z0-9_.-]{1,128}$/;
const MAX_VALUE_BYTES = 128 * 1024;

function loadKey(dir: string | undefined): Buffer {
  if (!dir) return randomBytes(32);
  const file = path.join(dir, 'secrets.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64'), { mode: 0o600 });
  return key;
}

export class SecretsStore extends CollectionStore {
  private readonly scopes: Collection<ScopeRecord>;
  private readonly secrets: Collection<SecretRecord>;
  private readonly key: Buffer;

  private readonly clock: Clock;
  private readonly owner: string;

  constructor(
    db: StateDb,
    opts: {
      clock: Clock;
      /** The creator of new scopes. */
      owner: string;
      /**
       * Where `secrets.key` lives; only given when persistence is on: the key must outlive the process with
       * the data. Without it the key is random and in memory.
       */
      keyDir?: string;
    },
  ) {
    super('secrets', 1, db);
    this.clock = opts.clock;
    this.owner = opts.owner;
    this.scopes = this.collection('scopes');
    this.secrets = this.collection('secrets');
    this.key = loadKey(opts.keyDir);
  }

  private scope(name: string): ScopeRecord {
    const s = this.scopes.get(name);
    if (!s) throw scopeNotFound(name);
    return s;
  }

  createScope(name: string, initialManagePrincipal?: string): void {
    if (!NAME.test(name)) throw invalidName('Scope', name);
    if (this.scopes.has(name)) throw scopeExists(name);
    const principal = initialManagePrincipal ?? this.owner;
    this.scopes.set(name, { name, backend_type: 'DATABRICKS', acls: { [principal]: 'MANAGE' } });
  }

  deleteScope(name: string): void {
    this.scope(name);
    for (const [id, s] of this.secrets.entries()) if (s.scope === name) this.secrets.delete(id);
    this.scopes.delete(name);
  }

  listScopes() {
    return [...this.scopes.values()]
      .map((s) => ({ name: s.name, backend_type: s.backend_type }))
      .sort((a, b) => a.name.localeCompare(b.name));
  }

  putSecret(scope: string, key: string, value: Buffer): void {
    this.scope(scope);
    if (!NAME.test(key)) throw invalidName('Secret key', key);
    if (value.length > MAX_VALUE_BYTES) throw valueTooLarge();
    this.secrets.set(`${scope}/${key}`, {
      scope,
      key,
      sealed: this.seal(value),
      last_updated_timestamp: this.clock.now(),
    });
  }

  deleteSecret(scope: string, key: string): void {
    this.scope(scope);
    if (!this.secrets.delete(`${scope}/${key}`)) throw secretNotFound(scope, key);
  }

  listSecrets(scope: string) {
    this.scope(scope);
    return [...this.secrets.values()]
      .filter((s) => s.scope === scope)
      .map((s) => ({ key: s.key, last_updated_timestamp: s.last_updated_timestamp }))
      .sort((a, b) => a.key.localeCompare(b.key));
  }

  /** The value's bytes: for `GET secrets/get` (unless write-only) and for jobs' {{secrets/...}} references. */
  readSecret(scope: string, key: string): Buffer {
    this.scope(scope);
    const s = this.secrets.get(`${scope}/${key}`);
    if (!s) throw secretNotFound(scope, key);
    return this.unseal(s.sealed);
  }

  putAcl(scope: string, principal: string, permission: AclPermission): void {
    const s = this.scope(scope);
    s.acls[principal] = permission;
    this.scopes.set(scope, s);
  }

  deleteAcl(scope: string, principal: string): void {
    const s = this.scope(scope);
    if (!(principal in s.acls)) throw aclNotFound(scope, principal);
    delete s.acls[principal];
    this.scopes.set(scope, s);
  }

  getAcl(scope: string, principal: string) {
    const permission = this.scope(scope).acls[principal];
    if (!permission) throw aclNotFound(scope, principal);
    return { principal, permission };
  }

  listAcls(scope: string) {
    return Object.entries(this.scope(scope).acls)
      .map(([principal, permission]) => ({ principal, permission }))
      .sort((a, b) => a.principal.localeCompare(b.principal));
  }

  /** Replaces every `{{secrets/<scope>/<key>}}` in `text` with the secret's value (UTF-8). */
  resolveReferences(text: string): string {
    return text.replace(/\{\{\s*secrets\/([^/}\s]+)\/([^}\s]+)\s*\}\}/g, (_m, scope: string, key: string) =>
      this.readSecret(scope, key).toString('utf8'),
    );
  }

  private seal(value: Buffer): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(value), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  private unseal(sealed: string): Buffer {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]);
  }
}

/** Decodes the put request's value: exactly one of string_value and bytes_value (base64). */
export function secretValue(body: {
  string_value?: string | undefined;
  bytes_value?: string | undefined;
}): Buffer {
  const hasString = body.string_value !== undefined;
  const hasBytes = body.bytes_value !== undefined;
  if (hasString === hasBytes)
    throw invalidParameter('Exactly one of string_value and bytes_value must be set.');
  if (hasString) return Buffer.from(body.string_value!, 'utf8');
  const bytes = parseBase64(body.bytes_value!);
  if (!bytes) throw invalidParameter('bytes_value must be base64-encoded.');
  return bytes;
}
