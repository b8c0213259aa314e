/**
 * Where a chain's time goes, read from Temporal's history event timestamps (the server's clock, one clock for every
 * run): the chain's run and its steps' message runs, beside the three hops' message runs. Each phase is a span
 * between two events; `bench:chains` reports the medians over its pairs.
 */
import type { Client } from '@temporalio/client';
import { temporal } from '@temporalio/proto';

const EventType = temporal.api.enums.v1.EventType;

interface TimedEvent {
  type: number;
  at: number;
}

const millis = (time: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  Number(time?.seconds ?? 0) * 1000 + (time?.nanos ?? 0) / 1e6;

export async function timedEvents(client: Client, workflowId: string): Promise<TimedEvent[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).map((event) => ({ type: event.eventType ?? 0, at: millis(event.eventTime) }));
}

function first(events: TimedEvent[], type: number, from = 0): number {
  const found = events.find((e) => e.type === type && e.at >= from);
  if (!found) throw new Error(`no ${EventType[type]} in the history`);
  return found.at;
}

const last = (events: TimedEvent[], type: number): number => events.filter((e) => e.type === type).at(-1)!.at;

/**
 * What one message run spends: from its start to its first workflow task (`to_first_task`), and from that task to
 * its end (`run`: delivery, the receipt, settling).
 */
function messagePhases(events: TimedEvent[]) {
  const started = first(events, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  const firstTask = first(events, EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED);
  return {
    started,
    firstTask,
    ended: last(events, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED),
    toFirstTask: firstTask - started,
  };
}

export interface ChainPhases {
  /** The chain's start to its first step's start (command, or its message's run: its first task: prepareChain). */
  start_to_first_step_ms: number;
  /** Per step: its start to its first workflow task (a child's: recorded in the parent first; a direct step's: eager). */
  step_start_ms: number;
  /** Per step: its first workflow task to its end. */
  step_run_ms: number;
  /** Per step but the last: its end to the next step's start command (the parent's task). */
  between_steps_ms: number;
  /** The last step's end to the chain's end. */
  last_step_to_end_ms: number;
  total_ms: number;
}

/** The phases of a chain run whose steps ran one after another, in `steps` order. */
export async function chainPhases(
  client: Client,
  chainWorkflowId: string,
  stepWorkflowIds: string[],
): Promise<ChainPhases> {
  const chain = await timedEvents(client, chainWorkflowId);
  const steps = await Promise.all(stepWorkflowIds.map(async (id) => messagePhases(await timedEvents(client, id))));
  // A child step starts with the chain's start command; a step the chain starts itself (a local activity: no event
  // of its own in the chain's history), with its message's run.
  const childStarts = chain
    .filter((e) => e.type === EventType.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)
    .map((e) => e.at);
  const starts = childStarts.length > 0 ? childStarts : steps.map((s) => s.started);
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  const chainStarted = first(chain, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED);
  return {
    start_to_first_step_ms: starts[0]! - chainStarted,
    step_start_ms: mean(steps.map((s, i) => s.firstTask - starts[i]!)),
    step_run_ms: mean(steps.map((s) => s.ended - s.firstTask)),
    between_steps_ms: mean(steps.slice(0, -1).map((s, i) => starts[i + 1]! - s.ended)),
    last_step_to_end_ms: last(chain, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) - steps.at(-1)!.ended,
    total_ms: last(chain, EventType.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED) - chainStarted,
  };
}

export interface HopPhases {
  /** Per hop: its start to its first workflow task. */
  hop_start_ms: number;
  /** Per hop: its first workflow task to its end. */
  hop_run_ms: number;
  /** Per hop but the last: its end to the next hop's start (the caller's poll, its next POST, the api's intake). */
  between_hops_ms: number;
  total_ms: number;
}

/** The phases of hops sent one after another. */
export async function hopPhases(client: Client, hopWorkflowIds: string[]): Promise<HopPhases> {
  const hops = await Promise.all(hopWorkflowIds.map(async (id) => messagePhases(await timedEvents(client, id))));
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / Math.max(1, values.length);
  return {
    hop_start_ms: mean(hops.map((h) => h.toFirstTask)),
    hop_run_ms: mean(hops.map((h) => h.ended - h.firstTask)),
    between_hops_ms: mean(hops.slice(0, -1).map((h, i) => hops[i + 1]!.started - h.ended)),
    total_ms: hops.at(-1)!.ended - hops[0]!.started,
  };
}

/** The median of each phase over runs. */
export function medianPhases<T extends object>(runs: T[]): Record<keyof T, number> {
  const keys = Object.keys(runs[0] ?? {}) as (keyof T)[];
  const middle = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)]!;
  return Object.fromEntries(
    keys.map((k) => [k, Math.round(middle(runs.map((r) => r[k] as number)) * 10) / 10]),
  ) as Record<keyof T, number>;
}
