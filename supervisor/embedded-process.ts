/** Runs embedded mode (`supervisor/embedded.ts`) as a child process on free ports and a temporary data folder. */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { readDevKey } from './dev-key';
import { freePort, waitUntil } from './dev-servers';

const ROOT = resolve(__dirname, '..');

export interface EmbeddedProcess {
  url: string;
  /** The development API key embedded mode made (admin of the default tenant). */
  apiKey: string;
  pid: number;
  mongoUri: string;
  stop(): Promise<void>;
}

export async function startEmbeddedProcess(extraEnv: Record<string, string> = {}): Promise<EmbeddedProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-bench-'));
  const apiPort = await freePort();
  const mongoPort = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    API_PORT: String(apiPort),
    EMBEDDED_TEMPORAL_PORT: String(await freePort()),
    EMBEDDED_TEMPORAL_UI_PORT: String(await freePort()),
    EMBEDDED_MONGODB_PORT: String(mongoPort),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...extraEnv,
  };
  delete env.TEMPORAL_ADDRESS;
  delete env.MONGODB_URI;
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'supervisor/embedded.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
    if (process.env.BENCH_ECHO) process.stderr.write(chunk);
  });
  const exited = new Promise((done) => child.once('exit', done));
  await waitUntil('embedded mode', async () => output.includes('Agent-Reach is running'), 180_000);
  const apiKey = readDevKey(dataDir);
  if (!apiKey) throw new Error('embedded mode made no development API key (is API_KEYS set?)');
  return {
    url: `http://127.0.0.1:${apiPort}`,
    apiKey,
    pid: child.pid!,
    mongoUri: `mongodb://127.0.0.1:${mongoPort}/agent-reach`,
    async stop() {
      child.kill('SIGINT');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
