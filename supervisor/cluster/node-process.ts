/** Runs one of our own entry points (api/main.ts, worker/main.ts) as a child process with its output in a log file. */
import { resolve } from 'node:path';
import { spawnServer, type LocalServer } from '../dev-servers';
import { workflowThreadFlags } from '../../worker/workflow-thread';

const ROOT = resolve(__dirname, '../..');

export function spawnNodeProcess(name: string, entry: string, env: NodeJS.ProcessEnv, logFile: string): LocalServer {
  const server = spawnServer(
    name,
    process.execPath,
    [...workflowThreadFlags(), '--import', 'tsx', resolve(ROOT, entry)],
    logFile,
    env,
  );
  // api and worker drain on SIGTERM (in-flight requests and activities finish); give them the time to.
  return { ...server, stop: (graceMs = 20_000) => server.stop(graceMs) };
}
