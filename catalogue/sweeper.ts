import type { Logger } from 'pino';
import type { Heartbeats } from './heartbeats';

/** Runs `heartbeats.sweep()` every `intervalMs`, skipping a tick while the previous sweep runs; returns a stop function. */
export function startSweeper(heartbeats: Heartbeats, intervalMs: number, logger: Logger): () => Promise<void> {
  let current: Promise<void> | undefined;
  const sweepOnce = async () => {
    try {
      const marked = await heartbeats.sweep();
      if (marked > 0) logger.info({ marked }, 'instances marked offline');
    } catch (error) {
      logger.warn({ err: error }, 'sweep failed; will retry');
    } finally {
      current = undefined;
    }
  };
  const timer = setInterval(() => {
    current ??= sweepOnce();
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await current;
  };
}
