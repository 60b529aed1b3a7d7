/**
 * Triggers that start runs while the server runs: `schedule` (Quartz cron), `trigger.periodic`,
 * `trigger.file_arrival` (a file landing under a volume path) and `continuous`. Cron uses croner, which reads
 * Quartz syntax (seconds field, `?`, `L`, `W`, `#`, 1-7 weekdays with `alternativeWeekdays`). Timers run on
 * the injected clock.
 */
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { Cron } from 'croner';
import { invalidParameter, type Clock, type Logger } from '@minilake/core';
import type { FileResolver } from './resolve.js';
import type { JobSettings } from './settings.js';
import type { JobRecord, JobsStore, RunRecord } from './store.js';

/** Parses a Quartz expression the way the real service accepts it; throws a 400 naming the problem. */
export function quartz(expr: string, timezone = 'UTC'): Cron {
  try {
    return new Cron(expr.trim(), { timezone, alternativeWeekdays: true, sloppyRanges: true, paused: true });
  } catch (e) {
    throw invalidParameter(`Invalid quartz_cron_expression '${expr}': ${(e as Error).message}`);
  }
}

export function validateTriggers(s: JobSettings): void {
  if (s.schedule) quartz(s.schedule.quartz_cron_expression, s.schedule.timezone_id || 'UTC');
  const p = s.trigger?.periodic as { interval?: number; unit?: string } | undefined;
  if (
    p &&
    (!Number.isInteger(p.interval) ||
      (p.interval ?? 0) < 1 ||
      !['HOURS', 'DAYS', 'WEEKS'].includes(p.unit ?? ''))
  ) {
    throw invalidParameter(
      'trigger.periodic needs a positive integer interval and a unit of HOURS, DAYS or WEEKS.',
    );
  }
}

const UNIT_MS: Record<string, number> = { HOURS: 3_600_000, DAYS: 86_400_000, WEEKS: 604_800_000 };
/** How often a file-arrival trigger looks at its folder (Databricks checks about every minute). */
const FILE_POLL_MS = 2_000;
const CONTINUOUS_GAP_MS = 1_000;
const CONTINUOUS_FAILURE_BACKOFF_MS = 10_000;

export interface TriggerOptions {
  store: JobsStore;
  clock: Clock;
  logger: Logger;
  files: FileResolver;
  start(job: JobRecord, trigger: string): RunRecord;
}

export class Triggers {
  private readonly timers = new Map<number, (() => void)[]>();
  private readonly seen = new Map<number, Map<string, number>>();
  private closed = false;
  /** File-arrival polls in flight (each lists a folder through the fs thread pool). */
  private readonly polling = new Set<Promise<void>>();

  constructor(private readonly o: TriggerOptions) {}

  /** (Re)arms the triggers of one job after it was created, changed or deleted. */
  arm(jobId: number): void {
    for (const stop of this.timers.get(jobId) ?? []) stop();
    this.timers.delete(jobId);
    if (this.closed || !this.o.store.hasJob(String(jobId))) return;
    const job = this.o.store.getJob(jobId);
    const s = job.settings;
    if (s.schedule && s.schedule.pause_status !== 'PAUSED') this.armCron(jobId);
    const t = s.trigger;
    if (t && t.pause_status !== 'PAUSED') {
      if (t.periodic) this.armPeriodic(jobId);
      if (t.file_arrival) this.armFileArrival(jobId);
    }
    if (s.continuous && s.continuous.pause_status !== 'PAUSED') this.continuous(jobId);
  }

  armAll(): void {
    for (const j of this.o.store.allJobs()) this.arm(j.job_id);
  }

  private add(jobId: number, stop: () => void): void {
    const list = this.timers.get(jobId) ?? [];
    list.push(stop);
    this.timers.set(jobId, list);
  }

  private fire(jobId: number, trigger: string): void {
    if (this.closed || !this.o.store.hasJob(String(jobId))) return;
    try {
      this.o.start(this.o.store.getJob(jobId), trigger);
    } catch (e) {
      this.o.logger.warn('a trigger could not start a run', { jobId, error: (e as Error).message });
    }
  }

  private armCron(jobId: number): void {
    const sch = this.o.store.getJob(jobId).settings.schedule!;
    let cron: Cron;
    try {
      cron = quartz(sch.quartz_cron_expression, sch.timezone_id || 'UTC');
    } catch {
      return;
    }
    const next = cron.nextRun(new Date(this.o.clock.now()));
    if (!next) return;
    this.add(
      jobId,
      this.o.clock.setTimeout(() => {
        this.fire(jobId, 'PERIODIC');
        this.rearm(jobId, () => this.armCron(jobId));
      }, next.getTime() - this.o.clock.now()),
    );
  }

