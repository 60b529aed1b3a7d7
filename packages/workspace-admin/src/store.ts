/**
 * Workspace administration state: workspace-conf values, IP access lists, git credentials, global init
 * scripts, notification destinations and the /api/2.0/settings values. Secrets handed to these APIs (git
 * personal access tokens, webhook passwords, Slack URLs, PagerDuty keys) are write-only: git tokens are not
 * kept at all, destination secrets only as their SHA-256, and no response carries them back. What a delivery
 * needs (a webhook's URL and basic-auth credentials) is kept beside the hash, sealed with AES-256-GCM under a
 * key in the service's folder, and only ever handed to a notifier in process (`deliveryTarget`).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { isIPv4 } from 'node:net';
import {
  CollectionStore,
  hexId,
  invalidParameter,
  keysetPage,
  numericId,
  parseBase64,
  type Clock,
  type Collection,
  type Identity,
  type StateDb,
} from '@minilake/core';
import { confDefault, BOOLEAN_CONF, INTEGER_CONF, isConfKey, type SettingType } from './catalog.js';
import {
  confValuesMustBeStrings,
  destinationNotFound,
  gitCredentialNotFound,
  initScriptNotFound,
  invalidConfKeys,
  invalidConfValue,
  invalidIpAddress,
  ipAccessListNotFound,
  oneCredentialPerProvider,
  settingEtagConflict,
  settingNotFound,
  tooManyIpAddresses,
  unknownGitProvider,
} from './errors.js';

type Json = Record<string, unknown>;

interface IpAccessList {
  list_id: string;
  label: string;
  list_type: 'ALLOW' | 'BLOCK';
  ip_addresses: string[];
  enabled: boolean;
  created_at: number;
  created_by: number;
  updated_at: number;
  updated_by: number;
}

interface GitCredential {
  credential_id: number;
  principal_id: number;
  git_provider: string;
  git_username?: string;
  git_email?: string;
  name?: string;
  is_default_for_provider?: boolean;
  has_token: boolean;
}

interface InitScript {
  script_id: string;
  name: string;
  script: string;
  enabled: boolean;
  position: number;
  created_at: number;
  created_by: string;
  updated_at: number;
  updated_by: string;
}

interface Destination {
  id: string;
  seq: number;
  display_name: string;
  destination_type: string;
  /** The type's config object; secret fields hold `sha256:<hex>` instead of the value. */
  config: Json;
  /** Secret fields a delivery needs, sealed (base64 of iv | tag | ciphertext). */
  sealed?: Record<string, string>;
}

/** Where a notification for a destination goes, as a notifier in process needs it (never rendered). */
export type DeliveryTarget =
  | { type: 'WEBHOOK'; displayName: string; url: string; username?: string; password?: string }
  | { type: 'EMAIL'; displayName: string; addresses: string[] }
  | { type: string; displayName: string };

/** The secret fields kept (sealed) for delivery, per config key. */
const DELIVERY_FIELDS: Record<string, string[]> = { generic_webhook: ['url', 'username', 'password'] };

function loadKey(dir: string | undefined): Buffer {
  if (!dir) return randomBytes(32);
  const file = path.join(dir, 'destinations.key');
  if (existsSync(file)) return Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  mkdirSync(dir, { recursive: true });
  const key = randomBytes(32);
  writeFileSync(file, key.toString('base64'), { mode: 0o600 });
  return key;
}

interface SettingRecord {
  /** Absent after a delete: the setting is back to its default (or unset); the version keeps counting. */
  value?: Json;
  version: number;
}

const MAX_IP_ENTRIES = 1000;
const MAX_SCRIPT_BYTES = 64 * 1024;

const GIT_PROVIDERS = [
  'gitHub',
  'bitbucketCloud',
  'gitLab',
  'azureDevOpsServices',
  'gitHubEnterprise',
  'bitbucketServer',
  'gitLabEnterpriseEdition',
  'awsCodeCommit',
];

/** Each destination type: its config key and which of its fields are secrets (masked as `<field>_set`). */
const DESTINATIONS: Record<string, { type: string; secret: string[]; required: string[] }> = {
  email: { type: 'EMAIL', secret: [], required: ['addresses'] },
  slack: { type: 'SLACK', secret: ['url', 'oauth_token', 'channel_id'], required: [] },
  generic_webhook: { type: 'WEBHOOK', secret: ['url', 'username', 'password'], required: ['url'] },
  pagerduty: { type: 'PAGERDUTY', secret: ['integration_key'], required: ['integration_key'] },
  microsoft_teams: {
    type: 'MICROSOFT_TEAMS',
    secret: ['url', 'channel_url', 'auth_secret', 'app_id', 'tenant_id'],
    required: [],
  },
};

