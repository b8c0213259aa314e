/**
 * Independent Python clients for the faces' tests, from PyPI, in the venv `npm test` makes at `<cache>/venv` (cache:
 * AGENT_REACH_CACHE_DIR, else ~/.cache/agent-reach; test/runner/python-tools.ts). A test whose package that venv
 * lacks (pip could not install it) skips, saying why; REQUIRE_ALL_SUITES=1 (`.ci/run`) makes that skip fail the run.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../platform/cache-dir';

export const python = join(cacheDir(), 'venv', 'bin', 'python');

/** Whether the venv can import `module`, and the test's `skip` option (the reason when it cannot). */
export function pythonModule(module: string, pypiName: string): { available: boolean; skip: string | false } {
  const available =
    existsSync(python) && spawnSync(python, ['-c', `import ${module}`], { stdio: 'ignore' }).status === 0;
  return {
    available,
    skip: available ? false : `no Python ${pypiName} package in ${python} (npm run python-tools installs it)`,
  };
}

/**
 * Runs test/helpers/`script` with `job` as JSON on stdin; resolves to the JSON report it prints. Asynchronous: the
 * gateway it talks to runs in this process.
 */
export function runPythonClient(script: string, job: object): Promise<any> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, [join(__dirname, script)], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`python client exited ${code}:\n${stderr}`));
      resolve(JSON.parse(stdout));
    });
    child.stdin.end(JSON.stringify(job));
  });
}
