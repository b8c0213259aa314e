/**
 * The status of one message run as it goes: its state machine, its attempts and how it ends. Pure; the workflow
 * (workflows/message.ts) makes the Temporal calls and hears of every state change through `onState`.
 */
import type { DeliverResult } from '../activities/deliver';
import type { Settlement } from '../activities/settle-message';
import type { DeliveryTarget } from '../catalogue/agent-queries';
import {
  canTransition,
  type AttemptRecord,
  type MessageInput,
  type MessageRouting,
  type MessageState,
  type MessageTarget,
  type MessageStatus,
  type Reason,
} from '../messages/message';
import { startingStatus } from '../messages/status';
import type { AgentError } from '../protocol/receipt';
import type { DeliveryVerdict } from '../protocol/verdicts';
import type { NextStep } from './next-step';

export class StatusRecord {
  readonly status: MessageStatus;

  constructor(
    input: MessageInput,
    private readonly now: () => string,
    private readonly onState: (state: MessageState) => void,
  ) {
    this.status = startingStatus(input, now());
  }

  moveTo(state: MessageState): void {
    const status = this.status;
    if (status.state === state) return;
    if (!canTransition(status.state, state)) throw new Error(`illegal transition ${status.state} → ${state}`);
    status.state = state;
    status.updated_at = this.now();
    this.onState(state);
  }

  finish(state: MessageState, reason?: Reason): MessageStatus {
    this.moveTo(state);
    if (reason) this.status.reason = reason;
    this.status.completed_at = this.status.updated_at;
    return this.status;
  }

  /** Ends as the policy decided, with what the agent reported. */
  finishAs(step: NextStep & { kind: 'finish' | 'give_up' }): MessageStatus {
    if (step.kind === 'give_up') {
      this.noteError(step.error);
      return this.finish('failed', step.reason);
    }
    if ('result' in step) this.status.result = step.result;
    this.noteError(step.error);
    return this.finish(step.state, step.reason);
  }

  /** The agent's latest error, shown even while the message is retried. */
  noteError(error: AgentError | undefined): void {
    if (error) this.status.error = error;
  }

  /** An agent answered that the message is not for its capability (`agent_id/capability`). */
  misroutedTo(capability: string): void {
    this.status.misrouted = [...(this.status.misrouted ?? []), capability];
  }

  /** After a misroute, the router chose another target (its parameters and explanation replace the first). */
  rerouted(target: MessageTarget, params: Record<string, unknown> | undefined, routing: MessageRouting): void {
    const status = this.status;
    status.target = target;
    status.routing = routing;
    if (params) status.params = params;
    else delete status.params;
  }

  /** The instance the current attempt goes to. */
  deliveringTo(target: DeliveryTarget): void {
    this.status.agent = { agent_id: target.agent_id, capability: target.capability, instance_id: target.instance_id };
    this.moveTo('delivering');
  }

  /** The agent took the message; waiting for its receipt (unless it already came). */
  delivered(receiptCame: boolean): void {
    this.status.delivered_at = this.now();
    if (!receiptCame) this.moveTo('delivered');
  }

  unavailable(attempt: number, agentId: string, error: string): void {
    this.status.attempts.push({
      attempt,
      agent_id: agentId,
      started_at: this.now(),
      latency_ms: 0,
      outcome: 'unavailable',
      error,
    });
  }

  attempted(
    target: DeliveryTarget,
    attempt: number,
    result: DeliverResult,
    verdict: Exclude<DeliveryVerdict, { kind: 'too_late' }>,
    turn = 1,
  ): AttemptRecord {
    const record: AttemptRecord = {
      attempt,
      agent_id: target.agent_id,
      instance_id: target.instance_id,
      endpoint: target.endpoint,
      started_at: result.started_at,
      latency_ms: result.latency_ms,
      outcome: verdict.kind === 'transient' ? 'transient_error' : verdict.kind,
      ...(result.http_status === undefined ? {} : { http_status: result.http_status }),
      ...(result.a2a_task_id ? { a2a_task_id: result.a2a_task_id } : {}),
      ...(turn > 1 ? { turn } : {}),
      ...('error' in verdict && typeof verdict.error === 'string' ? { error: verdict.error } : {}),
    };
    this.status.attempts.push(record);
    return record;
  }

  /** The last attempt that reached an agent over HTTP: where a cancel notice goes. */
  lastHttpDelivery(): AttemptRecord | undefined {
    return this.status.attempts
      .filter(
        (a) =>
          (a.outcome === 'accepted' || a.outcome === 'duplicate' || a.outcome === 'input_required') &&
          a.endpoint?.startsWith('http'),
      )
      .at(-1);
  }
}

/**
 * What the circuit and the ranking learn from a message that ended: nothing when no attempt reached an agent
 * instance, or when the caller cancelled (that says nothing of the agent).
 */
export function settlementOf(status: MessageStatus, receiptCame: boolean): Settlement | undefined {
  const reached = status.attempts.filter((a) => a.instance_id !== undefined);
  const first = reached[0];
  if (!status.agent || !first || status.state === 'cancelled' || !status.completed_at) return undefined;
  return {
    agent_id: status.agent.agent_id,
    capability: status.agent.capability,
    instance_id: status.agent.instance_id,
    receipt_came: receiptCame,
    processed: status.state === 'processed',
    latency_ms: Math.max(0, Date.parse(status.completed_at) - Date.parse(first.started_at)),
  };
}
