/**
 * `npm test`: finds or builds the Temporal CLI and FerretDB first (so no test times out on a build), then runs
 * every test file with Node's test runner. `npm test -- unit` (or integration, e2e, or a path part) filters.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { DEFAULT_LOCAL_MODELS } from '../router/create-matcher';
import { obtainModel } from '../router/embeddings/model-files';
import { resolveFerretDb, resolveTemporalCli } from './lib/binaries';
import { resolveTemporalServer } from './lib/temporal-server-binaries';

const ROOT = resolve(__dirname, '..');
const SUITES = ['unit', 'integration', 'e2e', 'cluster'];

function testFiles(filters: string[]): string[] {
  const files = SUITES.flatMap((suite) =>
    readdirSync(join(ROOT, 'test', suite))
      .filter((name) => name.endsWith('.test.ts'))
      .sort()
      .map((name) => relative(ROOT, join(ROOT, 'test', suite, name))),
  );
  return filters.length === 0 ? files : files.filter((file) => filters.some((f) => file.includes(f)));
}

async function main(): Promise<void> {
  const files = testFiles(process.argv.slice(2));
  if (files.length === 0) throw new Error(`no test file matches ${process.argv.slice(2).join(' ')}`);
  const log = (line: string) => console.log(`[test] ${line}`);
  const temporal = await resolveTemporalCli(log);
  if ('sdkDownload' in temporal) throw new Error(`the tests need the Temporal CLI: ${temporal.reason}`);
  const ferret = await resolveFerretDb(log);
  log(`Temporal CLI: ${temporal.path} (${temporal.source}); FerretDB: ${ferret.path} (${ferret.source})`);
  // Cluster mode's Temporal server and SQL tool, when a cluster test is among the files.
  const clusterEnv: NodeJS.ProcessEnv = {};
  if (files.some((file) => file.startsWith(join('test', 'cluster')))) {
    const cluster = await resolveTemporalServer(log);
    log(`Temporal server: ${cluster.server.path} (${cluster.server.source})`);
    Object.assign(clusterEnv, { TEMPORAL_SERVER_PATH: cluster.server.path, TEMPORAL_SQL_TOOL_PATH: cluster.sqlTool.path });
  }
  // The router's local models (the routing tests fall back to lexical matching when they cannot be had).
  for (const id of DEFAULT_LOCAL_MODELS) {
    const files = await obtainModel(id, (line) => log(`model ${id}: ${line}`));
    log(files ? `model ${id}: ${files.model}` : `model ${id}: unavailable, routing tests use lexical matching`);
  }
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-timeout=180000', ...files],
    { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...clusterEnv, TEMPORAL_CLI_PATH: temporal.path, FERRETDB_PATH: ferret.path } },
  );
  process.exit(result.status ?? 1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