const sha = (s: string) => `sha256:${createHash('sha256').update(s).digest('hex')}`;

function validIp(entry: string): boolean {
  const [addr, bits, extra] = entry.split('/');
  if (extra !== undefined || !addr || !isIPv4(addr)) return false;
  if (bits === undefined) return true;
  return /^\d{1,2}$/.test(bits) && Number(bits) <= 32;
}

export class WorkspaceAdminStore extends CollectionStore {
  private readonly conf: Collection<string>;
  private readonly ipLists: Collection<IpAccessList>;
  private readonly gitCreds: Collection<GitCredential>;
  private readonly scripts: Collection<InitScript>;
  private readonly destinations: Collection<Destination>;
  private readonly settings: Collection<SettingRecord>;

  private readonly key: Buffer;

  constructor(
    db: StateDb,
    private readonly clock: Clock,
    private readonly identity: Identity,
    /** keyDir: where the key sealing delivery secrets lives (persistence on); in memory without it. */
    opts: { keyDir?: string } = {},
  ) {
    super('workspace-admin', 1, db);
    this.key = loadKey(opts.keyDir);
    this.conf = this.collection('workspace_conf');
    this.ipLists = this.collection('ip_access_lists');
    this.gitCreds = this.collection('git_credentials');
    this.scripts = this.collection('global_init_scripts');
    this.destinations = this.collection('notification_destinations');
    this.settings = this.collection('settings');
  }

  private get userId(): number {
    return Number(this.identity.userId);
  }

  // ---------- workspace-conf ----------

  getConf(keys: string | undefined): Record<string, string | null> {
    const list = (keys ?? '')
      .split(',')
      .map((k) => k.trim())
      .filter(Boolean);
    const unknown = list.filter((k) => !isConfKey(k));
    if (unknown.length > 0) throw invalidConfKeys(unknown);
    return Object.fromEntries(list.map((k) => [k, this.conf.get(k) ?? confDefault(k)]));
  }

  /** PATCH semantics: only the given keys change; an empty string reverts a key to its default. */
  setConf(values: Record<string, unknown>): void {
    const unknown = Object.keys(values).filter((k) => !isConfKey(k));
    if (unknown.length > 0) throw invalidConfKeys(unknown);
    const updates: [string, string][] = [];
    for (const [k, raw] of Object.entries(values)) {
      if (typeof raw !== 'string') throw confValuesMustBeStrings();
      let value = raw;
      if (value !== '' && k in BOOLEAN_CONF) {
        value = value.toLowerCase();
        if (value !== 'true' && value !== 'false') throw invalidConfValue(k, raw, 'expected true or false');
      }
      if (value !== '' && INTEGER_CONF.has(k) && !/^\d{1,9}$/.test(value))
        throw invalidConfValue(k, raw, 'expected a non-negative integer');
      updates.push([k, value]);
    }
    for (const [k, value] of updates) {
      if (value === '') this.conf.delete(k);
      else this.conf.set(k, value);
    }
  }

  // ---------- IP access lists ----------

  private checkAddresses(addresses: string[], exceptId?: string): string[] {
    for (const a of addresses) if (!validIp(a.trim())) throw invalidIpAddress(a);
    const others = [...this.ipLists.values()]
      .filter((l) => l.list_id !== exceptId)
      .reduce((n, l) => n + l.ip_addresses.length, 0);
    if (others + addresses.length > MAX_IP_ENTRIES) throw tooManyIpAddresses(MAX_IP_ENTRIES);
    return addresses.map((a) => a.trim());
  }

  private ipInfo(l: IpAccessList): Json {
    return { ...l, address_count: l.ip_addresses.length };
  }

  createIpAccessList(label: string, listType: 'ALLOW' | 'BLOCK', addresses: string[]) {
    const now = this.clock.now();
    const list: IpAccessList = {
      list_id: randomUUID(),
      label,
      list_type: listType,
      ip_addresses: this.checkAddresses(addresses),
      enabled: true,
      created_at: now,
      created_by: this.userId,
      updated_at: now,
      updated_by: this.userId,
    };
    this.ipLists.set(list.list_id, list);
    return { ip_access_list: this.ipInfo(list) };
  }

