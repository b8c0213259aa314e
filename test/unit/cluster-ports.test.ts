/** Free ports for a cluster (supervisor/cluster/ports.ts): outside the ephemeral range, no two settings sharing one. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freeClusterPorts, freePortRange } from '../../supervisor/cluster/ports';

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
});
