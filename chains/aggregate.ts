/**
 * A chain's aggregate (docs/chains.md, "The aggregate"): each completed step's result under its step id, and — when
 * the chain asks for one (`summary: {request}`: the planner sets it for a request that ends "tell me the result" /
 * "告诉我结果") — a summary of how the chain went, step by step. Computed from the chain's status, outside the
 * workflow: `GET /v1/chains/:id`, the `reply_to` notification and the faces' plan_and_run answers add it. Pure.
 */
import type { ChainState, ChainStatus, StepState } from './chain';

/** What the chain body asks: the caller's own words for "tell me how it went". */
export interface SummaryAsk {
  request: string;
}

export interface ChainSummaryReport {
  /** The words the summary answers. */
  request: string;
  state: ChainState;
  /** Step ids by how they ended, in the chain's order. */
  completed: string[];
  skipped: string[];
  failed: { step: string; code: string; message: string }[];
  /** Steps that never ran to an end (cancelled, or still pending or running when the chain ended). */
  not_run: string[];
  /** The same in one line per step, for people and models: `s1 query_order_status: completed`. */
  text: string;
}

export interface ChainAggregate {
  /** Each completed step's result under its id; a result kept by reference is not here (its step's `result_ref`). */
  results: Record<string, unknown>;
  summary?: ChainSummaryReport;
}

export function chainResults(status: Pick<ChainStatus, 'steps'>): Record<string, unknown> {
  const results: Record<string, unknown> = {};
  for (const step of status.steps)
    if (step.state === 'completed' && step.result !== undefined) results[step.id] = step.result;
  return results;
}

const NOT_RUN: readonly StepState[] = ['cancelled', 'pending', 'running'];

export function chainSummaryReport(status: Pick<ChainStatus, 'state' | 'steps'>, ask: SummaryAsk): ChainSummaryReport {
  const ids = (state: StepState) => status.steps.filter((s) => s.state === state).map((s) => s.id);
  const failed = status.steps
    .filter((s) => s.state === 'failed')
    .map((s) => ({ step: s.id, code: s.error?.code ?? 'failed', message: s.error?.message ?? '' }));
  const text = status.steps
    .map(
      (s) =>
        `${s.id}${s.target ? ` ${s.target.capability}` : ''}: ${s.state}${s.state === 'failed' && s.error ? ` (${s.error.code})` : ''}`,
    )
    .join('\n');
  return {
    request: ask.request,
    state: status.state,
    completed: ids('completed'),
    skipped: ids('skipped'),
    failed,
    not_run: status.steps.filter((s) => NOT_RUN.includes(s.state)).map((s) => s.id),
    text,
  };
}

/** The status with its aggregate: `results`, and `summary` when the chain asked for one. */
export function withAggregate<T extends ChainStatus>(status: T, ask: SummaryAsk | undefined): T & ChainAggregate {
  return { ...status, results: chainResults(status), ...(ask ? { summary: chainSummaryReport(status, ask) } : {}) };
}