  private ipList(id: string): IpAccessList {
    const l = this.ipLists.get(id);
    if (!l) throw ipAccessListNotFound(id);
    return l;
  }

  getIpAccessList(id: string) {
    return { ip_access_list: this.ipInfo(this.ipList(id)) };
  }

  listIpAccessLists() {
    return {
      ip_access_lists: [...this.ipLists.values()]
        .sort((a, b) => a.created_at - b.created_at || a.list_id.localeCompare(b.list_id))
        .map((l) => this.ipInfo(l)),
    };
  }

  updateIpAccessList(
    id: string,
    patch: { label?: string; list_type?: 'ALLOW' | 'BLOCK'; enabled?: boolean; ip_addresses?: string[] },
  ): void {
    const l = { ...this.ipList(id) };
    if (patch.label !== undefined) l.label = patch.label;
    if (patch.list_type !== undefined) l.list_type = patch.list_type;
    if (patch.enabled !== undefined) l.enabled = patch.enabled;
    if (patch.ip_addresses !== undefined) l.ip_addresses = this.checkAddresses(patch.ip_addresses, id);
    l.updated_at = this.clock.now();
    l.updated_by = this.userId;
    this.ipLists.set(id, l);
  }

  deleteIpAccessList(id: string): void {
    this.ipList(id);
    this.ipLists.delete(id);
  }

  // ---------- git credentials ----------

  private provider(name: string): string {
    const p = GIT_PROVIDERS.find((g) => g.toLowerCase() === name.toLowerCase());
    if (!p) throw unknownGitProvider(name);
    return p;
  }

  private credInfo(c: GitCredential): Json {
    const out: Json = { credential_id: c.credential_id, git_provider: c.git_provider };
    for (const k of ['git_username', 'git_email', 'name', 'is_default_for_provider'] as const)
      if (c[k] !== undefined) out[k] = c[k];
    return out;
  }

  createGitCredential(input: {
    git_provider: string;
    git_username?: string | undefined;
    git_email?: string | undefined;
    personal_access_token?: string | undefined;
    name?: string | undefined;
    is_default_for_provider?: boolean | undefined;
    principal_id?: number | string | undefined;
  }) {
    const principal = input.principal_id === undefined ? this.userId : Number(input.principal_id);
    const provider = this.provider(input.git_provider);
    for (const c of this.gitCreds.values())
      if (c.principal_id === principal && c.git_provider === provider) throw oneCredentialPerProvider();
    const c: GitCredential = {
      credential_id: numericId(),
      principal_id: principal,
      git_provider: provider,
      has_token: !!input.personal_access_token,
    };
    if (input.git_username !== undefined) c.git_username = input.git_username;
    if (input.git_email !== undefined) c.git_email = input.git_email;
    if (input.name !== undefined) c.name = input.name;
    if (input.is_default_for_provider !== undefined)
      c.is_default_for_provider = input.is_default_for_provider;
    this.gitCreds.set(String(c.credential_id), c);
    return this.credInfo(c);
  }

  private cred(id: string, principalId?: number): GitCredential {
    const c = this.gitCreds.get(id);
    if (!c || c.principal_id !== (principalId ?? this.userId)) throw gitCredentialNotFound(id);
    return c;
  }

  getGitCredential(id: string, principalId?: number) {
    return this.credInfo(this.cred(id, principalId));
  }

  listGitCredentials(principalId?: number) {
    const p = principalId ?? this.userId;
    return {
      credentials: [...this.gitCreds.values()]
        .filter((c) => c.principal_id === p)
        .sort((a, b) => a.credential_id - b.credential_id)
        .map((c) => this.credInfo(c)),
    };
  }

