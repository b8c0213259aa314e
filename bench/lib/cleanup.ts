/** Stops what a benchmark started when it is interrupted (Ctrl-C, SIGTERM), so no server or agent is left behind. */
const cleanups = new Set<() => Promise<void>>();
let installed = false;

/** Registers a stop function until the returned function is called. */
export function stopOnInterrupt(stop: () => Promise<void>): () => void {
  cleanups.add(stop);
  if (!installed) {
    installed = true;
    const interrupt = (signal: string) => {
      console.error(`\n${signal}: stopping the benchmark's processes…`);
      void Promise.allSettled([...cleanups].map((fn) => fn())).then(() => process.exit(130));
    };
    process.once('SIGINT', () => interrupt('SIGINT'));
    process.once('SIGTERM', () => interrupt('SIGTERM'));
  }
  return () => cleanups.delete(stop);
}
