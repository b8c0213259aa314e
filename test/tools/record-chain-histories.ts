/**
 * `npx tsx test/tools/record-chain-histories.ts [prefix]`: runs chains (`runChain`, started as a Temporal-native
 * caller would) against the whole system on local servers and stores each run's history under
 * test/fixtures/histories/chains/, for the replay test. `prefix` names the code that recorded them (`v1-`, …;
 * `v2-` with the chain's limits: results by reference, a step over the size cap, a run that continues as new; `v3-`
 * since the chain prepares its steps' messages itself, PREPARED_STEPS; `v4-` since it starts them itself and awaits
 * them in local activities, DIRECT_STEPS).
 */
import { resolve } from 'node:path';
import { executeChain } from '../../temporal-callers/chain-client';
import { chainWorkflowId } from '../../chains/temporal';
import { outcomeOf, recordAgainstSystem } from './recorded-runs';

const DIR = resolve(__dirname, '../fixtures/histories/chains');
const TENANT = 'default';
/** A result of 20 KB: over the inline cap (kept by reference), small enough for a fixture. */
const LARGE_BYTES = 20_000;

/** The history without stack traces: they name the recording machine's paths, and replay does not read them. */
function withoutStackTraces(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutStackTraces);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, k === 'stackTrace' ? '' : withoutStackTraces(v)]),
  );
}

async function main(): Promise<void> {
  const prefix = process.argv[2] ?? '';
  await recordAgainstSystem({
    dir: DIR,
    prefix,
    // The least history budget: a few large results make the chain continue as new.
    env: { CHAIN_HISTORY_MAX_BYTES: String(64 * 1024) },
    answer: (d) => {
      if (d.body.capability === 'refund')
        return { status: 202, receipt: { status: 'failed', error: { message: 'declined' } } };
      if (d.body.capability === 'large')
        return {
          status: 202,
          receipt: {
            status: 'processed',
            result: {
              n: Number((d.body.params as { n?: number } | undefined)?.n ?? 0) + 1,
              blob: 'x'.repeat(LARGE_BYTES),
            },
          },
        };
      return { status: 202, receipt: { status: 'processed', result: { category: 'refund', amount: 42, ok: true } } };
    },
    capabilities: ['classify', 'check', 'refund', 'reopen', 'notify', 'large'].map((name) => ({
      name,
      description: `${name} a ticket`,
    })),
    clean: withoutStackTraces,
    scenarios: (system, agentId) => {
      const target = (capability: string) => ({ agent_id: agentId, capability });
      const classify = {
        id: 'classify',
        target: target('classify'),
        input: { ticket: { $ref: '/input/ticket' } },
        compensate: { target: target('reopen') },
      };
      const bodies: Record<string, Record<string, unknown>> = {
        // classify → (check, notify) fan-out → all done.
        completed: {
          input: { ticket: 'T-1' },
          steps: [
            classify,
            { id: 'check', target: target('check'), input: { category: { $ref: '/steps/classify/result/category' } } },
            { id: 'notify', target: target('notify'), after: ['classify'] },
          ],
        },
        // classify → check → refund fails: check has no compensation, classify's runs.
        compensated: {
          input: { ticket: 'T-2' },
          steps: [
            classify,
            { id: 'check', target: target('check') },
            { id: 'refund', target: target('refund'), on_failure: 'compensate' },
          ],
        },
        // A cycle: refused by prepareChain, nothing runs.
        refused: {
          steps: [
            { id: 'a', target: target('check'), after: ['b'] },
            { id: 'b', target: target('check'), after: ['a'] },
          ],
        },
        // A large result read fifteen times: the step's message is over MAX_PAYLOAD_BYTES and fails, nothing sent.
        'too-large': {
          steps: [
            { id: 'src', target: target('large') },
            {
              id: 'wide',
              target: target('check'),
              input: Object.fromEntries(
                Array.from({ length: 15 }, (_, i) => [`c${i}`, { $ref: '/steps/src/result/blob' }]),
              ),
            },
          ],
        },
      };
      const run = (name: string, body: Record<string, unknown>) => async () => {
        const id = `${prefix}${name}-${Date.now()}`;
        const outcome = await outcomeOf(
          executeChain(
            system.client,
            { tenant: TENANT, chain_id: id, ...(body as { steps: never[] }) },
            { taskQueue: system.config.TEMPORAL_TASK_QUEUE },
          ),
        );
        return { workflowId: chainWorkflowId(TENANT, id), outcome };
      };
      // Six large steps, each reading the one before, the last only when the fifth's n is 5: the run continues as
      // new, and the next reads results by reference. Both its first run and its last are kept.
      const continued = {
        steps: Array.from({ length: 6 }, (_, i) => ({
          id: `l${i}`,
          target: target('large'),
          input: i === 0 ? { n: 0 } : { n: { $ref: `/steps/l${i - 1}/result/n` } },
          ...(i === 5 ? { when: { $ref: '/steps/l4/result/n', equals: 5 } } : {}),
        })),
      };
      let continuedRun: Promise<{ workflowId: string; firstRunId: string; outcome: string }> | undefined;
      const runContinued = () =>
        (continuedRun ??= (async () => {
          const { workflowId, outcome } = await run('continued', continued)();
          const firstRunId =
            (await system.client.workflow.getHandle(workflowId).describe()).raw.workflowExecutionInfo?.firstRunId ?? '';
          return { workflowId, firstRunId, outcome };
        })());
      return {
        ...Object.fromEntries(Object.entries(bodies).map(([name, body]) => [name, run(name, body)])),
        'continued-first': async () => {
          const { workflowId, firstRunId, outcome } = await runContinued();
          return { workflowId, runId: firstRunId, outcome: `${outcome} (first run)` };
        },
        'continued-last': async () => {
          const { workflowId, outcome } = await runContinued();
          return { workflowId, outcome: `${outcome} (last run)` };
        },
      };
    },
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
