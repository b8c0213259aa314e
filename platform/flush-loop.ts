/**
 * Runs `flush` every `everyMs`, one at a time, until the returned function is called, which waits for a flush in
 * progress and flushes once more. For in-memory batches written to the database (routing stats, circuits).
 */
export function startFlushLoop(
  flush: () => Promise<void>,
  everyMs: number,
  onError: (error: unknown) => void,
): () => Promise<void> {
  let flushing: Promise<void> = Promise.resolve();
  const timer = setInterval(() => {
    flushing = flushing.then(flush).catch(onError);
  }, everyMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await flushing;
    await flush().catch(onError);
  };
}