  updateGitCredential(
    id: string,
    input: {
      git_provider?: string | undefined;
      git_username?: string | undefined;
      git_email?: string | undefined;
      personal_access_token?: string | undefined;
      name?: string | undefined;
      is_default_for_provider?: boolean | undefined;
      principal_id?: number | string | undefined;
    },
  ): void {
    const principal = input.principal_id === undefined ? undefined : Number(input.principal_id);
    const c = { ...this.cred(id, principal) };
    if (input.git_provider !== undefined) {
      const provider = this.provider(input.git_provider);
      for (const o of this.gitCreds.values())
        if (
          o.credential_id !== c.credential_id &&
          o.principal_id === c.principal_id &&
          o.git_provider === provider
        )
          throw oneCredentialPerProvider();
      c.git_provider = provider;
    }
    if (input.git_username !== undefined) c.git_username = input.git_username;
    if (input.git_email !== undefined) c.git_email = input.git_email;
    if (input.name !== undefined) c.name = input.name;
    if (input.is_default_for_provider !== undefined)
      c.is_default_for_provider = input.is_default_for_provider;
    if (input.personal_access_token !== undefined) c.has_token = input.personal_access_token !== '';
    this.gitCreds.set(id, c);
  }

  deleteGitCredential(id: string, principalId?: number): void {
    this.cred(id, principalId);
    this.gitCreds.delete(id);
  }

  // ---------- global init scripts ----------

  private checkScript(script: string): string {
    const bytes = parseBase64(script);
    if (!bytes) throw invalidParameter('script must be base64-encoded.');
    if (bytes.length > MAX_SCRIPT_BYTES)
      throw invalidParameter(`The script must be at most ${MAX_SCRIPT_BYTES} bytes.`);
    return script;
  }

  private ordered(): InitScript[] {
    return [...this.scripts.values()].sort((a, b) => a.position - b.position);
  }

  /** Places `script` at `position` (end when absent or past the end) and renumbers 0..n-1. */
  private place(script: InitScript, position: number | undefined): void {
    const rest = this.ordered().filter((s) => s.script_id !== script.script_id);
    if (position !== undefined && position < 0) throw invalidParameter('position must be >= 0.');
    const at = position === undefined ? rest.length : Math.min(position, rest.length);
    rest.splice(at, 0, script);
    rest.forEach((s, i) => {
      if (s.position !== i || s === script) this.scripts.set(s.script_id, { ...s, position: i });
    });
  }

  private scriptDetails(s: InitScript, withContent: boolean): Json {
    const { script, ...details } = s;
    return withContent ? { ...details, script } : details;
  }

  createGlobalInitScript(input: {
    name: string;
    script: string;
    enabled?: boolean | undefined;
    position?: number | undefined;
  }) {
    const now = this.clock.now();
    const s: InitScript = {
      script_id: hexId(16).toUpperCase(),
      name: input.name,
      script: this.checkScript(input.script),
      enabled: input.enabled ?? false,
      position: 0,
      created_at: now,
      created_by: this.identity.userName,
      updated_at: now,
      updated_by: this.identity.userName,
    };
    this.place(s, input.position);
    return { script_id: s.script_id };
  }

  private script(id: string): InitScript {
    const s = this.scripts.get(id);
    if (!s) throw initScriptNotFound(id);
    return s;
  }

  getGlobalInitScript(id: string) {
    return this.scriptDetails(this.script(id), true);
  }

  listGlobalInitScripts() {
    return { scripts: this.ordered().map((s) => this.scriptDetails(s, false)) };
  }

  updateGlobalInitScript(
    id: string,
    input: { name: string; script: string; enabled?: boolean | undefined; position?: number | undefined },
  ): void {
    const s: InitScript = {
      ...this.script(id),
      name: input.name,
      script: this.checkScript(input.script),
      updated_at: this.clock.now(),
      updated_by: this.identity.userName,
    };
    // Omitted optional fields fall back to their defaults, as the real PATCH does.
    s.enabled = input.enabled ?? false;
    this.place(s, input.position ?? s.position);
  }

  deleteGlobalInitScript(id: string): void {
    this.script(id);
    this.scripts.delete(id);
    this.ordered().forEach((s, i) => {
      if (s.position !== i) this.scripts.set(s.script_id, { ...s, position: i });
    });
  }

  // ---------- notification destinations ----------

  private seal(text: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
  }

  private unseal(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }

  private sealedFor(key: string, raw: Json, existing?: Destination): Record<string, string> | undefined {
    const fields = DELIVERY_FIELDS[key];
    if (!fields) return undefined;
    const out: Record<string, string> = { ...existing?.sealed };
    for (const f of fields) if (typeof raw[f] === 'string') out[f] = this.seal(raw[f] as string);
    return out;
  }

