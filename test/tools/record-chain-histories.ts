/**
 * `npx tsx test/tools/record-chain-histories.ts [prefix]`: runs chains (`runChain`, started as a Temporal-native
 * caller would) against the whole system on local servers and stores each run's history under
 * test/fixtures/histories/chains/, for the replay test. `prefix` names the code that recorded them (`v1-`, …).
 */
import { resolve } from 'node:path';
import { executeChain } from '../../temporal-callers/chain-client';
import { chainWorkflowId } from '../../chains/temporal';
import { outcomeOf, recordAgainstSystem } from './recorded-runs';

const DIR = resolve(__dirname, '../fixtures/histories/chains');
const TENANT = 'default';

/** The history without stack traces: they name the recording machine's paths, and replay does not read them. */
function withoutStackTraces(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutStackTraces);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === 'stackTrace' ? '' : withoutStackTraces(v)]));
}

async function main(): Promise<void> {
  const prefix = process.argv[2] ?? '';
  await recordAgainstSystem({
    dir: DIR,
    prefix,
    answer: (d) =>
      d.body.capability === 'refund'
        ? { status: 202, receipt: { status: 'failed', error: { message: 'declined' } } }
        : { status: 202, receipt: { status: 'processed', result: { category: 'refund', amount: 42, ok: true } } },
    capabilities: ['classify', 'check', 'refund', 'reopen', 'notify'].map((name) => ({ name, description: `${name} a ticket` })),
    clean: withoutStackTraces,
    scenarios: (system, agentId) => {
      const target = (capability: string) => ({ agent_id: agentId, capability });
      const classify = { id: 'classify', target: target('classify'), input: { ticket: { $ref: '/input/ticket' } }, compensate: { target: target('reopen') } };
      const bodies: Record<string, Record<string, unknown>> = {
        // classify → (check, notify) fan-out → all done.
        completed: { input: { ticket: 'T-1' }, steps: [classify, { id: 'check', target: target('check'), input: { category: { $ref: '/steps/classify/result/category' } } }, { id: 'notify', target: target('notify'), after: ['classify'] }] },
        // classify → check → refund fails: check has no compensation, classify's runs.
        compensated: { input: { ticket: 'T-2' }, steps: [classify, { id: 'check', target: target('check') }, { id: 'refund', target: target('refund'), on_failure: 'compensate' }] },
        // A cycle: refused by prepareChain, nothing runs.
        refused: { steps: [{ id: 'a', target: target('check'), after: ['b'] }, { id: 'b', target: target('check'), after: ['a'] }] },
      };
      const run = (name: string, body: Record<string, unknown>) => async () => {
        const id = `${prefix}${name}-${Date.now()}`;
        const outcome = await outcomeOf(executeChain(system.client, { tenant: TENANT, chain_id: id, ...(body as { steps: never[] }) }, { taskQueue: system.config.TEMPORAL_TASK_QUEUE }));
        return { workflowId: chainWorkflowId(TENANT, id), outcome };
      };
      return Object.fromEntries(Object.entries(bodies).map(([name, body]) => [name, run(name, body)]));
    },
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
