/** condition_task: compares two values (numbers as numbers) and reports `outcome` for depends_on to branch on. */
import { v } from '@minilake/core';
import { defineTask, fail, text, type Outcome } from './types.js';

const NUMERIC_OPS = ['GREATER_THAN', 'GREATER_THAN_OR_EQUAL', 'LESS_THAN', 'LESS_THAN_OR_EQUAL'];

export const conditionTask = defineTask({
  field: 'condition_task',
  settings: v.looseObject({ left: v.optional(text), right: v.optional(text), op: v.optional(text) }),
  resolveRefs: true,
  async run(_d, _input, c): Promise<Outcome> {
    const left = c.left ?? '';
    const right = c.right ?? '';
    const op = c.op ?? '';
    const ln = Number(left);
    const rn = Number(right);
    const numeric = left.trim() !== '' && right.trim() !== '' && Number.isFinite(ln) && Number.isFinite(rn);
    let value: boolean;
    if (op === 'EQUAL_TO') value = numeric ? ln === rn : left === right;
    else if (op === 'NOT_EQUAL') value = numeric ? ln !== rn : left !== right;
    else if (NUMERIC_OPS.includes(op)) {
      if (!numeric)
        return fail(`condition_task: ${op} needs numeric operands, got '${left}' and '${right}'.`);
      value =
        op === 'GREATER_THAN'
          ? ln > rn
          : op === 'GREATER_THAN_OR_EQUAL'
            ? ln >= rn
            : op === 'LESS_THAN'
              ? ln < rn
              : ln <= rn;
    } else return fail(`condition_task: unknown op '${op}'.`);
    const outcome = value ? 'true' : 'false';
    return { result: 'SUCCESS', message: '', output: {}, condition: { left, right, op, outcome } };
  },
});
