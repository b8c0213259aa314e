/** Callers' workflows for the Nexus tenancy probes: send through an endpoint, or start, then cancel, an operation. */
import {
  CancellationScope,
  condition,
  createNexusClient,
  defineSignal,
  isCancellation,
  setHandler,
} from '@temporalio/workflow';
import { agentReachService, type NexusSendInput } from '../../temporal-callers/nexus/service';

export { nexusCallerWorkflow } from './caller-workflows';

export const cancelOperation = defineSignal('cancelOperation');

/**
 * Starts the operation, waits for the `cancelOperation` signal, cancels it, and says how the operation ended:
 * `cancelled`, `completed` (it got the result) or `failed: …`.
 */
export async function cancellingNexusCallerWorkflow(input: NexusSendInput, endpoint: string): Promise<string> {
  let cancelled = false;
  setHandler(cancelOperation, () => void (cancelled = true));
  const scope = new CancellationScope();
  const handle = await scope.run(() =>
    createNexusClient({ endpoint, service: agentReachService }).startOperation('sendMessage', input),
  );
  await condition(() => cancelled);
  scope.cancel();
  try {
    await handle.result();
    return 'completed';
  } catch (error) {
    return isCancellation(error) ? 'cancelled' : `failed: ${(error as Error).message}`;
  }
}
