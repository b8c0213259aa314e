/**
 * Runs `run` every `intervalMs`, skipping a tick while the previous run goes on, until the returned function is
 * called, which waits for a run in progress. For the api's background rounds (the sweeper, the A2A probe).
 */
export function startPeriodic(run: () => Promise<unknown>, intervalMs: number): () => Promise<void> {
  let current: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    current ??= run().finally(() => {
      current = undefined;
    });
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await current;
  };
}
