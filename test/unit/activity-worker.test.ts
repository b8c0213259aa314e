/** The api's Temporal runtime logger drops only the SDK's "no workflows" warning (platform/activity-worker.ts). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import type { Logger } from '@temporalio/worker';
import { NO_WORKFLOWS_WARNING, withoutNoWorkflowsWarning } from '../../platform/activity-worker';

function recorder(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const at = (level: string) => (message: string, meta?: object) =>
    lines.push(`${level} ${message}${meta ? ` ${JSON.stringify(meta)}` : ''}`);
  const logger: Logger = {
    log: (level, message, meta) => at(`log:${level}`)(message, meta),
    trace: at('trace'),
    debug: at('debug'),
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
  };
  return { logger, lines };
}

describe('activity worker', () => {
  it("activity worker - the runtime logger drops the SDK's warning that an activity-only worker polls no workflows, nothing else", () => {
    const { logger, lines } = recorder();
    const quiet = withoutNoWorkflowsWarning(logger);
    const meta = { sdkComponent: 'worker', taskQueue: 'agent-reach-routing' };
    quiet.warn(NO_WORKFLOWS_WARNING, meta);
    quiet.log('WARN', NO_WORKFLOWS_WARNING, meta);
    quiet.warn('Worker failed to poll', meta);
    quiet.log('WARN', 'something else', meta);
    quiet.log('ERROR', NO_WORKFLOWS_WARNING);
    quiet.info(NO_WORKFLOWS_WARNING);
    quiet.error('boom', meta);
    quiet.debug('d');
    quiet.trace('t');
    assert.deepEqual(lines, [
      `warn Worker failed to poll ${JSON.stringify(meta)}`,
      `log:WARN something else ${JSON.stringify(meta)}`,
      `log:ERROR ${NO_WORKFLOWS_WARNING}`,
      `info ${NO_WORKFLOWS_WARNING}`,
      `error boom ${JSON.stringify(meta)}`,
      'debug d',
      'trace t',
    ]);
  });

  it('activity worker - the warning it drops is the one the SDK gives', () => {
    const source = readFileSync(require.resolve('@temporalio/worker/lib/worker.js'), 'utf8');
    assert.ok(source.includes(`'${NO_WORKFLOWS_WARNING}'`), 'the SDK still words it so');
  });
});
