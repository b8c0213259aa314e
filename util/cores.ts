import { availableParallelism } from 'node:os';

/** This machine's cores, at most `max` and at least one: how many threads a CPU-bound pool should run. */
export function coresUpTo(max: number): number {
  return Math.max(1, Math.min(max, availableParallelism()));
}
