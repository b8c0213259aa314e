/**
 * Free ports for a cluster (supervisor/cluster/ports.ts): outside the ephemeral range, no two settings sharing one, and
 * none that another living process has leased.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freeClusterPorts, freePortRange, leasePort } from '../../supervisor/cluster/ports';

const SPANS: Record<string, number> = {
  CLUSTER_PORT: 4,
  CLUSTER_TEMPORAL_PORT: 15,
  CLUSTER_POSTGRES_PORT: 1,
  CLUSTER_MONGODB_PORT: 1,
};

describe('cluster ports', () => {
  it('cluster ports - every port lies below the ephemeral range (32768), and no two settings share a port', async () => {
    for (let round = 0; round < 20; round++) {
      const settings = await freeClusterPorts();
      const ports = Object.entries(SPANS).flatMap(([name, span]) =>
        Array.from({ length: span }, (_, i) => Number(settings[name]) + i),
      );
      assert.equal(ports.length, 21);
      assert.equal(new Set(ports).size, ports.length, JSON.stringify(settings));
      for (const port of ports) assert.ok(port >= 20_000 && port < 32_768, `${port}`);
    }
  });

  it('cluster ports - a range never includes a taken port', async () => {
    // Every port from 22,000 up taken: the range must land below it (a random try does so 1 time in 6).
    const taken = new Set(Array.from({ length: 10_768 }, (_, i) => 22_000 + i));
    for (let round = 0; round < 20; round++) {
      const base = await freePortRange(3, taken);
      assert.ok(base >= 20_000 && base + 2 < 22_000, `${base}`);
    }
  });

  describe('leases', () => {
    let leases: string;
    let living: ChildProcess;
    let deadPid: number;
    before(() => {
      leases = mkdtempSync(join(tmpdir(), 'port-leases-'));
      living = spawn('sleep', ['60'], { stdio: 'ignore' });
      deadPid = spawnSync('true').pid;
    });
    after(() => {
      living.kill();
      rmSync(leases, { recursive: true, force: true });
    });
    const holder = (port: number) => readFileSync(join(leases, String(port)), 'utf8');
    const leaseTo = (port: number, pid: number) => writeFileSync(join(leases, String(port)), String(pid));

    it('cluster ports - the lease folder is made as /tmp is, for every user of the machine: writable by all, sticky', () => {
      const shared = join(leases, 'made-here');
      assert.equal(leasePort(20_050, shared), true);
      assert.equal(statSync(shared).mode & 0o7777, 0o1777);
    });

    it('cluster ports - a free port is leased to this process, once: a second lease of it is refused', () => {
      assert.equal(leasePort(20_100, leases), true);
      assert.equal(holder(20_100), String(process.pid));
      assert.equal(leasePort(20_100, leases), false);
    });

    it("cluster ports - another living process's lease is refused; a dead process's lease is taken over", () => {
      leaseTo(20_200, living.pid!);
      assert.equal(leasePort(20_200, leases), false);
      assert.equal(holder(20_200), String(living.pid));
      leaseTo(20_201, deadPid);
      assert.equal(leasePort(20_201, leases), true);
      assert.equal(holder(20_201), String(process.pid));
    });

    it('cluster ports - a lease being written (an empty file) is held', () => {
      writeFileSync(join(leases, '20300'), '');
      assert.equal(leasePort(20_300, leases), false);
    });

    it('cluster ports - a range never includes a port another living process leased, and its ports are leased to this one', async () => {
      // Ports from 22,000 up taken, and 20,000–20,999 leased to a living process: every range lands in 21,000–21,999.
      const taken = new Set(Array.from({ length: 10_768 }, (_, i) => 22_000 + i));
      for (let port = 20_000; port < 21_000; port++) leaseTo(port, living.pid!);
      for (let round = 0; round < 10; round++) {
        const base = await freePortRange(3, taken, leases);
        assert.ok(base >= 21_000 && base + 2 < 22_000, `${base}`);
        for (let i = 0; i < 3; i++) assert.equal(holder(base + i), String(process.pid));
      }
    });
  });
});
