/** `npm run servers`: finds or builds the Temporal CLI and FerretDB now, and prints where they are. */
import { resolveFerretDb, resolveTemporalCli } from './lib/binaries';

async function main(): Promise<void> {
  const log = (line: string) => console.log(line);
  const temporal = await resolveTemporalCli(log);
  console.log('sdkDownload' in temporal ? `Temporal CLI: none (${temporal.reason})` : `Temporal CLI: ${temporal.path} (${temporal.source})`);
  const ferret = await resolveFerretDb(log);
  console.log(`FerretDB:     ${ferret.path} (${ferret.source})`);
  if ('sdkDownload' in temporal) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
