/**
 * `npm run record-histories`: runs every scenario of test/helpers/message-scenarios.ts on a local Temporal dev
 * server and stores each run's event history under test/fixtures/histories/, for the replay test. Re-record only
 * when a change to the workflow is meant to break runs in flight (and then give it a new workflow type or a
 * `patched()` instead, so the runs already started keep their old path).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { historyToJSON } from '@temporalio/common/lib/proto-utils';
import { SCENARIOS } from '../test/helpers/message-scenarios';
import { startWorkflowEnv } from '../test/helpers/workflow-env';
import type { MessageStatus } from '../domain/message';

export const HISTORIES_DIR = resolve(__dirname, '../test/fixtures/histories');

async function main(): Promise<void> {
  mkdirSync(HISTORIES_DIR, { recursive: true });
  const workflows = await startWorkflowEnv();
  try {
    await Promise.all(
      SCENARIOS.map(async (scenario) => {
        const input = scenario.input(scenario.name);
        const handle = await workflows.start(input, scenario.script);
        await scenario.drive?.(handle, scenario.name);
        const status = (await handle.result()) as MessageStatus;
        if (status.state !== scenario.ends) throw new Error(`${scenario.name} ended ${status.state}, not ${scenario.ends}: ${JSON.stringify(status.reason)}`);
        writeFileSync(join(HISTORIES_DIR, `${scenario.name}.json`), `${historyToJSON(await handle.fetchHistory())}\n`);
        if (input.reply_to) {
          // The child that posts the final status to the caller.
          const child = workflows.env.client.workflow.getHandle(`${handle.workflowId}:reply:${handle.firstExecutionRunId}`);
          await child.result();
          writeFileSync(join(HISTORIES_DIR, `${scenario.name}.notify-caller.json`), `${historyToJSON(await child.fetchHistory())}\n`);
        }
        console.log(`${scenario.name}: ${status.state} after ${status.attempts.length} attempts`);
      }),
    );
  } finally {
    await workflows.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
