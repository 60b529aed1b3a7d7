/**
 * Typed settings. A service (or an engine) declares the MINILAKE_* variables it reads as a schema: one valibot
 * schema per variable, keyed by the variable's name, each with its default and a one-line doc. The host parses
 * every variable once, lists every problem together, and hands each service its values (ctx.settings); the
 * README's configuration table is generated from the same schemas. Packages never read `process.env`.
 *
 * The name in code is the variable's name (`ctx.settings.MINILAKE_SQL_RESULT_TTL`), so a grep for a
 * variable finds its declaration, its readers and its README row.
 */
import os from 'node:os';
import path from 'node:path';
import * as v from 'valibot';

/** One variable: its raw text (undefined when unset or empty) in, its typed value out. */
export type Setting<T = unknown> = v.GenericSchema<string | undefined, T>;
/** A package's settings: variable name -> schema. */
export type SettingsSchema = Readonly<Record<string, Setting>>;
/** The parsed values of a settings schema. */
export type SettingsOf<S extends SettingsSchema> = { readonly [K in keyof S]: v.InferOutput<S[K]> };

/** What the README table shows for a setting: its doc, and its default when the raw default says too little. */
export interface SettingDoc {
  doc: string;
  /** The default as the table shows it ('a quarter of RAM'); the raw default (or '—') otherwise. */
  shown: string;
}

/** Settings problems found together (every bad variable, one line each). */
export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('\n'));
    this.name = 'SettingsError';
  }
}

interface Common {
  /** One line for the README table. */
  doc: string;
  /** The default as the README shows it, when the raw default is not the whole story. */
  shown?: string;
}

/** A setting's schema with its doc and shown default attached (valibot's description and metadata). */
function documented<T>(schema: Setting<T>, doc: string, shown: string): Setting<T> {
  return v.pipe(schema, v.description<T, string>(doc), v.metadata<T, { shown: string }>({ shown }));
}

/**
 * An on/off switch. Accepts exactly `1` or `true` (on) and `0` or `false` (off), in any case; anything else
 * (`yes`, `on`) is a start-up error rather than a guess.
 */
export function switchSetting(opts: Common & { default: '0' | '1' | 'true' | 'false' }): Setting<boolean> {
  const schema = v.pipe(
    v.optional(v.string(), opts.default),
    v.check((s) => /^(1|0|true|false)$/i.test(s), 'must be 1, 0, true or false'),
    v.transform((s) => s === '1' || s.toLowerCase() === 'true'),
  );
  return documented(schema, opts.doc, opts.shown ?? `\`${opts.default}\``);
}

/**
 * A number (seconds, bytes, counts), never negative: `integer` refuses fractions, `min` raises the (inclusive)
 * floor, `positive` refuses 0.
 */
type NumberOpts = Common & { integer?: boolean; min?: number; max?: number; positive?: boolean };
export function numberSetting(opts: NumberOpts & { default: number }): Setting<number>;
export function numberSetting(opts: NumberOpts & { default?: undefined }): Setting<number | undefined>;
export function numberSetting(opts: NumberOpts & { default?: number }): Setting<number | undefined> {
  const min = opts.min ?? 0;
  const kind = opts.integer ? 'a whole number' : 'a number';
  const pattern = opts.integer ? /^\d+$/ : /^\d+(\.\d+)?$/;
  const raw = opts.default === undefined ? undefined : String(opts.default);
  const max = opts.max ?? Infinity;
  const range =
    max < Infinity
      ? ` from ${min} to ${max}`
      : opts.positive
        ? ' greater than 0'
        : min > 0
          ? ` of at least ${min}`
          : ' (0 or more)';
  const schema = v.pipe(
    v.optional(v.string(), raw),
    v.check(
      (s) =>
        s === undefined ||
        (pattern.test(s.trim()) && Number(s) >= min && Number(s) <= max && (!opts.positive || Number(s) > 0)),
      `must be ${kind}${range}`,
    ),
    v.transform((s) => (s === undefined ? undefined : Number(s))),
  );
  return documented(schema, opts.doc, opts.shown ?? (raw === undefined ? '—' : `\`${raw}\``));
}

/** Free text (a path, a host, a master URL); `pattern` restricts it, with the message that explains how. */
export function textSetting(
  opts: Common & { default: string | (() => string); pattern?: [RegExp, string] },
): Setting<string>;
export function textSetting(
  opts: Common & { default?: undefined; pattern?: [RegExp, string] },
): Setting<string | undefined>;
export function textSetting(
  opts: Common & { default?: string | (() => string); pattern?: [RegExp, string] },
): Setting<string | undefined> {
  const shown =
    opts.shown ?? (typeof opts.default === 'string' ? `\`${opts.default}\`` : opts.default ? '' : '—');
  const [re, message] = opts.pattern ?? [/^/, ''];
  const schema = v.pipe(
    v.optional(v.string(), opts.default),
    v.check((s) => s === undefined || re.test(s), message),
  );
  return documented<string | undefined>(schema, opts.doc, shown);
}