  /** What a notifier needs to deliver to this destination (404 when it does not exist). */
  deliveryTarget(id: string): DeliveryTarget {
    const d = this.destination(id);
    if (d.destination_type === 'EMAIL') {
      return { type: 'EMAIL', displayName: d.display_name, addresses: d.config.addresses as string[] };
    }
    if (d.destination_type === 'WEBHOOK' && d.sealed?.url) {
      const open = (f: string) => (d.sealed?.[f] ? this.unseal(d.sealed[f]) : undefined);
      const username = open('username');
      const password = open('password');
      return {
        type: 'WEBHOOK',
        displayName: d.display_name,
        url: open('url')!,
        ...(username !== undefined ? { username } : {}),
        ...(password !== undefined ? { password } : {}),
      };
    }
    return { type: d.destination_type, displayName: d.display_name };
  }

  private parseConfig(config: Json | undefined, existing?: Destination): { key: string; value: Json } {
    const keys = Object.keys(config ?? {}).filter(
      (k) => (config as Json)[k] !== undefined && (config as Json)[k] !== null,
    );
    if (keys.length !== 1) throw invalidParameter('config must set exactly one destination type.');
    const key = keys[0]!;
    const spec = DESTINATIONS[key];
    if (!spec) throw invalidParameter(`Unsupported destination type in config: ${key}.`);
    const raw = (config as Json)[key];
    if (!raw || typeof raw !== 'object' || Array.isArray(raw))
      throw invalidParameter(`config.${key} must be an object.`);
    const value: Json = existing && existing.destination_type === spec.type ? { ...existing.config } : {};
    for (const [k, v] of Object.entries(raw as Json)) {
      if (k.endsWith('_set')) continue;
      if (spec.secret.includes(k)) {
        if (typeof v !== 'string') throw invalidParameter(`config.${key}.${k} must be a string.`);
        value[k] = sha(v);
      } else value[k] = v;
    }
    for (const r of spec.required)
      if (value[r] === undefined || value[r] === '')
        throw invalidParameter(`config.${key}.${r} is required.`);
    if (key === 'email') {
      const addresses = value.addresses;
      if (
        !Array.isArray(addresses) ||
        addresses.length === 0 ||
        !addresses.every((a) => typeof a === 'string' && /^[^@\s]+@[^@\s]+$/.test(a))
      )
        throw invalidParameter('config.email.addresses must be a non-empty list of e-mail addresses.');
    }
    return { key, value };
  }

  private renderDestination(d: Destination): Json {
    const key = Object.keys(DESTINATIONS).find((k) => DESTINATIONS[k]!.type === d.destination_type)!;
    const spec = DESTINATIONS[key]!;
    const config: Json = {};
    for (const [k, v] of Object.entries(d.config)) {
      if (spec.secret.includes(k)) config[`${k}_set`] = true;
      else config[k] = v;
    }
    return {
      id: d.id,
      display_name: d.display_name,
      destination_type: d.destination_type,
      config: { [key]: config },
    };
  }

  createDestination(displayName: string | undefined, config: Json | undefined) {
    const { key, value } = this.parseConfig(config);
    if (!displayName || displayName.trim() === '') throw invalidParameter('display_name is required.');
    const seq = [...this.destinations.values()].reduce((m, d) => Math.max(m, d.seq), 0) + 1;
    const d: Destination = {
      id: randomUUID(),
      seq,
      display_name: displayName,
      destination_type: DESTINATIONS[key]!.type,
      config: value,
    };
    const sealed = this.sealedFor(key, (config as Json)[key] as Json);
    if (sealed) d.sealed = sealed;
    this.destinations.set(d.id, d);
    return this.renderDestination(d);
  }

  private destination(id: string): Destination {
    const d = this.destinations.get(id);
    if (!d) throw destinationNotFound(id);
    return d;
  }

  getDestination(id: string) {
    return this.renderDestination(this.destination(id));
  }

  listDestinations(pageSize: number | undefined, pageToken: string | undefined) {
    if (pageSize !== undefined && pageSize < 0) throw invalidParameter('page_size must be >= 0.');
    const sorted = [...this.destinations.values()].sort((a, b) => a.seq - b.seq);
    const key = (d: Destination) => String(d.seq).padStart(12, '0');
    const page = keysetPage(sorted, key, pageSize || undefined, pageToken || undefined);
    const out: Json = {
      results: page.items.map((d) => ({
        id: d.id,
        display_name: d.display_name,
        destination_type: d.destination_type,
      })),
    };
    if (page.nextPageToken) out.next_page_token = page.nextPageToken;
    return out;
  }

