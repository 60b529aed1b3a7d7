/** The Spark engine's interface, as `@minilake/engine-spark` defines it (one import point for this package). */
export type { SparkEngine, SparkRun, SparkTask, SparkTaskResult } from '@minilake/engine-spark';
