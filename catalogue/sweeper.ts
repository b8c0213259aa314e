import type { Logger } from 'pino';
import type { Heartbeats } from './heartbeats';
import { startPeriodic } from '../platform/periodic';

/** Something the sweeper deletes old documents from (expired routing sessions, old agent events, …). */
export interface Pruner {
  name: string;
  /** Deletes a bounded batch of what is past its retention; returns how many went. */
  prune(): Promise<number>;
}

type SweepLogger = Record<'info' | 'warn', (fields: object, message: string) => void>;

/** One sweep: marks silent instances offline, then prunes each collection. A failing step does not stop the others. */
export async function sweepOnce(
  heartbeats: Pick<Heartbeats, 'sweep'>,
  pruners: Pruner[],
  logger: SweepLogger,
): Promise<void> {
  try {
    const marked = await heartbeats.sweep();
    if (marked > 0) logger.info({ marked }, 'instances marked offline');
  } catch (error) {
    logger.warn({ err: error }, 'sweep failed; will retry');
  }
  for (const pruner of pruners) {
    try {
      const deleted = await pruner.prune();
      if (deleted > 0) logger.info({ collection: pruner.name, deleted }, 'old documents deleted');
    } catch (error) {
      logger.warn({ err: error, collection: pruner.name }, 'pruning failed; will retry');
    }
  }
}

/** Runs `sweepOnce` every `intervalMs`, skipping a tick while the previous sweep runs; returns a stop function. */
export function startSweeper(
  heartbeats: Heartbeats,
  intervalMs: number,
  logger: Logger,
  pruners: Pruner[] = [],
): () => Promise<void> {
  return startPeriodic(() => sweepOnce(heartbeats, pruners, logger), intervalMs);
}
