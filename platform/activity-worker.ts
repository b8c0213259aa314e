/**
 * A Temporal worker that serves only activities (no workflows), running until `stop`. The SDK's runtime shuts every
 * worker down on SIGINT/SIGTERM by itself, so at a signal `stop` may find it draining already: it then only waits.
 */
import { Worker, type Logger, type NativeConnection } from '@temporalio/worker';

/**
 * What the SDK warns at the start of every worker that serves no workflows, as the api's routing and socket-delivery
 * workers do by design: not a fault, so not shown (`withoutNoWorkflowsWarning`).
 */
export const NO_WORKFLOWS_WARNING = 'No workflows registered, not polling for workflow tasks';

/** `logger` (the Temporal runtime's) without NO_WORKFLOWS_WARNING; everything else passes unchanged. */
export function withoutNoWorkflowsWarning(logger: Logger): Logger {
  const shown = (message: string) => message !== NO_WORKFLOWS_WARNING;
  return {
    log: (level, message, meta) => (level !== 'WARN' || shown(message) ? logger.log(level, message, meta) : undefined),
    trace: (message, meta) => logger.trace(message, meta),
    debug: (message, meta) => logger.debug(message, meta),
    info: (message, meta) => logger.info(message, meta),
    warn: (message, meta) => (shown(message) ? logger.warn(message, meta) : undefined),
    error: (message, meta) => logger.error(message, meta),
  };
}

export interface RunningActivityWorker {
  stop(): Promise<void>;
}

export async function startActivityWorker(options: {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activities: object;
}): Promise<RunningActivityWorker> {
  const worker = await Worker.create(options);
  const running = worker.run();
  return {
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
    },
  };
}
