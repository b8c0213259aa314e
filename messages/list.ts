/** Listing messages from Temporal's visibility store, by the search attributes every message run carries. */
import type { Client } from '@temporalio/client';
import type { MessageState } from './message';
import { messageWorkflowId, SA_AGENT, SA_STATE, SA_TRACE } from './temporal';

export interface MessageFilter {
  state?: MessageState;
  agent_id?: string;
  trace_id?: string;
  limit: number;
}

export interface MessageSummary {
  message_id: string;
  state: string;
  agent_id: string;
  trace_id: string;
  started_at: string;
  closed_at?: string;
}

/** Messages of the tenant by state, agent or trace, newest first, from Temporal's visibility store. */
export async function listMessages(client: Client, tenant: string, filter: MessageFilter): Promise<MessageSummary[]> {
  // Values are validated by the route (enum, id and hex patterns), so quoting them is safe.
  const clauses = [`ReachTenant = '${tenant}'`];
  if (filter.state) clauses.push(`ReachState = '${filter.state}'`);
  if (filter.agent_id) clauses.push(`ReachAgent = '${filter.agent_id}'`);
  if (filter.trace_id) clauses.push(`ReachTraceId = '${filter.trace_id}'`);
  const items: MessageSummary[] = [];
  for await (const run of client.workflow.list({
    query: clauses.join(' AND '),
    pageSize: Math.min(filter.limit, 1000),
  })) {
    const prefix = messageWorkflowId(tenant, '');
    items.push({
      message_id: run.workflowId.slice(prefix.length),
      state: run.typedSearchAttributes.get(SA_STATE) ?? 'accepted',
      agent_id: run.typedSearchAttributes.get(SA_AGENT) ?? '',
      trace_id: run.typedSearchAttributes.get(SA_TRACE) ?? '',
      started_at: run.startTime.toISOString(),
      ...(run.closeTime ? { closed_at: run.closeTime.toISOString() } : {}),
    });
    if (items.length >= filter.limit) break;
  }
  return items;
}

/** How many message runs of all tenants are in `state`, from the visibility store. */
export async function countMessages(client: Client, state: MessageState): Promise<number> {
  const { count } = await client.workflow.count(`ReachState = '${state}'`);
  return count;
}

/** Which messages a page lists: all clauses hold (states: any of them; changed since: running, or closed since). */
export interface MessagePageFilter {
  states?: readonly MessageState[];
  running?: boolean;
  agent_id?: string;
  trace_id?: string;
  changed_since?: Date;
}

export interface MessagePage {
  message_ids: string[];
  /** Temporal's token for the next page; empty on the last one. */
  next_page_token: Uint8Array;
  /** How many messages match the filter, over all pages. */
  total: number;
}

/** The visibility query of a page's filter (values validated by the callers: enum, id and hex patterns). */
export function messagePageQuery(tenant: string, filter: MessagePageFilter): string {
  const clauses = [`ReachTenant = '${tenant}'`];
  if (filter.states) clauses.push(`ReachState IN (${filter.states.map((s) => `'${s}'`).join(', ')})`);
  if (filter.running) clauses.push(`ExecutionStatus = 'Running'`);
  if (filter.agent_id) clauses.push(`ReachAgent = '${filter.agent_id}'`);
  if (filter.trace_id) clauses.push(`ReachTraceId = '${filter.trace_id}'`);
  if (filter.changed_since)
    clauses.push(`(ExecutionStatus = 'Running' OR CloseTime >= '${filter.changed_since.toISOString()}')`);
  return clauses.join(' AND ');
}

/**
 * One page of the tenant's messages, in the visibility store's order (running first, then by close time, newest
 * first), with Temporal's cursor to the next page and the count of all matches. A token Temporal cannot read is its
 * INVALID_ARGUMENT error (gRPC code 3).
 */
export async function pageOfMessages(
  client: Client,
  tenant: string,
  filter: MessagePageFilter,
  pageSize: number,
  pageToken?: Uint8Array,
): Promise<MessagePage> {
  const query = messagePageQuery(tenant, filter);
  const [listed, counted] = await Promise.all([
    client.workflowService.listWorkflowExecutions({
      namespace: client.options.namespace,
      query,
      pageSize,
      ...(pageToken ? { nextPageToken: pageToken } : {}),
    }),
    client.workflow.count(query),
  ]);
  const prefix = messageWorkflowId(tenant, '');
  return {
    // A redriven message has several runs: it is listed once, at its latest.
    message_ids: [
      ...new Set(
        (listed.executions ?? [])
          .map((run) => run.execution?.workflowId ?? '')
          .filter((id) => id.startsWith(prefix))
          .map((id) => id.slice(prefix.length)),
      ),
    ],
    next_page_token: listed.nextPageToken ?? new Uint8Array(),
    total: counted.count,
  };
}
