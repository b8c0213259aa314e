/**
 * Last resort of embedded mode when no Temporal CLI can be found or built: the Temporal SDK downloads its own
 * dev server. Needs internet access, so it fails on machines that only reach package registries.
 */
import { TestWorkflowEnvironment } from '@temporalio/testing';
import type { LocalServer } from './dev-servers';

export async function startTemporalBySdkDownload(options: {
  port: number;
  uiPort: number;
  dbFile: string;
  namespace: string;
  searchAttributes?: Record<string, string>;
}): Promise<LocalServer & { address: string }> {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      ip: '127.0.0.1',
      port: options.port,
      ui: true,
      uiPort: options.uiPort,
      dbFilename: options.dbFile,
      namespace: options.namespace,
      extraArgs: Object.entries(options.searchAttributes ?? {}).flatMap(([name, type]) => [
        '--search-attribute',
        `${name}=${type}`,
      ]),
    },
  });
  return {
    name: 'temporal',
    // The SDK owns the process and does not report its exit.
    exited: new Promise(() => undefined),
    address: `127.0.0.1:${options.port}`,
    stop: () => env.teardown(),
  };
}
