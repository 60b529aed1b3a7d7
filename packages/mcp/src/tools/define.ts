/**
 * The shape every tool is declared in: name, the service it needs, schemas with descriptions, honest
 * annotations and a run function over the REST client. Registration (server.ts) turns a Databricks error into
 * `isError: true` with the error_code and message.
 */
import * as z from 'zod';
import type { Rest } from '../rest.js';
import type { Fixtures } from '../fixtures.js';

export interface ToolEnv {
  rest: Rest;
  /** Serialized find-or-create of the one warehouse MCP tools use when none is named. */
  fixtures: Fixtures;
  /** Services enabled on this server. */
  services: ReadonlySet<string>;
  userName: string;
}

export interface Hints {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

/** Reads state, changes nothing. */
export const READ: Hints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Creates something new each call (a second call makes a second object or fails with ALREADY_EXISTS). */
export const CREATE: Hints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/** Changes state; calling it again with the same arguments changes nothing more. */
export const UPDATE: Hints = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Overwrites or removes data; repeating it has no further effect. */
export const DESTROY: Hints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: true,
  openWorldHint: false,
};
/** Overwrites or removes data, and a repeat does something again (a new run, a new statement). */
export const DESTROY_ONCE: Hints = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: false,
};

export interface ToolDef<S extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** The services this tool calls; it is registered only when all are enabled. */
  needs: readonly string[];
  input: S;
  output: z.ZodRawShape;
  hints: Hints;
  run(args: z.infer<z.ZodObject<S>>, env: ToolEnv): Promise<Record<string, unknown> | Failed>;
}

/**
 * What a tool returns when the work it waited for ended in failure (a job run that did not succeed): the full
 * output, which the server sends with `isError: true` so an agent cannot mistake it for a success.
 */
export class Failed {
  constructor(
    readonly output: Record<string, unknown>,
    readonly message: string,
  ) {}
}

/** Keeps each tool's argument types while collecting them in one list. */
export function tool<S extends z.ZodRawShape>(def: ToolDef<S>): ToolDef {
  return def as unknown as ToolDef;
}

// Shared argument and result pieces.
export const anyObject = z.record(z.string(), z.unknown());
export const anyList = (what: string) => z.array(anyObject).describe(what);
export const fullName = (what: string) =>
  z.string().min(1).describe(`Three-part name of the ${what}: catalog.schema.name`);
