/**
 * `npx tsx test/tools/record-direct-histories.ts [prefix]`: runs direct `sendMessage` starts (Temporal-native
 * callers) against the whole system on local servers and stores each run's history under
 * test/fixtures/histories/direct/, for the replay test. `prefix` names the code that recorded them (for example
 * `v1-` for histories recorded before intent routing), so histories of several versions live side by side.
 */
import { resolve } from 'node:path';
import { executeMessage } from '../../temporal-callers/client';
import { messageWorkflowId } from '../../messages/temporal';
import { outcomeOf, recordAgainstSystem } from './recorded-runs';

const DIR = resolve(__dirname, '../fixtures/histories/direct');
const TENANT = 'default';

async function main(): Promise<void> {
  const prefix = process.argv[2] ?? '';
  await recordAgainstSystem({
    dir: DIR,
    prefix,
    answer: (d) => ({
      status: 202,
      receipt: { status: 'processed', result: { echoed: d.body.payload, params: d.body.params } },
    }),
    capabilities: [
      {
        name: 'request_refund',
        description: 'Refund an order to the buyer. 申请退款',
        examples: ['please refund order 2024090112', '我要退款，订单2024090112'],
      },
    ],
    scenarios: (system, agentId) => {
      const target = { agent_id: agentId, capability: 'request_refund' };
      const bodies: Record<string, Record<string, unknown>> = {
        'named-processed': { target, payload: { order: 1 } },
        'intent-only': { intent: 'please refund order 2024090112' },
        'invalid-input': { target: { agent_id: agentId, capability: 'not a name!' } },
      };
      const run = (name: string, body: Record<string, unknown>) => async () => {
        const id = `${prefix}${name}-${Date.now()}`;
        const outcome = await outcomeOf(
          executeMessage(
            system.client,
            { tenant: TENANT, message_id: id, ...body },
            { taskQueue: system.config.TEMPORAL_TASK_QUEUE },
          ),
        );
        return { workflowId: messageWorkflowId(TENANT, id), outcome };
      };
      return Object.fromEntries(Object.entries(bodies).map(([name, body]) => [name, run(name, body)]));
    },
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
