/**
 * Which run scheduled the activity being executed, as Temporal says — never as the activity's arguments say.
 *
 * Inside one Temporal namespace anyone may run a workflow of their own, on a task queue of their own, that schedules
 * the gateway's activities on the gateway's queue with inputs of their own making. So every activity that delivers,
 * signs, notifies, settles or records first asks who scheduled it:
 * - a *local* activity was scheduled by a workflow task this very worker ran, with the gateway's own workflow code:
 *   nobody outside can schedule one;
 * - a *regular* activity names its run in its info (workflow id, run id). The run's first history event says on which
 *   task queue it runs: only the gateway's workers poll the gateway's queue, so a run there runs the gateway's code,
 *   while a foreign run may be *named* like ours (`messageWorkflow`) but lives on a queue of its own. The event also
 *   gives the run's true start, its parent and its input (for the gateway's seal: messages/seal.ts).
 * What the run's first event says is read once per run and kept (bounded).
 *
 * Uses the activity context: call only from inside an activity.
 */
import { Context, type Info } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { LruCache } from '../util/lru';

/** What Temporal keeps of a run's start: its type, queue, start time, parent and input (the first argument). */
export interface StartedRun {
  workflow_id: string;
  run_id: string;
  type: string;
  task_queue: string;
  started_at: string;
  parent?: { workflow_id: string; run_id: string };
  /** The first run of this workflow execution's chain of runs, when this one continued another as new. */
  first_run_id?: string;
  input: unknown;
}

/** The failure type of an activity scheduled by a run that is not the gateway's: non-retryable. */
export const FOREIGN_CALLER = 'foreign_caller';

/** Runs whose start is kept; inputs larger than MAX_KEPT_INPUT_BYTES are read again each time instead. */
const KEPT_RUNS = 2_000;
const MAX_KEPT_INPUT_BYTES = 64 * 1024;

export const foreignCaller = (activity: string, why: string) =>
  ApplicationFailure.nonRetryable(`${activity} refused: ${why}`, FOREIGN_CALLER);

/** Reads a run's first history event with the worker's client (one page of one event). */
async function readStartedRun(workflowId: string, runId: string): Promise<{ run: StartedRun; inputBytes: number }> {
  const { client } = Context.current();
  const history = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId, runId },
    maximumPageSize: 1,
  });
  const first = history.history?.events?.[0];
  const started = first?.workflowExecutionStartedEventAttributes;
  if (!started) throw new Error(`run ${workflowId}/${runId} has no start event`);
  const payload = started.input?.payloads?.[0];
  const parent = started.parentWorkflowExecution;
  const seconds = Number(first.eventTime?.seconds ?? 0);
  const run: StartedRun = {
    workflow_id: workflowId,
    run_id: runId,
    type: started.workflowType?.name ?? '',
    task_queue: started.taskQueue?.name ?? '',
    started_at: new Date(seconds * 1000 + Math.floor((first.eventTime?.nanos ?? 0) / 1e6)).toISOString(),
    ...(parent?.workflowId && parent.runId ? { parent: { workflow_id: parent.workflowId, run_id: parent.runId } } : {}),
    ...(started.firstExecutionRunId && started.firstExecutionRunId !== runId
      ? { first_run_id: started.firstExecutionRunId }
      : {}),
    input: payload ? client.options.loadedDataConverter.payloadConverter.fromPayload(payload) : undefined,
  };
  return { run, inputBytes: payload?.data?.length ?? 0 };
}

export interface RunProvenanceDeps {
  /** The gateway's task queue (TEMPORAL_TASK_QUEUE): every gateway workflow runs there. */
  gatewayTaskQueue: string;
  /** Reads a run's start; by default from Temporal through the worker's client (tests may pass another). */
  read?: (workflowId: string, runId: string) => Promise<{ run: StartedRun; inputBytes: number }>;
  /** The current activity's info; by default from its context (tests may pass another). */
  activityInfo?: () => Pick<Info, 'isLocal' | 'workflowExecution'>;
}

export class RunProvenance {
  private readonly kept = new LruCache<string, StartedRun>(KEPT_RUNS);
  private readonly info: () => Pick<Info, 'isLocal' | 'workflowExecution'>;

  constructor(private readonly deps: RunProvenanceDeps) {
    this.info = deps.activityInfo ?? (() => Context.current().info);
  }

  /** Whether the current activity was scheduled by this worker's own workflow code (a local activity). */
  isLocal(): boolean {
    return this.info().isLocal;
  }

  /** Refuses unless the current activity is a local one: what the gateway only ever runs locally. */
  requireLocal(activity: string): void {
    if (!this.isLocal())
      throw foreignCaller(activity, 'the gateway runs it only as a local activity of its own workflows');
  }

  /** A run's start, as Temporal keeps it. */
  async run(workflowId: string, runId: string): Promise<StartedRun> {
    const kept = this.kept.get(runId);
    if (kept) return kept;
    const { run, inputBytes } = await (this.deps.read ?? readStartedRun)(workflowId, runId);
    if (inputBytes <= MAX_KEPT_INPUT_BYTES) this.kept.set(runId, run);
    return run;
  }

  /** Whether `run` runs the gateway's code and is one of `types`. */
  isGatewayRun(run: StartedRun, types: readonly string[]): boolean {
    return run.task_queue === this.deps.gatewayTaskQueue && types.includes(run.type);
  }

  /** The run that scheduled the current activity, whatever it is. */
  async currentRun(): Promise<StartedRun> {
    const { workflowExecution } = this.info();
    return this.run(workflowExecution.workflowId, workflowExecution.runId);
  }

  /**
   * The run that scheduled the current (regular) activity, refused unless it is a gateway run of one of `types`.
   * `activity` names the activity in the refusal.
   */
  async schedulingRun(activity: string, types: readonly string[]): Promise<StartedRun> {
    const run = await this.currentRun();
    if (run.task_queue !== this.deps.gatewayTaskQueue)
      throw foreignCaller(activity, `scheduled by a run on task queue ${run.task_queue}, not the gateway's`);
    if (!types.includes(run.type)) throw foreignCaller(activity, `scheduled by a ${run.type} run`);
    return run;
  }
}
