/** The first start's plan line: which servers a start would build (supervisor/binaries.ts), found without building. */
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FERRETDB_VERSION, serversToBuild, TEMPORAL_CLI_VERSION } from '../../supervisor/binaries';

describe('servers to build', () => {
  it('servers to build - an empty cache and PATH: both; a cached FerretDB, a TEMPORAL_CLI_PATH: none; unwanted ones never', () => {
    const dir = mkdtempSync(join(tmpdir(), 'servers-to-build-'));
    try {
      const env = { AGENT_REACH_CACHE_DIR: join(dir, 'cache'), PATH: join(dir, 'empty-bin') };
      const both = { temporalCli: true, ferretDb: true };
      assert.deepEqual(serversToBuild(both, env), [
        `Temporal CLI ${TEMPORAL_CLI_VERSION}`,
        `FerretDB ${FERRETDB_VERSION}`,
      ]);
      assert.deepEqual(serversToBuild({ temporalCli: false, ferretDb: true }, env), [`FerretDB ${FERRETDB_VERSION}`]);
      mkdirSync(join(dir, 'cache', 'bin'), { recursive: true });
      writeFileSync(join(dir, 'cache', 'bin', `ferretdb-${FERRETDB_VERSION}`), '');
      const temporal = join(dir, 'temporal');
      writeFileSync(temporal, '');
      chmodSync(temporal, 0o755);
      assert.deepEqual(serversToBuild(both, env), [`Temporal CLI ${TEMPORAL_CLI_VERSION}`]);
      assert.deepEqual(serversToBuild(both, { ...env, TEMPORAL_CLI_PATH: temporal }), []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
