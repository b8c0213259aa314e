/**
 * `ListTasks` (docs/a2a.md): a request's filters as a page of the tenant's messages in Temporal's visibility store,
 * and the page token the caller holds. The token wraps Temporal's cursor with a digest of the query it belongs to, so
 * a token used with other filters (or made up) is invalid params, never a page of something else. Pure.
 */
import type { MessagePageFilter } from '../../messages/list';
import type { MessageState } from '../../messages/message';
import { MESSAGE_ID_PATTERN } from '../../rules/ids';
import { cursorOfToken, pageTokenOf } from '../../util/page-token';
import { RequestMalformedError, type ListTasksRequest } from './sdk';
import { traceIdOfContext } from './send';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** A2A task states as the proto numbers them, with the message states each stands for. */
const STATES_OF_TASK_STATE: Record<number, { name: string; states: readonly MessageState[]; running?: boolean }> = {
  1: { name: 'TASK_STATE_SUBMITTED', states: [], running: true },
  2: { name: 'TASK_STATE_WORKING', states: [], running: true },
  3: { name: 'TASK_STATE_COMPLETED', states: ['processed'] },
  4: { name: 'TASK_STATE_FAILED', states: ['failed', 'expired'] },
  5: { name: 'TASK_STATE_CANCELED', states: ['cancelled'] },
  6: { name: 'TASK_STATE_INPUT_REQUIRED', states: ['input_required'], running: true },
  7: { name: 'TASK_STATE_REJECTED', states: ['rejected'] },
  8: { name: 'TASK_STATE_AUTH_REQUIRED', states: [] },
};

/** What to list, and how to show each task. */
export interface TaskListing {
  filter: MessagePageFilter;
  pageSize: number;
  /** Temporal's cursor, from the caller's token. */
  cursor?: Uint8Array;
  /** Shown tasks must be in this state (a running message's visibility state lags: its live state decides). */
  state?: string;
  /** No message can match (a state no task here is ever in). */
  none?: true;
  /** Shown tasks must be of this context (a context's trace id may be shared by a 32-hex context id). */
  contextId?: string;
  historyLength?: number;
  includeArtifacts: boolean;
}

function malformed(message: string, location: string): never {
  throw new RequestMalformedError({ message, metadata: { location } });
}

/** A whole number ≥ 0, or undefined; anything else is invalid params. */
export function historyLengthOf(value: number | undefined, location: string): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 0) malformed(`${location} must be a whole number ≥ 0`, location);
  return value;
}

function pageSizeOf(value: number | undefined): number {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE)
    malformed(`pageSize must be a whole number from 1 to ${MAX_PAGE_SIZE}`, 'pageSize');
  return value;
}

function changedSinceOf(value: string | undefined): Date | undefined {
  if (value === undefined || value === '') return undefined;
  const at = /^\d{4}-\d{2}-\d{2}T/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(at.getTime()))
    malformed('statusTimestampAfter must be an ISO 8601 timestamp, e.g. 2026-01-31T12:00:00Z', 'statusTimestampAfter');
  return at;
}

/** The listing a request asks for, over the tenant's messages (at an agent's face, that agent's only). */
export function listingOf(
  request: ListTasksRequest,
  tenant: string,
  agentId: string | undefined,
): Omit<TaskListing, 'cursor'> & { token: string } {
  const filter: MessagePageFilter = agentId ? { agent_id: agentId } : {};
  let state: string | undefined;
  if (request.status !== 0) {
    const known = STATES_OF_TASK_STATE[request.status];
    if (!known) malformed('status must be a task state, e.g. TASK_STATE_WORKING', 'status');
    state = known.name;
    if (known.running) filter.running = true;
    // Submitted and working are told apart by their live state; any other, by the state the run shows.
    if (!known.running || known.states.length > 0) filter.states = known.states;
  }
  if (request.contextId) {
    if (!MESSAGE_ID_PATTERN.test(request.contextId))
      malformed('contextId must be 1–128 of letters, digits and ._:-', 'contextId');
    filter.trace_id = traceIdOfContext(tenant, request.contextId);
  }
  const changedSince = changedSinceOf(request.statusTimestampAfter);
  if (changedSince) filter.changed_since = changedSince;
  const historyLength = historyLengthOf(request.historyLength, 'historyLength');
  return {
    filter,
    pageSize: pageSizeOf(request.pageSize),
    ...(state ? { state } : {}),
    ...(filter.states?.length === 0 ? { none: true as const } : {}),
    ...(request.contextId ? { contextId: request.contextId } : {}),
    ...(historyLength !== undefined ? { historyLength } : {}),
    includeArtifacts: request.includeArtifacts === true,
    token: request.pageToken,
  };
}

/**
 * The caller's token for Temporal's `cursor` of the page after this one, under `query`, MACed with `key`; empty on
 * the last page.
 */
export { pageTokenOf };

/**
 * Temporal's cursor from a caller's token made for `query` and MACed with one of `keys` (a cursor the caller made up
 * never reaches Temporal); anything else is invalid params.
 */
export function cursorOf(token: string, query: string, keys: readonly string[]): Uint8Array | undefined {
  const cursor = cursorOfToken(token, query, keys);
  if (cursor === 'invalid')
    malformed(
      'pageToken is not a token this listing gave (give the nextPageToken of the previous page, with the same filters)',
      'pageToken',
    );
  return cursor;
}
