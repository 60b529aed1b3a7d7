/**
 * Typed settings: each kind accepts what the README says and names the variable when it refuses, every
 * problem is reported together, and a service's context gets its values parsed from its own schema.
 */
import { describe, expect, it } from 'vitest';
import {
  choiceSetting,
  contextFor,
  defineService,
  numberSetting,
  parseSettings,
  readSettings,
  settingDoc,
  SettingsError,
  switchSetting,
  textSetting,
} from '../src/index.js';

const schema = {
  MINILAKE_T_SWITCH: switchSetting({ doc: 'a switch', default: '0' }),
  MINILAKE_T_ON: switchSetting({ doc: 'on by default', default: 'true' }),
  MINILAKE_T_SECONDS: numberSetting({ doc: 'seconds', default: 2 }),
  MINILAKE_T_COUNT: numberSetting({ doc: 'a count', default: 4, integer: true, min: 1 }),
  MINILAKE_T_OPTIONAL: numberSetting({ doc: 'unset means derived', shown: 'derived', integer: true }),
  MINILAKE_T_PORT: numberSetting({ doc: 'a port', default: 8000, integer: true, max: 65535 }),
  MINILAKE_T_CHOICE: choiceSetting({ doc: 'a choice', choices: ['duckdb', 'delta'], default: 'duckdb' }),
  MINILAKE_T_TEXT: textSetting({
    doc: 'text',
    default: 'x',
    pattern: [/^[a-z]+$/, 'must be lower-case letters'],
  }),
};

describe('settings', () => {
  it('applies defaults, typed', () => {
    expect(readSettings(schema, {})).toEqual({
      MINILAKE_T_SWITCH: false,
      MINILAKE_T_ON: true,
      MINILAKE_T_SECONDS: 2,
      MINILAKE_T_COUNT: 4,
      MINILAKE_T_OPTIONAL: undefined,
      MINILAKE_T_PORT: 8000,
      MINILAKE_T_CHOICE: 'duckdb',
      MINILAKE_T_TEXT: 'x',
    });
  });

  it('switches accept exactly 1, 0, true and false (any case); an empty value is unset', () => {
    for (const [raw, value] of [
      ['1', true],
      ['true', true],
      ['TRUE', true],
      ['0', false],
      ['False', false],
      ['', false],
    ] as const)
      expect(readSettings(schema, { MINILAKE_T_SWITCH: raw }).MINILAKE_T_SWITCH, raw).toBe(value);
    for (const raw of ['yes', 'on', 'no', 'off', '2', 'y'])
      expect(() => readSettings(schema, { MINILAKE_T_SWITCH: raw }), raw).toThrow(
        `MINILAKE_T_SWITCH="${raw}" must be 1, 0, true or false`,
      );
  });

  it('numbers, choices and patterns are parsed or refused, never replaced by a default', () => {
    const s = readSettings(schema, {
      MINILAKE_T_SECONDS: '0.2',
      MINILAKE_T_OPTIONAL: '3',
      MINILAKE_T_CHOICE: 'DELTA',
      MINILAKE_T_PORT: '0',
    });
    expect(s).toMatchObject({ MINILAKE_T_SECONDS: 0.2, MINILAKE_T_OPTIONAL: 3, MINILAKE_T_CHOICE: 'delta' });
    expect(s.MINILAKE_T_PORT).toBe(0);
    const { problems } = parseSettings(schema, {
      MINILAKE_T_SECONDS: '-1',
      MINILAKE_T_COUNT: '0',
      MINILAKE_T_OPTIONAL: '1.5',
      MINILAKE_T_PORT: '70000',
      MINILAKE_T_CHOICE: 'parquet',
      MINILAKE_T_TEXT: 'ABC',
      MINILAKE_T_ON: 'yes',
    });
    // Every problem together, one line each, naming the variable and its value.
    expect(problems).toEqual([
      'MINILAKE_T_ON="yes" must be 1, 0, true or false',
      'MINILAKE_T_SECONDS="-1" must be a number (0 or more)',
      'MINILAKE_T_COUNT="0" must be a whole number of at least 1',
      'MINILAKE_T_OPTIONAL="1.5" must be a whole number (0 or more)',
      'MINILAKE_T_PORT="70000" must be a whole number from 0 to 65535',
      'MINILAKE_T_CHOICE="parquet" must be one of duckdb, delta',
      'MINILAKE_T_TEXT="ABC" must be lower-case letters',
    ]);
    expect(() => readSettings(schema, { MINILAKE_T_COUNT: 'x' })).toThrow(SettingsError);
  });

  it('carries its doc and the default the README shows', () => {
    expect(settingDoc(schema.MINILAKE_T_SECONDS)).toEqual({ doc: 'seconds', shown: '`2`' });
    expect(settingDoc(schema.MINILAKE_T_OPTIONAL)).toEqual({ doc: 'unset means derived', shown: 'derived' });
    expect(settingDoc(schema.MINILAKE_T_ON)).toEqual({ doc: 'on by default', shown: '`true`' });
  });

  it("a service's context holds its own settings, parsed from raw values with its schema", async () => {
    const def = defineService<{ seconds: number }, typeof schema>({
      name: 't',
      description: 't',
      settings: schema,
      create: (ctx) => ({
        app: undefined as never,
        state: [],
        api: { seconds: ctx.settings.MINILAKE_T_SECONDS },
      }),
    });
    const ctx = contextFor(def, { config: { MINILAKE_T_SECONDS: '5' } });
    expect((await def.create(ctx)).api?.seconds).toBe(5);
    expect(() => contextFor(def, { config: { MINILAKE_T_SECONDS: 'soon' } })).toThrow(
      'MINILAKE_T_SECONDS="soon" must be a number',
    );
  });
});
