/** `npm run servers`: finds or builds the Temporal CLI, FerretDB and cluster mode's Temporal server now, and prints where they are. */
import { resolveFerretDb, resolveTemporalCli } from './binaries';
import { resolveTemporalServer } from './temporal-server-binaries';

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const temporal = await resolveTemporalCli(log);
  console.log(
    'sdkDownload' in temporal
      ? `Temporal CLI: none (${temporal.reason})`
      : `Temporal CLI: ${temporal.path} (${temporal.source})`,
  );
  const ferret = await resolveFerretDb(log);
  console.log(`FerretDB:     ${ferret.path} (${ferret.source})`);
  const cluster = await resolveTemporalServer(log);
  console.log(
    `Temporal server (cluster mode): ${cluster.server.path} (${cluster.server.source}); SQL tool: ${cluster.sqlTool.path}`,
  );
  if ('sdkDownload' in temporal) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
