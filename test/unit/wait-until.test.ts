/** waitUntil (supervisor/dev-servers.ts): a server that exits before it is ready fails the wait with its log's end. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { spawnServer, waitUntil } from '../../supervisor/dev-servers';

describe('waitUntil', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wait-until-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("wait until - a server that exits before it is ready fails the wait with its exit code and its log's end, not at the timeout", async () => {
    const logFile = join(dir, 'early-exit.log');
    const script =
      "console.error('starting'); console.error('cannot bind socket (Address already in use)'); process.exit(1)";
    const server = spawnServer('early-exit', process.execPath, ['-e', script], logFile);
    await assert.rejects(
      waitUntil('early-exit', async () => false, 30_000, server),
      (error: Error) => {
        assert.match(error.message, /^early-exit: early-exit exited \(1\) before it was ready; the end of /);
        assert.match(error.message, /starting\ncannot bind socket \(Address already in use\)$/);
        return true;
      },
    );
  });

  it('wait until - a check that never passes fails the wait at its timeout', async () => {
    await assert.rejects(
      waitUntil('never', async () => false, 300),
      /^Error: never: not ready after 300 ms$/,
    );
  });
});