  updateDestination(id: string, displayName: string | undefined, config: Json | undefined) {
    const d = { ...this.destination(id) };
    if (displayName !== undefined) {
      if (displayName.trim() === '') throw invalidParameter('display_name must not be empty.');
      d.display_name = displayName;
    }
    if (config !== undefined) {
      const { key, value } = this.parseConfig(config, d);
      if (DESTINATIONS[key]!.type !== d.destination_type)
        throw invalidParameter(`The destination type cannot change (it is ${d.destination_type}).`);
      d.config = value;
      const sealed = this.sealedFor(key, (config as Json)[key] as Json, d);
      if (sealed) d.sealed = sealed;
    }
    this.destinations.set(id, d);
    return this.renderDestination(d);
  }

  deleteDestination(id: string): void {
    this.destination(id);
    this.destinations.delete(id);
  }

  // ---------- settings ----------

  private etagOf(type: SettingType, version: number): string {
    return Buffer.from(`${type.type}:${version}`).toString('base64url');
  }

  private settingBody(type: SettingType, value: Json, version: number): Json {
    const out: Json = { setting_name: 'default', [type.field]: value };
    if (type.etag) out.etag = this.etagOf(type, version);
    return out;
  }

  getSetting(type: SettingType): Json {
    const rec = this.settings.get(type.type);
    if (rec?.value !== undefined) return this.settingBody(type, rec.value, rec.version);
    const version = rec?.version ?? 0;
    if (!type.defaultValue) throw settingNotFound(type.type, this.etagOf(type, version));
    return this.settingBody(type, type.defaultValue, version);
  }

  private checkEtag(type: SettingType, etag: string | undefined): SettingRecord | undefined {
    const rec = this.settings.get(type.type);
    const current = this.etagOf(type, rec?.version ?? 0);
    // An etag is optional here (the SDK helpers send what the caller gives); a stale one is a 409.
    if (etag !== undefined && etag !== '' && etag !== current) throw settingEtagConflict(type.type, current);
    return rec;
  }

  updateSetting(
    type: SettingType,
    body: { allow_missing?: boolean | undefined; field_mask?: string | undefined; setting: Json },
  ): Json {
    const mask = (body.field_mask ?? '*')
      .split(',')
      .map((m) => m.trim())
      .filter(Boolean);
    const touches = mask.some((m) => m === '*' || m === type.field || m.startsWith(`${type.field}.`));
    if (!touches) throw invalidParameter(`field_mask must name ${type.field} (or be *).`);
    const rec = this.checkEtag(type, typeof body.setting.etag === 'string' ? body.setting.etag : undefined);
    const exists = rec?.value !== undefined;
    if (!exists && body.allow_missing === false && !type.defaultValue)
      throw settingNotFound(type.type, this.etagOf(type, rec?.version ?? 0));
    const incoming = body.setting[type.field];
    if (!incoming || typeof incoming !== 'object' || Array.isArray(incoming))
      throw invalidParameter(`setting.${type.field} must be an object.`);
    const base = rec?.value ?? type.defaultValue ?? {};
    let value: Json = { ...(incoming as Json) };
    if (!mask.includes('*') && !mask.includes(type.field)) {
      // sub-field masks (namespace.value): only those sub-fields change
      value = { ...base };
      for (const m of mask) {
        const sub = m.slice(type.field.length + 1);
        if (sub) value[sub] = (incoming as Json)[sub];
      }
    }
    const problem = type.check(value);
    if (problem) throw invalidParameter(`setting.${type.field}: ${problem}`);
    const version = (rec?.version ?? 0) + 1;
    this.settings.set(type.type, { value, version });
    return this.settingBody(type, value, version);
  }

  deleteSetting(type: SettingType, etag: string | undefined): Json {
    const rec = this.checkEtag(type, etag);
    if (rec?.value === undefined && !type.defaultValue)
      throw settingNotFound(type.type, this.etagOf(type, rec?.version ?? 0));
    const version = (rec?.version ?? 0) + 1;
    // Keep the version so etags never repeat; the value reverts to the default (or to "not set").
    this.settings.set(type.type, { version });
    return { etag: this.etagOf(type, version) };
  }
}
