/**
 * Real Temporal dev server and FerretDB for integration tests: free ports, temporary data folders, torn down after.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resolveFerretDb, resolveTemporalCli } from '../../supervisor/binaries';
import { devServerSearchAttributes } from '../../messages/search-attributes';
import { freePort, startFerretDb, startTemporalDevServer } from '../../supervisor/dev-servers';

export interface TestServers {
  temporalAddress: string;
  mongoUri: string;
  dataDir: string;
  /** Stops the database (FerretDB) only, keeping its port and data, as an outage would. */
  stopDatabase(): Promise<void>;
  /** Starts it again on the same port and data after `stopDatabase`. */
  startDatabase(): Promise<void>;
  stop(): Promise<void>;
}

/** Binds `port` and resets every connection to it, as a stopped server's port would. */
async function holdPort(port: number): Promise<{ close(): Promise<void> }> {
  const server = createNetServer((socket) => socket.destroy());
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return { close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function startTestServers(): Promise<TestServers> {
  const dataDir = mkdtempSync(join(tmpdir(), 'agent-reach-test-'));
  const temporalCli = await resolveTemporalCli();
  if ('sdkDownload' in temporalCli) throw new Error(`no Temporal CLI for the tests: ${temporalCli.reason}`);
  const ferretBinary = await resolveFerretDb();
  const ferretPort = await freePort();
  const ferretOptions = {
    binary: ferretBinary.path,
    port: ferretPort,
    dataDir: join(dataDir, 'ferretdb'),
    logFile: join(dataDir, 'ferretdb.log'),
  };
  const startTemporal = async () =>
    startTemporalDevServer({
      binary: temporalCli.path,
      port: await freePort(),
      namespace: 'default',
      logFile: join(dataDir, 'temporal.log'),
      searchAttributes: devServerSearchAttributes(),
    });
  // The dev server binds ports of its own choosing beside ours; with test files starting servers side by side, one
  // may be taken between its choice and its bind (it exits at once): then start it again, on new ports.
  const [temporal, firstFerret] = await Promise.all([
    startTemporal().catch(startTemporal).catch(startTemporal),
    startFerretDb(ferretOptions),
  ]);
  let ferret: Awaited<ReturnType<typeof startFerretDb>> | undefined = firstFerret;
  let placeholder: { close(): Promise<void> } | undefined;
  return {
    temporalAddress: temporal.address,
    mongoUri: `${firstFerret.uri}/agent-reach-test`,
    dataDir,
    async stopDatabase() {
      await ferret?.stop();
      ferret = undefined;
      // Nobody else may take the port meanwhile (other test processes ask for free ports): held, accepting nothing.
      placeholder = await holdPort(ferretPort);
    },
    async startDatabase() {
      await placeholder?.close();
      placeholder = undefined;
      ferret ??= await startFerretDb(ferretOptions);
    },
    async stop() {
      await Promise.allSettled([temporal.stop(), ferret?.stop()]);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
