/** Free port ranges for a cluster started beside other things (tests, benchmarks). */
import { chmodSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A cluster binds its ports a minute after choosing them (its balancer last). Two clusters started at once (the two
 * cluster test files run side by side) could choose the same free port, and the later one then fails to bind it (a CI
 * run: HAProxy exited 1). So a chosen port is leased: a file named after it holds the pid of the process that chose
 * it, and no other process chooses it while that process lives. A dead process's lease is taken over; at most one
 * file per port, so the folder stays bounded.
 */
export const PORT_LEASES = join(tmpdir(), 'agent-reach-port-leases');

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Leases `port` to this process unless a living process (this one included) holds it. */
export function leasePort(port: number, leases: string): boolean {
  // Shared by every user of the machine, as the ports are: writable by all, each lease removable by its owner only.
  if (mkdirSync(leases, { recursive: true })) chmodSync(leases, 0o1777);
  const file = join(leases, String(port));
  const claim = () => {
    try {
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw error;
    }
  };
  if (claim()) return true;
  const holder = Number(readFileSync(file, 'utf8'));
  // An empty file is a lease being written this instant: held.
  if (!Number.isInteger(holder) || holder <= 0 || processAlive(holder)) return false;
  try {
    rmSync(file, { force: true });
  } catch {
    return false; // another user's lease: theirs to take over
  }
  return claim();
}

function releasePort(port: number, leases: string): void {
  rmSync(join(leases, String(port)), { force: true });
}

/**
 * Below Linux's ephemeral range (32768–60999 by default), from which the kernel gives outgoing connections their
 * local ports: a port chosen there was taken by one of the cluster's own connections before its server bound it
 * (a CI run: api-2 `EADDRINUSE`). Temporal needs it too: it keeps membership ports in a smallint column.
 */
const BELOW_EPHEMERAL = 32_768;

/**
 * The first of `count` consecutive ports between 20000 and the ephemeral range, none in `taken`, all free a moment
 * ago, and all leased to this process (`leases`: the lease folder, for tests).
 */
export async function freePortRange(
  count: number,
  taken: ReadonlySet<number> = new Set(),
  leases = PORT_LEASES,
): Promise<number> {
  for (let tries = 0; tries < 200; tries++) {
    const base = 20_000 + Math.floor(Math.random() * (BELOW_EPHEMERAL - 20_000 - count));
    const ports = Array.from({ length: count }, (_, i) => base + i);
    if (ports.some((port) => taken.has(port))) continue;
    const checks = await Promise.all(ports.map(portFree));
    if (!checks.every(Boolean)) continue;
    const leased = ports.filter((port) => leasePort(port, leases));
    if (leased.length === count) return base;
    for (const port of leased) releasePort(port, leases);
  }
  throw new Error(`no ${count} consecutive free ports found`);
}

/** CLUSTER_* port settings on free ports, none shared (nothing is bound until the cluster starts). */
export async function freeClusterPorts(): Promise<Record<string, string>> {
  const taken = new Set<number>();
  const range = async (count: number) => {
    const base = await freePortRange(count, taken);
    for (let i = 0; i < count; i++) taken.add(base + i);
    return String(base);
  };
  return {
    CLUSTER_PORT: await range(4),
    CLUSTER_TEMPORAL_PORT: await range(15),
    CLUSTER_POSTGRES_PORT: await range(1),
    CLUSTER_MONGODB_PORT: await range(1),
  };
}
