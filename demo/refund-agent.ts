/**
 * The refund agent of the after-sales demo (seed 000), built on the SDK. Each refund is appended to a ledger file,
 * so a double refund would be visible. `CRASH_AFTER_REFUND=1` makes it die right after refunding, before its
 * receipt — the failure that made the seed's customer get refunded twice.
 *
 * Env: GATEWAY (api URL), REACH_API_KEY (a key with the register scope, for the first registration), PORT, DATA_DIR
 * (identity, handled ids, ledger), ACK_TIMEOUT_MS.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { ReachAgent } from '../sdk';

const gateway = process.env.GATEWAY ?? 'http://127.0.0.1:3000';
const port = Number(process.env.PORT ?? 4103);
const dataDir = process.env.DATA_DIR ?? '.agent-reach-data/demo/refund';
const ledger = join(dataDir, 'refunds.jsonl');
mkdirSync(dataDir, { recursive: true });

const agent = new ReachAgent({
  gateway,
  endpoint: `http://127.0.0.1:${port}/deliveries`,
  identityFile: join(dataDir, 'identity.json'),
  inlineMs: 0, // always answer 202 and confirm with a receipt, as a slow payment call would
  card: {
    name: 'refund',
    description: 'Refunds an order to the customer. 退款.',
    tags: ['after-sales', 'payments'],
    capabilities: [
      {
        name: 'refund',
        description: 'Refund an order',
        parameters: {
          type: 'object',
          required: ['order_id', 'amount'],
          properties: { order_id: { type: 'string' }, amount: { type: 'number' } },
        },
        ack_timeout_ms: Number(process.env.ACK_TIMEOUT_MS ?? 5000),
      },
    ],
  },
  onHandled: () => {
    if (process.env.CRASH_AFTER_REFUND === '1') process.exit(137);
  },
});

async function main(): Promise<void> {
  const identity = await agent.register();
  const server = createServer(
    agent.httpHandler((delivery) => {
      const { order_id, amount } = delivery.payload as { order_id: string; amount: number };
      const refund = { refund_id: `r-${delivery.message_id}`, order_id, amount, at: new Date().toISOString() };
      appendFileSync(ledger, `${JSON.stringify(refund)}\n`);
      return refund;
    }),
  );
  server.listen(port, '127.0.0.1', () => console.log(`refund agent ready ${identity.agent_id}`));
  agent.startHeartbeats();
  agent.drainOnSigterm();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
