/**
 * `npx tsx test/tools/record-direct-histories.ts [prefix]`: runs direct `sendMessage` starts (Temporal-native
 * callers) against the whole system on local servers and stores each run's history under
 * test/fixtures/histories/direct/, for the replay test. `prefix` names the code that recorded them (for example
 * `v1-` for histories recorded before intent routing), so histories of several versions live side by side.
 */
import { resolve } from 'node:path';
import { executeMessage } from '../../temporal-callers/client';
import { messageWorkflowId } from '../../messages/temporal';
import { resolveTemporalCli } from '../../supervisor/binaries';
import { outcomeOf, recordRuns } from './recorded-runs';
import { startFakeAgent } from '../helpers/fake-agent';
import { registerAgent } from '../helpers/http';
import { startTestServers } from '../helpers/servers';
import { startSystem } from '../helpers/system';

const DIR = resolve(__dirname, '../fixtures/histories/direct');
const TENANT = 'default';

async function main(): Promise<void> {
  const prefix = process.argv[2] ?? '';
  const cli = await resolveTemporalCli();
  if ('sdkDownload' in cli) throw new Error(`recording needs the Temporal CLI: ${cli.reason}`);
  const servers = await startTestServers();
  const system = await startSystem(servers, { HEARTBEAT_TTL_MS: '3600000' });
  const agent = await startFakeAgent((d) => ({ status: 202, receipt: { status: 'processed', result: { echoed: d.body.payload, params: d.body.params } } }));
  const registered = await registerAgent(system.baseUrl, agent.url, {
    capabilities: [{ name: 'request_refund', description: 'Refund an order to the buyer. 申请退款', examples: ['please refund order 2024090112', '我要退款，订单2024090112'] }],
  });
  agent.secret = registered.secret;
  const target = { agent_id: registered.agent_id, capability: 'request_refund' };
  const scenarios: Record<string, Record<string, unknown>> = {
    'named-processed': { target, payload: { order: 1 } },
    'intent-only': { intent: 'please refund order 2024090112' },
    'invalid-input': { target: { agent_id: registered.agent_id, capability: 'not a name!' } },
  };
  try {
    const run = (name: string, body: Record<string, unknown>) => async () => {
      const id = `${prefix}${name}-${Date.now()}`;
      const outcome = await outcomeOf(executeMessage(system.client, { tenant: TENANT, message_id: id, ...body }, { taskQueue: system.config.TEMPORAL_TASK_QUEUE }));
      return { workflowId: messageWorkflowId(TENANT, id), outcome };
    };
    await recordRuns({
      dir: DIR,
      prefix,
      cliPath: cli.path,
      address: servers.temporalAddress,
      namespace: system.config.TEMPORAL_NAMESPACE,
      scenarios: Object.fromEntries(Object.entries(scenarios).map(([name, body]) => [name, run(name, body)])),
    });
  } finally {
    await agent.stop();
    await system.stop();
    await servers.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
