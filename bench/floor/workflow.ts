/**
 * The floor: the cheapest workflow that does a message's job on Temporal — start, one local activity that delivers
 * over HTTP, wait for one update (the receipt), complete. No seal, catalogue, circuits, status or search attributes.
 */
import { condition, defineUpdate, proxyLocalActivities, setHandler } from '@temporalio/workflow';
import type { FloorActivities } from './activities';

export const floorReceipt = defineUpdate<{ applied: boolean }, [{ status: string }]>('receipt');

const { deliver } = proxyLocalActivities<FloorActivities>({ startToCloseTimeout: '10s' });

export async function floorWorkflow(input: {
  message_id: string;
  agent_url: string;
  callback_url: string;
}): Promise<string> {
  let receipt: string | undefined;
  setHandler(floorReceipt, ({ status }) => {
    receipt ??= status;
    return { applied: true };
  });
  await deliver(input);
  await condition(() => receipt !== undefined);
  return receipt!;
}
