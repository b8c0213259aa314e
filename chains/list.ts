/**
 * Listing a tenant's chains from Temporal's visibility store: chain runs are `runChain` workflows whose id is
 * `chain:<tenant>:<chain_id>`. A chain's state lives in its run (a query while it runs, its result once ended), not
 * in visibility, so visibility narrows by the run's execution status and each listed chain's state is read.
 */
import type { Client } from '@temporalio/client';
import type { ChainState } from './chain';
import { chainWorkflowId, RUN_CHAIN_WORKFLOW } from './temporal';

/** The execution statuses a chain's run may have in each chain state (a run ended by an operator is failed or cancelled). */
const RUN_STATUSES: Record<ChainState, readonly string[]> = {
  running: ['Running'],
  compensating: ['Running'],
  completed: ['Completed'],
  compensated: ['Completed'],
  failed: ['Completed', 'Failed', 'Terminated', 'TimedOut'],
  cancelled: ['Completed', 'Canceled'],
};

/**
 * The visibility query for the tenant's chains, those whose run may be in `state` when given. A run that continued
 * as new is left out: its chain is listed once, at its latest run. The tenant is validated (a–z 0–9 _ -).
 */
export function chainListQuery(tenant: string, state?: ChainState): string {
  const clauses = [
    `WorkflowType = '${RUN_CHAIN_WORKFLOW}'`,
    `WorkflowId STARTS_WITH '${chainWorkflowId(tenant, '')}'`,
    `ExecutionStatus != 'ContinuedAsNew'`,
  ];
  if (state) clauses.push(`ExecutionStatus IN (${RUN_STATUSES[state].map((s) => `'${s}'`).join(', ')})`);
  return clauses.join(' AND ');
}

export interface ChainIdPage {
  chain_ids: string[];
  /** Temporal's cursor of the next page; empty on the last one. */
  next_page_token: Uint8Array;
}

/** One page of chain ids under `query`, in the visibility store's order (running first, then by close time, newest first). */
export async function pageOfChainIds(
  client: Client,
  tenant: string,
  query: string,
  pageSize: number,
  pageToken?: Uint8Array,
): Promise<ChainIdPage> {
  const listed = await client.workflowService.listWorkflowExecutions({
    namespace: client.options.namespace,
    query,
    pageSize,
    ...(pageToken ? { nextPageToken: pageToken } : {}),
  });
  const prefix = chainWorkflowId(tenant, '');
  const ids = (listed.executions ?? [])
    .map((run) => run.execution?.workflowId ?? '')
    .filter((id) => id.startsWith(prefix));
  return {
    chain_ids: [...new Set(ids.map((id) => id.slice(prefix.length)))],
    next_page_token: listed.nextPageToken ?? new Uint8Array(),
  };
}