/** One of a fixed set of words (case-insensitive in, lower case out). */
export function choiceSetting<const T extends string>(
  opts: Common & { choices: readonly T[]; default: T },
): Setting<T> {
  const schema = v.pipe(
    v.optional(v.string(), opts.default as string),
    v.transform((s) => s.toLowerCase()),
    v.check(
      (s) => (opts.choices as readonly string[]).includes(s),
      `must be one of ${opts.choices.join(', ')}`,
    ),
    v.transform((s) => s as T),
  );
  return documented(schema, opts.doc, opts.shown ?? `\`${opts.default}\``);
}

/** The doc and shown default of a setting (for the README table). */
export function settingDoc(s: Setting): SettingDoc {
  const meta = v.getMetadata(s as v.GenericSchema) as { shown?: string } | undefined;
  return { doc: v.getDescription(s as v.GenericSchema) ?? '', shown: meta?.shown || '—' };
}

/**
 * Parses the variables a schema declares out of `env` (an empty value counts as unset). Returns the values
 * and one line per problem, naming the variable (`label` renames one, e.g. `--port` for a flag).
 */
export function parseSettings<S extends SettingsSchema>(
  schema: S,
  env: Readonly<Record<string, string | undefined>>,
  label: (name: string) => string = (n) => n,
): { values: SettingsOf<S>; problems: string[] } {
  const values: Record<string, unknown> = {};
  const problems: string[] = [];
  for (const [name, setting] of Object.entries(schema)) {
    const raw = env[name] === '' ? undefined : env[name];
    const r = v.safeParse(setting, raw);
    if (r.success) values[name] = r.output;
    else problems.push(`${label(name)}=${JSON.stringify(raw)} ${r.issues[0]?.message ?? 'is not valid'}`);
  }
  return { values: values as SettingsOf<S>, problems };
}

/** parseSettings that throws a SettingsError listing every problem: what tests and embedders call. */
export function readSettings<S extends SettingsSchema>(
  schema: S,
  env: Readonly<Record<string, string | undefined>> = {},
): SettingsOf<S> {
  const { values, problems } = parseSettings(schema, env);
  if (problems.length) throw new SettingsError(problems);
  return values;
}

/**
 * Where installs are cached (the Spark install, task venvs, JupyterLab, test tools): read by the host and by
 * the Spark engine, so declared once here and spread into both schemas.
 */
export const cacheSetting = {
  MINILAKE_CACHE: textSetting({
    doc: 'Where installs are cached: the Spark install (`bash packages/engine-spark/install.sh`), task venvs, test tools.',
    shown: '`~/.cache/minilake`',
    default: () => path.join(os.homedir(), '.cache', 'minilake'),
  }),
};

/**
 * The user's own TLS certificate: read by the host (it serves it) and by the Spark engine (Spark trusts it
 * when it calls back to an https MiniLake), so declared once here and spread into both schemas.
 */
export const tlsCertSetting = {
  MINILAKE_TLS_CERT: textSetting({
    doc: 'PEM file of your own certificate (with `MINILAKE_TLS_KEY`; turns https on).',
  }),
};

/**
 * MINILAKE_ENFORCE: read by Unity Catalog (privileges) and iam (object permissions, which the services
 * owning the objects ask iam to check), so declared once here and spread into both schemas.
 */
export const enforceSetting = {
  MINILAKE_ENFORCE: switchSetting({
    doc:
      '`1` enforces permissions for the caller (`MINILAKE_AUTH=tokens`). Unity Catalog privileges in SQL, the Unity ' +
      'Catalog REST API and the Files API on volumes: USE CATALOG / USE SCHEMA, SELECT, MODIFY, CREATE SCHEMA|TABLE|' +
      'VOLUME|FUNCTION, CREATE CATALOG, EXECUTE, READ/WRITE VOLUME, ownership or MANAGE for DROP, ALTER and grants ' +
      '(inherited down the hierarchy; groups and `account users` count; `admins` and owners pass; lists show only ' +
      'what the caller may see), else SQL `INSUFFICIENT_PERMISSIONS` / REST 403 `PERMISSION_DENIED`. Object ' +
      'permissions (`/api/2.0/permissions`, evaluated by `iam`): jobs and their runs, SQL warehouses (statements ' +
      'need CAN_USE), clusters and secret scope ACLs need the level the operation needs (groups, `users`, the ' +
      "creator's ownership count; `admins` pass), else 403 `PERMISSION_DENIED`; creating or renaming an MLflow " +
      "experiment needs Can Manage on its workspace folder (a user's own home folder, `/Shared`, grants); other " +
      'object types are not checked.',
    default: '0',
  }),
};
