/**
 * The floor (bench/floor/workflow.ts) as processes beside a gateway, on the same Temporal dev server: its api and its
 * worker, or (eager) its api running the worker and starting runs eagerly. Shaped like a gateway for bench:latency:
 * an api URL, pids per role, stop.
 */
import { join, resolve } from 'node:path';
import { freePort, spawnServer, waitUntil, type LocalServer } from '../../supervisor/dev-servers';
import { workerPolling } from '../lib/system';
import { FLOOR_TASK_QUEUE } from './queue';

export interface FloorSystem {
  apiUrl: string;
  /** Sent as a bearer token like a gateway's; the floor checks nothing. */
  apiKey: string;
  pids(): Record<'temporal' | 'api' | 'worker', number[]>;
  stop(): Promise<void>;
}

export interface FloorOptions {
  temporalAddress: string;
  temporalPid: () => number[];
  agentUrl: string;
  logDir: string;
  /** The api runs the worker and starts runs eagerly (no worker process). */
  eager?: boolean;
}

export async function startFloor(options: FloorOptions): Promise<FloorSystem> {
  const port = await freePort();
  const env = {
    ...process.env,
    TEMPORAL_ADDRESS: options.temporalAddress,
    FLOOR_PORT: String(port),
    AGENT_URL: options.agentUrl,
    FLOOR_EAGER: String(Boolean(options.eager)),
  };
  const spawnFloor = (name: string) =>
    spawnServer(
      `floor-${name}`,
      process.execPath,
      ['--import', 'tsx', resolve(__dirname, `${name}.ts`)],
      join(options.logDir, `floor-${name}.log`),
      env,
    );
  const started: LocalServer[] = [];
  const stop = async () => void (await Promise.allSettled(started.map((server) => server.stop(2_000))));
  const polling = (server: LocalServer) =>
    waitUntil(
      `floor ${server.name}`,
      () => workerPolling(options.temporalAddress, 'default', FLOOR_TASK_QUEUE, server.child?.pid ?? 0),
      180_000,
      server,
    );
  try {
    const worker = options.eager ? undefined : spawnFloor('worker');
    if (worker) {
      started.push(worker);
      await polling(worker);
    }
    const api = spawnFloor('api');
    started.push(api);
    const apiUrl = `http://127.0.0.1:${port}`;
    await waitUntil('floor api', async () => (await fetch(`${apiUrl}/readyz`)).ok, 60_000, api);
    if (!worker) await polling(api);
    const pidOf = (server: LocalServer | undefined) => (server?.child?.pid ? [server.child.pid] : []);
    return {
      apiUrl,
      apiKey: 'none',
      pids: () => ({ temporal: options.temporalPid(), api: pidOf(api), worker: pidOf(worker) }),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
