/**
 * A FIFO lock: each task starts when the previous one settled. Stores use one to make a check-then-act
 * sequence on shared state (a directory tree on disk, a fixture) atomic against their other requests.
 */
export class Mutex {
  private tail: Promise<unknown> = Promise.resolve();
  run<T>(task: () => Promise<T>): Promise<T> {
    const next = this.tail.then(task, task);
    this.tail = next.catch(() => undefined);
    return next;
  }
}
