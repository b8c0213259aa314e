/**
 * Temporal-native callers, from a `@temporalio/client` Client: start a chain on the gateway's `runChain` workflow,
 * or start it and await its final status. Same ids as the api (`chain:<tenant>:<chain_id>`) and the same memo, so
 * a chain started here and the same chain posted to `POST /v1/chains` are one run (docs/chains.md).
 *
 *   const status = await executeChain(client, chainAsKey({ tenant: 'acme', chain_id: 'order-42', steps }, apiKey));
 */
import { WorkflowExecutionAlreadyStartedError, type Client, type WorkflowHandle } from '@temporalio/client';
import type { ChainStatus } from '../chains/chain';
import { chainBodyHash, newChainId } from '../chains/chain-service';
import { chainWorkflowId, RUN_CHAIN_WORKFLOW, type ChainMemo, type RunChainInput } from '../chains/temporal';
import { DEFAULT_TASK_QUEUE } from './contract';
import { parseApiKey } from '../rules/api-key';
import { provenBody, signProof } from '../rules/key-proof';

export { RUN_CHAIN_WORKFLOW, type RunChainInput } from '../chains/temporal';
export type { ChainStatus } from '../chains/chain';

/** A chain input without its id yet: one is generated when absent. */
export type ChainRequest = Omit<RunChainInput, 'chain_id'> & { chain_id?: string };

/**
 * The input sent as the API key `apiKey` (`rk_…`, of the input's tenant): its `key_id`, and the proof that the
 * sender holds it and sends this very chain body under this chain id (rules/key-proof.ts): every step is then sent
 * as that key. Change the input afterwards and the chain is refused (`invalid_key_proof`). Compute it where the key
 * is kept, never inside a workflow.
 */
export function chainAsKey(input: ChainRequest, apiKey: string): RunChainInput {
  const parsed = parseApiKey(apiKey);
  if (!parsed) throw new Error('not an API key (rk_<key id>_<secret>)');
  const chainId = input.chain_id ?? newChainId();
  const { key_proofs: _earlier, ...request } = input;
  const body = provenBody('chain', { ...request, chain_id: chainId });
  const proof = signProof(apiKey, { kind: 'chain', tenant: input.tenant, id: chainId, body })!;
  return { ...request, chain_id: chainId, key_id: parsed.keyId, key_proof: proof };
}

export interface StartedChain {
  handle: WorkflowHandle<(input: RunChainInput) => Promise<ChainStatus>>;
  chain_id: string;
  /** False when a run of this chain id already existed: that run is the chain. */
  started: boolean;
}

/** Starts the chain; an existing run of the same id is returned instead. */
export async function startChain(
  client: Client,
  request: ChainRequest,
  options: { taskQueue?: string } = {},
): Promise<StartedChain> {
  const input: RunChainInput = { ...request, chain_id: request.chain_id ?? newChainId() };
  const { tenant: _tenant, key_id: _keyId, key_proof: _proof, key_proofs: _proofs, ...body } = input;
  const memo: ChainMemo = { body_hash: chainBodyHash(body) };
  const workflowId = chainWorkflowId(input.tenant, input.chain_id);
  try {
    const handle = await client.workflow.start<(input: RunChainInput) => Promise<ChainStatus>>(RUN_CHAIN_WORKFLOW, {
      workflowId,
      taskQueue: options.taskQueue ?? DEFAULT_TASK_QUEUE,
      args: [input],
      memo: { ...memo },
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
      workflowIdConflictPolicy: 'FAIL',
    });
    return { handle, chain_id: input.chain_id, started: true };
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
    return { handle: client.workflow.getHandle(workflowId), chain_id: input.chain_id, started: false };
  }
}

/** Starts the chain (or finds its run) and waits for its final status: `completed`, `failed`, `compensated`, `cancelled`. */
export async function executeChain(
  client: Client,
  request: ChainRequest,
  options: { taskQueue?: string } = {},
): Promise<ChainStatus> {
  const { handle } = await startChain(client, request, options);
  return handle.result();
}
