/**
 * `npm test`: finds or builds the Temporal CLI and FerretDB, fetches the router's models and makes the venv of the
 * Python test tools and the MCP conformance suite first (so no test times out on a set-up), then runs every test file with Node's test runner.
 * `npm test -- unit` (or integration, e2e, or a path part) filters; the whole run (no filter) also runs `npm run lint`
 * and fails if it does.
 *
 * A test that needs a system package the machine lacks (HAProxy, PostgreSQL, Chromium) skips, saying what to install; the run
 * ends with the list of skips and their reasons. REQUIRE_ALL_SUITES=1 (`.ci/run`) turns any skip into a failure.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { DEFAULT_LOCAL_MODELS } from '../../router/create-matcher';
import { obtainModel } from '../../router/embeddings/model-files';
import { resolveFerretDb, resolveTemporalCli } from '../../supervisor/binaries';
import { ensureConformanceTools } from './mcp-conformance-tools';
import { ensurePythonTools } from './python-tools';
import { resolveTemporalServer } from '../../supervisor/temporal-server-binaries';
import { clusterSkip } from '../helpers/system-packages';

const ROOT = resolve(__dirname, '../..');
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

type Log = (line: string) => void;

interface Skip {
  file?: string;
  name?: string;
  reason: string;
}

function readSkips(file: string): Skip[] | undefined {
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Skip);
}

/** The closing summary: each skipped test with its reason; whether that is a failure here. */
function reportSkips(skips: Skip[] | undefined, requireAll: boolean, log: Log): boolean {
  if (!skips) {
    log('no skip report: the test runner stopped early');
    return true;
  }
  if (skips.length === 0) {
    log('nothing skipped');
    return true;
  }
  log(`${skips.length} skipped${requireAll ? ' (REQUIRE_ALL_SUITES=1: a skip fails the run)' : ''}:`);
  for (const skip of skips) log(`  ${skip.file ? relative(ROOT, skip.file) : '?'} › ${skip.name}: ${skip.reason}`);
  return !requireAll;
}

/** The router's local models (the routing tests fall back to lexical matching when they cannot be had). */
async function obtainModels(log: Log): Promise<void> {
  await Promise.all(
    DEFAULT_LOCAL_MODELS.map(async (id) => {
      const files = await obtainModel(id, (line) => log(`model ${id}: ${line}`));
      log(files ? `model ${id}: ${files.model}` : `model ${id}: unavailable, routing tests use lexical matching`);
    }),
  );
}

/** The Python clients (a pip install, once). Without them their tests skip, saying why; unless all must run. */
async function preparePythonTools(requireAll: boolean, log: Log): Promise<void> {
  try {
    log(`Python test tools: ${await ensurePythonTools(log)}`);
  } catch (error) {
    if (requireAll) throw error;
    log(`Python test tools unavailable (${(error as Error).message}); their tests skip`);
  }
}

/** The MCP conformance suite and its Node 22 (an npm install, once). Without them its test skips, saying why. */
async function prepareConformanceTools(requireAll: boolean, log: Log): Promise<void> {
  try {
    log(`MCP conformance suite: ${(await ensureConformanceTools(log)).cli}`);
  } catch (error) {
    if (requireAll) throw error;
    log(`MCP conformance suite unavailable (${(error as Error).message}); its test skips`);
  }
}

/** The servers the tests start, found or built one after the other (each Go build takes every core); their paths as env. */
async function prepareServers(withCluster: boolean, log: Log): Promise<NodeJS.ProcessEnv> {
  const temporal = await resolveTemporalCli(log);
  if ('sdkDownload' in temporal) throw new Error(`the tests need the Temporal CLI: ${temporal.reason}`);
  const ferret = await resolveFerretDb(log);
  log(`Temporal CLI: ${temporal.path} (${temporal.source}); FerretDB: ${ferret.path} (${ferret.source})`);
  // The judge (ROUTER_JUDGE=auto by default) would load a 1.2 GB model into every gateway a test starts: the tests
  // that read it ask for it themselves.
  const env: NodeJS.ProcessEnv = {
    TEMPORAL_CLI_PATH: temporal.path,
    FERRETDB_PATH: ferret.path,
    ROUTER_JUDGE: process.env.ROUTER_JUDGE ?? 'off',
  };
  if (withCluster) {
    const cluster = await resolveTemporalServer(log);
    log(`Temporal server: ${cluster.server.path} (${cluster.server.source})`);
    Object.assign(env, { TEMPORAL_SERVER_PATH: cluster.server.path, TEMPORAL_SQL_TOOL_PATH: cluster.sqlTool.path });
  }
  return env;
}

/** `npm run lint` (eslint.config.mjs), for the whole run: whether it passed. */
function lint(log: Log): boolean {
  log('npm run lint');
  const result = spawnSync('npm', ['run', '--silent', 'lint'], { cwd: ROOT, stdio: 'inherit' });
  log(result.status === 0 ? 'lint: clean' : 'lint: failed (above)');
  return result.status === 0;
}

/** Runs the files with Node's test runner; its exit status and the skips it reported (undefined if it stopped early). */
function runTestFiles(files: string[], env: NodeJS.ProcessEnv): { status: number; skips: Skip[] | undefined } {
  const reportDir = mkdtempSync(join(tmpdir(), 'agent-reach-test-'));
  const skipFile = join(reportDir, 'skips.jsonl');
  try {
    const result = spawnSync(
      process.execPath,
      [
        '--import',
        'tsx',
        '--test',
        '--test-concurrency=2',
        '--test-timeout=180000',
        '--test-reporter=spec',
        '--test-reporter-destination=stdout',
        `--test-reporter=${join(__dirname, 'skip-reporter.mjs')}`,
        `--test-reporter-destination=${skipFile}`,
        ...files,
      ],
      { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } },
    );
    return { status: result.status ?? 1, skips: readSkips(skipFile) };
  } finally {
    rmSync(reportDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const files = testFiles(process.argv.slice(2));
  if (files.length === 0) throw new Error(`no test file matches ${process.argv.slice(2).join(' ')}`);
  const log: Log = (line) => console.log(`[test] ${line}`);
  const requireAll = process.env.REQUIRE_ALL_SUITES === '1';
  // Downloads (models, the Python clients; the unit tests need none of these) go beside the builds.
  const needsPython = files.some((file) => !file.startsWith(join('test', 'unit')));
  const needsConformance = files.some((file) => file.includes('mcp-conformance'));
  const downloads = Promise.all([
    obtainModels(log),
    needsPython ? preparePythonTools(requireAll, log) : undefined,
    needsConformance ? prepareConformanceTools(requireAll, log) : undefined,
  ]);
  downloads.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
  // Cluster mode's Temporal server (a long build) only for a cluster test that will run.
  const withCluster = files.some((file) => file.startsWith(join('test', 'cluster'))) && !clusterSkip();
  const env = await prepareServers(withCluster, log);
  await downloads;
  const { status, skips } = runTestFiles(files, env);
  const skipsAllowed = reportSkips(skips, requireAll, log);
  const linted = process.argv.length > 2 || lint(log);
  process.exit(status === 0 && (!skipsAllowed || !linted) ? 1 : status);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