  /** Replaces the job's timers with a fresh set after one fired (only the one that fired re-arms). */
  private rearm(jobId: number, again: () => void): void {
    if (this.closed || !this.o.store.hasJob(String(jobId))) return;
    again();
  }

  private armPeriodic(jobId: number): void {
    const p = this.o.store.getJob(jobId).settings.trigger!.periodic as { interval: number; unit: string };
    const ms = p.interval * (UNIT_MS[p.unit] ?? UNIT_MS.HOURS!);
    this.add(
      jobId,
      this.o.clock.setTimeout(() => {
        this.fire(jobId, 'PERIODIC');
        this.rearm(jobId, () => this.armPeriodic(jobId));
      }, ms),
    );
  }

  private async listing(url: string): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    let root: string;
    try {
      root = await this.o.files.localFile(url.replace(/\/+$/, ''), '/nonexistent');
    } catch {
      return out;
    }
    const walk = async (dir: string, depth: number): Promise<void> => {
      if (depth > 8) return;
      let entries;
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch {
        return;
      }
      for (const e of entries) {
        const full = path.join(dir, e.name);
        if (e.isDirectory()) await walk(full, depth + 1);
        else {
          try {
            out.set(full, (await stat(full)).mtimeMs);
          } catch {
            // removed between readdir and stat
          }
        }
      }
    };
    await walk(root, 0);
    return out;
  }

  private armFileArrival(jobId: number): void {
    const fa = this.o.store.getJob(jobId).settings.trigger!.file_arrival as {
      url: string;
      min_time_between_triggers_seconds?: number;
    };
    let last = 0;
    const poll = async () => {
      if (this.closed || !this.o.store.hasJob(String(jobId))) return;
      const now = await this.listing(fa.url);
      const before = this.seen.get(jobId);
      this.seen.set(jobId, now);
      const arrived = before !== undefined && [...now].some(([f, m]) => before.get(f) !== m);
      const gap = (fa.min_time_between_triggers_seconds ?? 0) * 1000;
      if (arrived && this.o.clock.now() - last >= gap) {
        last = this.o.clock.now();
        this.fire(jobId, 'FILE_ARRIVAL');
      } else if (arrived) this.seen.set(jobId, before!); // keep it pending until the gap has passed
      if (!this.closed && this.o.store.hasJob(String(jobId)))
        this.add(
          jobId,
          this.o.clock.setTimeout(() => this.track(poll()), FILE_POLL_MS),
        );
    };
    this.track(poll());
  }

  private track(p: Promise<void>): void {
    this.polling.add(p);
    void p.finally(() => this.polling.delete(p));
  }

  /** Resolves once no file-arrival poll is in flight: what a caller stepping the clock waits for. */
  async idle(): Promise<void> {
    while (this.polling.size) await Promise.allSettled(this.polling);
  }

  /** A continuous job always has one run: start one now if none is active. */
  private continuous(jobId: number): void {
    const active = this.o.store
      .allRuns()
      .some(
        (r) =>
          r.job_id === jobId &&
          ['QUEUED', 'PENDING', 'RUNNING', 'TERMINATING', 'BLOCKED', 'WAITING_FOR_RETRY'].includes(r.life),
      );
    if (!active) this.fire(jobId, 'CONTINUOUS');
  }

  /** Called when any run ends: a continuous job starts its next run (after a pause if it failed). */
  runEnded(run: RunRecord): void {
    if (run.job_id === undefined || this.closed || !this.o.store.hasJob(String(run.job_id))) return;
    const s = this.o.store.getJob(run.job_id).settings;
    if (!s.continuous || s.continuous.pause_status === 'PAUSED') return;
    const jobId = run.job_id;
    // A short pause between runs (longer after a failure), so a job that ends at once does not spin.
    const delay = run.result === 'SUCCESS' ? CONTINUOUS_GAP_MS : CONTINUOUS_FAILURE_BACKOFF_MS;
    this.add(
      jobId,
      this.o.clock.setTimeout(() => this.continuous(jobId), delay),
    );
  }

  reopen(): void {
    this.closed = false;
  }

  close(): void {
    this.closed = true;
    for (const list of this.timers.values()) for (const stop of list) stop();
    this.timers.clear();
  }
}
