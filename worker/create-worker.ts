/** Builds the Temporal worker of the message workflow with real or test-supplied activity dependencies. */
import { tokenVerifierOf, type OidcConfig } from '../identity/token-verifier';
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import { Worker, type NativeConnection, type WorkerOptions } from '@temporalio/worker';
import { createActivities, type ActivityDeps } from '../activities';
import { agentReachServiceHandler, type NexusHandlerDeps } from './nexus/handler';
import { defaultNexusTenant, type NexusTenancyConfig } from './nexus/tenancy';
import { nexusTaskQueue } from '../platform/temporal-names';
import type { Telemetry } from '../platform/telemetry';
import { endpointPolicy, type EndpointSettings } from '../rules/endpoint-policy';

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
  tuning?: Pick<
    WorkerOptions,
    'maxConcurrentActivityTaskExecutions' | 'maxConcurrentWorkflowTaskExecutions' | 'maxCachedWorkflows'
  >;
  /**
   * The `agentReach` Nexus service (docs/architecture.md): on the task queue for NEXUS_DEFAULT_TENANT, and on a
   * Nexus-only worker per tenant of NEXUS_TENANTS. Needs `activityDeps.intake`. Absent: no Nexus service.
   */
  nexus?: NexusTenancyConfig & NexusHandlerDeps['config'] & EndpointSettings & Partial<OidcConfig>;
}

/** The message worker and the tenants' Nexus workers, run and stopped together. */
export interface MessageWorker {
  /** Resolves when every worker has stopped; rejects (after stopping the others) when one fails. */
  run(): Promise<void>;
  shutdown(): void;
}

export function workflowsPath(): string {
  return require.resolve('../workflows');
}

/** The workflow interceptor module that traces workflow runs. */
export function otelWorkflowModule(): string {
  return require.resolve('../workflows/otel-interceptors');
}

/** The Nexus handler of each task queue: the gateway's own (its default tenant) and one per tenant of NEXUS_TENANTS. */
function nexusHandlers(options: MessageWorkerOptions): Map<string, ReturnType<typeof agentReachServiceHandler>> {
  const handlers = new Map<string, ReturnType<typeof agentReachServiceHandler>>();
  const config = options.nexus;
  if (!config) return handlers;
  const intake = options.activityDeps.intake;
  if (!intake) throw new Error('the Nexus service needs activityDeps.intake (the catalogue and API keys)');
  const policy = options.activityDeps.endpointPolicy ?? endpointPolicy(config);
  // Nexus callers may send an access token instead of a key proof (AUTH_OIDC_ISSUER; docs/security.md).
  const tokens = config.AUTH_OIDC_ISSUER?.length ? tokenVerifierOf(config as OidcConfig) : undefined;
  const handlerFor = (tenant: string) =>
    agentReachServiceHandler({
      tenant,
      namespace: options.namespace,
      messageTaskQueue: options.taskQueue,
      queries: intake.queries,
      ...(intake.keys ? { keys: intake.keys } : {}),
      config,
      endpointPolicy: policy,
      now: options.activityDeps.now,
      ...(tokens ? { tokens } : {}),
      sealKeys: options.activityDeps.sealKeys,
    });
  handlers.set(options.taskQueue, handlerFor(defaultNexusTenant(config)));
  for (const tenant of config.NEXUS_TENANTS)
    handlers.set(nexusTaskQueue(options.taskQueue, tenant), handlerFor(tenant));
  return handlers;
}

export async function createMessageWorker(options: MessageWorkerOptions): Promise<MessageWorker> {
  const telemetry = options.telemetry;
  const handlers = nexusHandlers(options);
  const ownHandler = handlers.get(options.taskQueue);
  const main = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    activities: createActivities(options.activityDeps),
    // Temporal-native callers in other namespaces: the `agentReach` Nexus service (docs/architecture.md).
    ...(ownHandler ? { nexusServices: [ownHandler] } : {}),
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
  // A worker polls one task queue: each tenant's Nexus queue has its own (Nexus tasks only, on the same connection).
  const tenantWorkers = await Promise.all(
    [...handlers]
      .filter(([queue]) => queue !== options.taskQueue)
      .map(([taskQueue, handler]) =>
        Worker.create({
          connection: options.connection,
          namespace: options.namespace,
          taskQueue,
          nexusServices: [handler],
        }),
      ),
  );
  return runTogether([main, ...tenantWorkers]);
}

function runTogether(workers: Worker[]): MessageWorker {
  /** Only running workers are asked: after SIGINT/SIGTERM the SDK drains them already, and asking again throws. */
  const shutdown = () => {
    for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
  };
  return {
    async run() {
      const runs = workers.map((worker) => worker.run());
      try {
        await Promise.all(runs);
      } catch (error) {
        shutdown();
        await Promise.allSettled(runs);
        throw error;
      }
    },
    shutdown,
  };
}
