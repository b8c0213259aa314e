/** Builds the Temporal worker of the message workflow with real or test-supplied activity dependencies. */
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { agentReachServiceHandler } from '../nexus/handler';
import type { Telemetry } from '../platform/telemetry';

export interface MessageWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  activityDeps: ActivityDeps;
  /** A prebuilt workflow bundle (tests share one); bundled from `workflows/` when absent. */
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** OpenTelemetry: spans of workflow runs and activities. A prebuilt bundle must include {@link otelWorkflowModule}. */
  telemetry?: Telemetry;
  /** Concurrency and cache knobs (see `workerTuning` in platform/config.ts); Temporal's defaults when absent. */
  tuning?: Pick<WorkerOptions, 'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'maxCachedWorkflows'>;
}

export function workflowsPath(): string {
  return require.resolve('../workflows');
}

/** The workflow interceptor module that traces workflow runs. */
export function otelWorkflowModule(): string {
  return require.resolve('../workflows/otel-interceptors');
}

export async function createMessageWorker(options: MessageWorkerOptions): Promise<Worker> {
  const telemetry = options.telemetry;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createActivities(options.activityDeps),
    // Temporal-native callers in other namespaces: the `agentReach` Nexus service (docs/architecture.md).
    nexusServices: [agentReachServiceHandler()],
    ...options.tuning,
    ...(options.workflowBundle ? { workflowBundle: options.workflowBundle } : { workflowsPath: workflowsPath() }),
    ...(telemetry
      ? {
          sinks: { exporter: makeWorkflowExporter(telemetry.exporter, telemetry.resource) },
          interceptors: {
            ...(options.workflowBundle ? {} : { workflowModules: [otelWorkflowModule()] }),
            activity: [(ctx) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(ctx) })],
          },
        }
      : {}),
  });
}
