/** The `reply_to` retry schedule the docs state is the one the notification workflow has (workflows/notify-caller.ts). */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { envSchema } from '../../platform/config';
import { NOTIFY_RETRY } from '../../workflows/notify-caller';

const ROOT = resolve(__dirname, '../..');

/** Temporal's waits between tries: the first delay, each next one `backoffCoefficient` times it, at most the cap. */
function waitsMs(initialMs: number): number[] {
  return Array.from({ length: NOTIFY_RETRY.maximumAttempts - 1 }, (_, i) =>
    Math.min(initialMs * NOTIFY_RETRY.backoffCoefficient ** i, NOTIFY_RETRY.maximumIntervalMs),
  );
}

function spoken(ms: number): string {
  const s = ms / 1000;
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${s / 60} min`;
  const hours = Math.floor(s / 3600);
  const minutes = (s % 3600) / 60;
  return minutes ? `${hours} h ${minutes} min` : `${hours} h`;
}

describe('reply_to schedule', () => {
  it('notify schedule - docs/api.md and the workflow state the waits, tries and span the retry policy gives', () => {
    const initial = envSchema.shape.CALLER_WEBHOOK_RETRY_INITIAL_MS.parse(undefined) as number;
    const waits = waitsMs(initial).map(spoken);
    assert.deepEqual(waits, ['5 s', '30 s', '3 min', '18 min', '1 h 48 min', '10 h', '10 h']);
    const stated = `${waits.slice(0, -1).join(', ')} and ${waits.at(-1)}`;
    const api = readFileSync(resolve(ROOT, 'docs/api.md'), 'utf8').replace(/\s+/g, ' ');
    assert.ok(
      api.includes(`after ${stated} (each wait six times the one before, at most 10 h;`),
      'docs/api.md states the waits',
    );
    assert.ok(
      api.includes(
        `${NOTIFY_RETRY.maximumAttempts} tries in all over about ${Math.round(waitsMs(initial).reduce((a, b) => a + b) / 3_600_000)} h`,
      ),
      'docs/api.md states the tries and span',
    );
    assert.ok(
      readFileSync(resolve(ROOT, 'workflows/notify-caller.ts'), 'utf8')
        .replace(/\s+\*?\s*/g, ' ')
        .includes(`waits are ${stated}`),
      'the workflow says so too',
    );
  });
});
