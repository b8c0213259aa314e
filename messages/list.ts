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
  for await (const run of client.workflow.list({ query: clauses.join(' AND '), pageSize: Math.min(filter.limit, 1000) })) {
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
