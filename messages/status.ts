/**
 * The status callers read of a message, built in one place: the workflow starts from it, the api answers with it
 * before the workflow does (intake, redrive) and when a run ended without returning one. Safe in workflows.
 */
import type { MessageInput, MessageState, MessageStatus, Reason } from './message';

/** What a status needs to start: a run's input, or as much of it as a finished run's memo still tells. */
export type StatusStart = Pick<MessageInput, 'message_id' | 'trace_id' | 'tenant' | 'target' | 'accepted_at'> &
  Partial<Pick<MessageInput, 'parent_message_id' | 'params' | 'routing' | 'deadline' | 'redrive'>>;

/** The status of a message as a run of it starts, at ISO time `at`: accepted, with what earlier runs did. */
export function startingStatus(start: StatusStart, at: string): MessageStatus {
  return {
    message_id: start.message_id,
    trace_id: start.trace_id,
    ...(start.parent_message_id ? { parent_message_id: start.parent_message_id } : {}),
    tenant: start.tenant,
    state: 'accepted',
    target: start.target,
    ...(start.params ? { params: start.params } : {}),
    ...(start.routing ? { routing: start.routing } : {}),
    attempts: [...(start.redrive?.previous_attempts ?? [])],
    accepted_at: start.accepted_at,
    ...(start.deadline ? { deadline: start.deadline } : {}),
    ...(start.redrive ? { redrives: start.redrive.history } : {}),
    updated_at: at,
  };
}

/** A status that ended in `state` at ISO time `at`, for `reason`. */
export function endedStatus(status: MessageStatus, state: MessageState, reason: Reason, at: string): MessageStatus {
  return { ...status, state, reason, updated_at: at, completed_at: at };
}
