/**
 * Cluster policy definitions: a JSON object from an attribute path to a rule. Databricks applies `fixed`
 * values (and `defaultValue`s when apply_policy_default_values is true) to the cluster spec, then validates
 * the spec against every rule; this module does the same for the rule types Databricks documents.
 */
import { SPARK_VERSIONS } from './catalog.js';
import { invalidDefinition, policyViolation } from './errors.js';

type Json = unknown;
export type Spec = Record<string, Json>;

export interface PolicyRule {
  type: 'fixed' | 'forbidden' | 'allowlist' | 'blocklist' | 'regex' | 'range' | 'unlimited';
  value?: Json;
  values?: Json[];
  pattern?: string;
  minValue?: number;
  maxValue?: number;
  defaultValue?: Json;
  isOptional?: boolean;
  hidden?: boolean;
}

const RULE_TYPES = new Set(['fixed', 'forbidden', 'allowlist', 'blocklist', 'regex', 'range', 'unlimited']);
/** Virtual attributes that constrain the cluster but are not fields of its spec. */
const VIRTUAL = new Set(['cluster_type', 'dbus_per_hour']);
/** Map-valued attributes whose keys may contain dots themselves (spark_conf.spark.sql.x). */
const MAP_FIELDS = ['spark_conf', 'spark_env_vars', 'custom_tags', 'ssh_public_keys'];

/** Parses and checks a definition string; throws 400 naming the bad attribute. */
export function parseDefinition(definition: string): Record<string, PolicyRule> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(definition);
  } catch {
    throw invalidDefinition('the definition is not valid JSON');
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed))
    throw invalidDefinition('the definition must be a JSON object');
  for (const [path, rule] of Object.entries(parsed as Record<string, unknown>)) {
    if (!rule || typeof rule !== 'object' || Array.isArray(rule))
      throw invalidDefinition(`the rule for ${path} must be an object`);
    const r = rule as PolicyRule;
    if (!RULE_TYPES.has(r.type))
      throw invalidDefinition(`the rule for ${path} has an invalid type ${String(r.type)}`);
    if (r.type === 'fixed' && !('value' in r))
      throw invalidDefinition(`the fixed rule for ${path} needs a value`);
    if ((r.type === 'allowlist' || r.type === 'blocklist') && !Array.isArray(r.values))
      throw invalidDefinition(`the ${r.type} rule for ${path} needs values`);
    if (r.type === 'regex') {
      if (typeof r.pattern !== 'string')
        throw invalidDefinition(`the regex rule for ${path} needs a pattern`);
      try {
        new RegExp(r.pattern);
      } catch {
        throw invalidDefinition(`the regex rule for ${path} has an invalid pattern`);
      }
    }
  }
  return parsed as Record<string, PolicyRule>;
}

function splitPath(path: string): string[] {
  for (const m of MAP_FIELDS) if (path.startsWith(`${m}.`)) return [m, path.slice(m.length + 1)];
  return path.split('.');
}

function getAt(spec: Spec, path: string): Json {
  let cur: Json = spec;
  for (const part of splitPath(path)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    cur = Array.isArray(cur) ? cur[Number(part)] : (cur as Spec)[part];
  }
  return cur;
}

function setAt(spec: Spec, path: string, value: Json): void {
  const parts = splitPath(path);
  let cur: Spec = spec;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (next === null || typeof next !== 'object') cur[part] = {};
    cur = cur[part] as Spec;
  }
  cur[parts[parts.length - 1]!] = value;
}

/** `auto:latest`, `auto:latest-lts`, `auto:latest-ml`, `auto:latest-lts-ml`, as Databricks resolves them. */
function resolveAutoVersion(value: Json): Json {
  if (typeof value !== 'string' || !value.startsWith('auto:')) return value;
  const wantLts = value.includes('lts');
  const wantMl = value.includes('ml');
  const match = SPARK_VERSIONS.find(
    (sv) =>
      !sv.name.includes('Beta') &&
      sv.key.endsWith('scala2.12') &&
      (!wantLts || sv.name.includes('LTS')) &&
      sv.key.includes('-cpu-ml-') === wantMl &&
      !/-(gpu|photon|aarch64)-/.test(sv.key),
  );
  return match?.key ?? value;
}

const same = (a: Json, b: Json) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Applies the policy to a cluster spec (a copy is returned): fixed values always, default values when asked,
 * then checks every rule. Throws 400 INVALID_PARAMETER_VALUE on the first violation.
 */
export function applyPolicy(spec: Spec, definition: string, applyDefaults: boolean): Spec {
  const rules = parseDefinition(definition);
  const out = structuredClone(spec);
  for (const [path, rule] of Object.entries(rules)) {
    if (VIRTUAL.has(path)) continue;
    const current = getAt(out, path);
    if (rule.type === 'fixed') {
      const value = path === 'spark_version' ? resolveAutoVersion(rule.value) : rule.value;
      if (current === undefined) setAt(out, path, value);
      else if (!same(current, value))
        throw policyViolation(
          path,
          `the value must be ${JSON.stringify(value)} (is ${JSON.stringify(current)})`,
        );
      continue;
    }
    if (current === undefined) {
      if (applyDefaults && rule.defaultValue !== undefined)
        setAt(
          out,
          path,
          path === 'spark_version' ? resolveAutoVersion(rule.defaultValue) : rule.defaultValue,
        );
      continue;
    }
    checkRule(path, rule, current);
  }
  return out;
}

function checkRule(path: string, rule: PolicyRule, value: Json): void {
  switch (rule.type) {
    case 'forbidden':
      throw policyViolation(path, 'the field is forbidden by the policy');
    case 'allowlist':
      if (!(rule.values ?? []).some((v) => same(v, value)))
        throw policyViolation(
          path,
          `the value must be one of ${JSON.stringify(rule.values)} (is ${JSON.stringify(value)})`,
        );
      return;
    case 'blocklist':
      if ((rule.values ?? []).some((v) => same(v, value)))
        throw policyViolation(path, `the value ${JSON.stringify(value)} is not allowed`);
      return;
    case 'regex':
      if (typeof value !== 'string' || !new RegExp(rule.pattern ?? '').test(value))
        throw policyViolation(path, `the value must match ${rule.pattern} (is ${JSON.stringify(value)})`);
      return;
    case 'range': {
      const n = Number(value);
      if (!Number.isFinite(n)) throw policyViolation(path, 'the value must be a number');
      if (rule.minValue !== undefined && n < rule.minValue)
        throw policyViolation(path, `the value must be at least ${rule.minValue} (is ${n})`);
      if (rule.maxValue !== undefined && n > rule.maxValue)
        throw policyViolation(path, `the value must be at most ${rule.maxValue} (is ${n})`);
      return;
    }
    default:
      return;
  }
}

/** A family definition with a policy's overrides merged in (overrides win, attribute by attribute). */
export function mergeDefinitions(base: string, overrides: string | undefined): string {
  const merged = { ...parseDefinition(base), ...(overrides ? parseDefinition(overrides) : {}) };
  return JSON.stringify(merged);
}
