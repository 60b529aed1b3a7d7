import { invalidParameter, invalidState } from '@minilake/core';

/** The real service answers 400 (not 404) for an unknown job or run; the SDKs and Terraform rely on the text. */
export const jobNotFound = (id: number | string) => invalidParameter(`Job ${id} does not exist.`);
export const runNotFound = (id: number | string) => invalidParameter(`Run ${id} does not exist.`);
export const runActive = (id: number) =>
  invalidState(`Run ${id} is still active and cannot be deleted; cancel it first.`);
export const multiTaskOutput = () =>
  invalidParameter(
    'Retrieving the output of runs with multiple tasks is not supported. Please retrieve the output of each individual task run instead.',
  );
