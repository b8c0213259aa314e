/**
 * Cluster mode's balancer: HAProxy with deploy/haproxy.cfg (the file docker-compose.yml mounts too). Round robin over
 * the api replicas, health checks on `/readyz`, WebSocket upgrades passed through, and a statistics page whose CSV
 * tells which replicas are in rotation.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { findOnPath } from '../binaries';
import { portAcceptsConnections, spawnServer, waitUntil, type LocalServer } from '../dev-servers';

const CONFIG = resolve(__dirname, '../../deploy/haproxy.cfg');

export function haproxyBinary(env: NodeJS.ProcessEnv = process.env): string {
  if (env.HAPROXY_PATH && !existsSync(env.HAPROXY_PATH))
    throw new Error(`HAPROXY_PATH=${env.HAPROXY_PATH}, but no file exists there`);
  const found = env.HAPROXY_PATH || findOnPath('haproxy', { PATH: `${env.PATH ?? ''}:/usr/sbin:/sbin` });
  if (!found) throw new Error('HAProxy not found: install it (Debian: apt-get install haproxy) or set HAPROXY_PATH');
  return found;
}

export interface BalancerOptions {
  port: number;
  statsPort: number;
  /** host:port of each api replica (deploy/haproxy.cfg names two). */
  replicas: [string, string];
  logFile: string;
}

export interface Balancer extends LocalServer {
  url: string;
  /** HAProxy's statistics as CSV (`/stats;csv`). */
  statsUrl: string;
  /** Each replica's state as HAProxy sees it: `UP`, `DOWN`, `UP 1/2` (going down) … */
  replicaStates(): Promise<Record<string, string>>;
}

export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  const env = {
    ...process.env,
    BALANCER_BIND: `127.0.0.1:${options.port}`,
    BALANCER_STATS_BIND: `127.0.0.1:${options.statsPort}`,
    API_1_ADDRESS: options.replicas[0],
    API_2_ADDRESS: options.replicas[1],
  };
  // -db: stay in the foreground, so the supervisor owns the process.
  const server = spawnServer('balancer', haproxyBinary(), ['-db', '-f', CONFIG], options.logFile, env);
  try {
    await waitUntil('balancer', () => portAcceptsConnections(options.port), 30_000, server);
  } catch (error) {
    await server.stop();
    throw error;
  }
  const statsUrl = `http://127.0.0.1:${options.statsPort}/stats;csv`;
  return {
    ...server,
    url: `http://127.0.0.1:${options.port}`,
    statsUrl,
    async replicaStates() {
      const csv = await (await fetch(statsUrl)).text();
      const header = csv.split('\n')[0]!.replace(/^# /, '').split(',');
      const [pxname, svname, status] = ['pxname', 'svname', 'status'].map((name) => header.indexOf(name));
      const states: Record<string, string> = {};
      for (const line of csv.split('\n').slice(1)) {
        const cells = line.split(',');
        if (cells[pxname!] === 'api_replicas' && !['FRONTEND', 'BACKEND'].includes(cells[svname!]!))
          states[cells[svname!]!] = cells[status!]!;
      }
      return states;
    },
  };
}
