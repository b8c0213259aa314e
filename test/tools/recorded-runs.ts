/**
 * What the recording tools share: each scenario is run, its history stored as `<prefix><name>.json` in the folder,
 * and its workflow id kept in the folder's `workflow-ids.json` (sorted), which the replay test reads beside it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { resolveTemporalCli } from '../../supervisor/binaries';
import { startFakeAgent, type Behaviour } from '../helpers/fake-agent';
import { registerAgent } from '../helpers/http';
import { startTestServers } from '../helpers/servers';
import { startSystem, type TestSystem } from '../helpers/system';

export interface RecordedRuns {
  dir: string;
  prefix: string;
  /** The Temporal CLI that shows the histories, and the server and namespace they are on. */
  cliPath: string;
  address: string;
  namespace: string;
  /** Each scenario by name: runs it, and says which workflow ran (which run of it: the latest by default) and how it ended. */
  scenarios: Record<string, () => Promise<{ workflowId: string; runId?: string; outcome: string }>>;
  /** Rewrites a history before it is stored (e.g. to leave out what names the recording machine). */
  clean?: (history: unknown) => unknown;
}

/** The ending of a run as the recording tools print it. */
export function outcomeOf(run: Promise<{ state: string }>): Promise<string> {
  return run.then(
    (status) => status.state,
    (error: Error) => `failed: ${(error.cause as Error | undefined)?.message ?? error.message}`,
  );
}

export async function recordRuns(options: RecordedRuns): Promise<void> {
  const { dir, prefix, clean } = options;
  mkdirSync(dir, { recursive: true });
  const idsFile = join(dir, 'workflow-ids.json');
  const workflowIds: Record<string, string> = existsSync(idsFile) ? JSON.parse(readFileSync(idsFile, 'utf8')) : {};
  for (const [name, run] of Object.entries(options.scenarios)) {
    const { workflowId, runId, outcome } = await run();
    const file = `${prefix}${name}.json`;
    const which = ['-w', workflowId, ...(runId ? ['-r', runId] : [])];
    const history = execFileSync(
      options.cliPath,
      ['workflow', 'show', '--address', options.address, '--namespace', options.namespace, ...which, '-o', 'json'],
      { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
    );
    writeFileSync(join(dir, file), clean ? `${JSON.stringify(clean(JSON.parse(history)), null, 2)}\n` : history);
    workflowIds[file] = workflowId;
    console.log(`${file}: ${outcome}`);
  }
  const sorted = Object.fromEntries(Object.entries(workflowIds).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(idsFile, `${JSON.stringify(sorted, null, 2)}\n`);
}

/** What a recording tool runs its scenarios against: the whole system on local servers and one fake agent. */
export interface RecordingSetup {
  dir: string;
  prefix: string;
  /** How the fake agent answers, and the capabilities it registers. */
  answer: Behaviour;
  capabilities: Record<string, unknown>[];
  /** The scenarios, given the system and the registered agent's id. */
  scenarios(system: TestSystem, agentId: string): RecordedRuns['scenarios'];
  clean?: RecordedRuns['clean'];
  /** Settings of the system beyond the recorders' own. */
  env?: Record<string, string>;
}

export async function recordAgainstSystem(setup: RecordingSetup): Promise<void> {
  const cli = await resolveTemporalCli();
  if ('sdkDownload' in cli) throw new Error(`recording needs the Temporal CLI: ${cli.reason}`);
  const servers = await startTestServers();
  const system = await startSystem(servers, { HEARTBEAT_TTL_MS: '3600000', ...setup.env });
  const agent = await startFakeAgent(setup.answer);
  try {
    const registered = await registerAgent(system.baseUrl, agent.url, { capabilities: setup.capabilities });
    agent.secret = registered.secret;
    await recordRuns({
      dir: setup.dir,
      prefix: setup.prefix,
      cliPath: cli.path,
      address: servers.temporalAddress,
      namespace: system.config.TEMPORAL_NAMESPACE,
      scenarios: setup.scenarios(system, registered.agent_id),
      ...(setup.clean ? { clean: setup.clean } : {}),
    });
  } finally {
    await agent.stop();
    await system.stop();
    await servers.stop();
  }
}
