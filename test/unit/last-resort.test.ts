/**
 * The process-level last resort: an error confined to one connection or request is logged and the process goes on;
 * any other error exits 1. Checked on the handlers and on real processes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { describe, it } from 'node:test';
import { isConfinedError, lastResortHandlers } from '../../platform/last-resort';

const FIXTURE = resolve(__dirname, '../fixtures/last-resort-process.ts');

function run(kind: string, how: 'throw' | 'reject') {
  const result = spawnSync(process.execPath, ['--import', 'tsx', FIXTURE, kind, how], { encoding: 'utf8' });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('last resort', () => {
  it('last resort - which errors are confined to one connection or request', () => {
    for (const code of [
      'ECONNRESET',
      'EPIPE',
      'WS_ERR_INVALID_UTF8',
      'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH',
      'HPE_INVALID_METHOD',
      'UND_ERR_SOCKET',
      'ERR_STREAM_DESTROYED',
    ]) {
      assert.equal(isConfinedError(Object.assign(new Error(code), { code })), true, code);
    }
    for (const name of ['MongoNetworkError', 'MongoServerSelectionError', 'ServiceError']) {
      assert.equal(isConfinedError(Object.assign(new Error(name), { name })), true, name);
    }
    for (const error of [
      new TypeError('x'),
      new RangeError('Maximum call stack size exceeded'),
      Object.assign(new Error('x'), { code: 'ERR_ASSERTION' }),
      undefined,
      null,
      'a string',
      42,
    ]) {
      assert.equal(isConfinedError(error), false, String(error));
    }
  });

  it('last resort - a confined error is logged as a warning and nothing exits; another is fatal and exits 1', () => {
    const warned: unknown[] = [];
    const fatal: unknown[] = [];
    const exits: number[] = [];
    const handlers = lastResortHandlers({
      logger: {
        warn: ((fields: unknown) => void warned.push(fields)) as never,
        fatal: ((fields: unknown) => void fatal.push(fields)) as never,
      },
      exit: (code) => void exits.push(code),
    });
    handlers.uncaughtException(Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }));
    handlers.unhandledRejection(Object.assign(new Error('unavailable'), { name: 'ServiceError' }));
    assert.equal(warned.length, 2);
    assert.deepEqual(exits, []);
    handlers.unhandledRejection(new TypeError('bug'));
    assert.equal(fatal.length, 1);
    assert.deepEqual(exits, [1]);
  });

  it('last resort - a real process survives a reset socket, a WebSocket protocol error and an unreachable Temporal', () => {
    for (const [kind, how] of [
      ['reset', 'throw'],
      ['ws', 'throw'],
      ['temporal', 'reject'],
      ['reset', 'reject'],
    ] as const) {
      const result = run(kind, how);
      assert.equal(result.code, 0, `${kind} ${how}: ${result.stderr}`);
      assert.equal(result.stdout, 'still serving\n', `${kind} ${how}`);
      assert.match(result.stderr, /still serving/, 'the warning is logged');
    }
  });

  it('last resort - a real process exits 1 on a bug, thrown or rejected, and logs it as fatal', () => {
    for (const how of ['throw', 'reject'] as const) {
      const result = run('bug', how);
      assert.equal(result.code, 1, how);
      assert.equal(result.stdout, '', how);
      assert.match(result.stderr, /"level":60.*exiting so a clean process takes over/, how);
    }
  });
});
