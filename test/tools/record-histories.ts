/**
 * `npm run record-histories`: runs every scenario of test/helpers/message-scenarios.ts on a local Temporal dev
 * server and stores each run's event history under test/fixtures/histories/, for the replay test. Re-record only
 * when a change to the workflow is meant to break runs in flight (and then give it a new workflow type or a
 * `patched()` instead, so the runs already started keep their old path). With arguments, only the scenarios whose
 * names contain one of them are recorded, beside the histories already stored (`npm run record-histories -- a2a-`).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { resolveTemporalCli } from '../../supervisor/binaries';
import { SCENARIOS } from '../helpers/message-scenarios';
import { startWorkflowEnv } from '../helpers/workflow-env';
import type { MessageStatus } from '../../messages/message';

/**
 * Where runs of today's workflow type are stored: `leanMessageWorkflow`. (`classic/` and `lean/` keep those of the
 * earlier `messageWorkflow` type, before and after its lean patch.)
 */
export const HISTORIES_DIR = resolve(__dirname, '../fixtures/histories/lean-type');
/** History file name → the workflow id of its run. */
export const WORKFLOW_IDS_FILE = 'workflow-ids.json';

/**
 * The run's history as the Temporal CLI and UI export it. (The SDK's own `historyToJSON` fails on these payloads
 * with the proto3-json-serializer version it pulls in.)
 */
function exportHistory(cli: string, address: string, workflowId: string, runId: string): string {
  return execFileSync(
    cli,
    ['workflow', 'show', '--address', address, '--namespace', 'default', '-w', workflowId, '-r', runId, '-o', 'json'],
    { encoding: 'utf8' },
  );
}

async function main(): Promise<void> {
  mkdirSync(HISTORIES_DIR, { recursive: true });
  const cli = await resolveTemporalCli();
  if ('sdkDownload' in cli) throw new Error(`recording needs the Temporal CLI: ${cli.reason}`);
  const workflows = await startWorkflowEnv();
  // Replay needs each run's workflow id (the child's id is made of it); a history does not carry it.
  const filters = process.argv.slice(2);
  const chosen = filters.length === 0 ? SCENARIOS : SCENARIOS.filter((s) => filters.some((f) => s.name.includes(f)));
  const idsFile = join(HISTORIES_DIR, WORKFLOW_IDS_FILE);
  const workflowIds: Record<string, string> =
    filters.length > 0 && existsSync(idsFile) ? JSON.parse(readFileSync(idsFile, 'utf8')) : {};
  const save = (file: string, workflowId: string, runId: string) => {
    writeFileSync(join(HISTORIES_DIR, file), exportHistory(cli.path, workflows.env.address, workflowId, runId));
    workflowIds[file] = workflowId;
  };
  try {
    await Promise.all(
      chosen.map(async (scenario) => {
        const input = scenario.input(scenario.name);
        const handle = await workflows.start(input, scenario.script, { sealed: scenario.sealed ?? true });
        await scenario.drive?.(handle, scenario.name);
        const status = (await handle.result()) as MessageStatus;
        if (status.state !== scenario.ends)
          throw new Error(
            `${scenario.name} ended ${status.state}, not ${scenario.ends}: ${JSON.stringify(status.reason)}`,
          );
        save(`${scenario.name}.json`, handle.workflowId, handle.firstExecutionRunId);
        if (input.reply_to && scenario.sealed !== false) {
          // The child that posts the final status to the caller.
          const childId = `${handle.workflowId}:reply:${handle.firstExecutionRunId}`;
          const child = workflows.env.client.workflow.getHandle(childId);
          await child.result();
          save(`${scenario.name}.notify-caller.json`, childId, (await child.describe()).runId);
        }
        console.log(`${scenario.name}: ${status.state} after ${status.attempts.length} attempts`);
      }),
    );
    const sorted = Object.fromEntries(Object.entries(workflowIds).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(join(HISTORIES_DIR, WORKFLOW_IDS_FILE), `${JSON.stringify(sorted, null, 2)}\n`);
  } finally {
    await workflows.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
