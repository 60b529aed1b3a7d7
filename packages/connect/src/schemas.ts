import * as v from 'valibot';

const id = (name: string) => v.pipe(v.string(`${name} is required`), v.minLength(1, `${name} is required`));
const language = v.picklist(['python', 'sql', 'scala', 'r'], 'language must be one of python, sql, scala, r');

export const CreateContext = v.object({
  clusterId: id('clusterId'),
  language: v.optional(language),
});
export const ContextRef = v.object({ clusterId: id('clusterId'), contextId: id('contextId') });
export const ExecuteCommand = v.object({
  clusterId: id('clusterId'),
  contextId: id('contextId'),
  language: v.optional(language),
  command: v.string('command is required'),
});
export const CommandRef = v.object({
  clusterId: id('clusterId'),
  contextId: id('contextId'),
  commandId: id('commandId'),
});
