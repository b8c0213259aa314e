/** Starts the simulated agents as child processes (one per role) and lets the harness kill and restart them. */
import { fork, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { AgentConfig, ReadyMessage } from '../agent/config';
import { freePort } from '../../supervisor/dev-servers';
import { PIPELINE, type Role } from './pipeline';
import { stopOnInterrupt } from './cleanup';

const ENTRY = resolve(__dirname, '../agent/main.ts');

export interface AgentProcess {
  role: Role;
  url: string;
  agentId?: string;
  pid(): number | undefined;
  kill(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

export type PipelineAgents = Record<Role, AgentProcess>;

function launch(config: AgentConfig): Promise<{ child: ChildProcess; ready: ReadyMessage }> {
  mkdirSync(config.dir, { recursive: true });
  const log = createWriteStream(join(config.dir, `${config.role}.log`), { flags: 'a' });
  const child = fork(ENTRY, [], {
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_AGENT: JSON.stringify(config) },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  return new Promise((done, fail) => {
    child.once('message', (ready: ReadyMessage) => done({ child, ready }));
    child.once('exit', (code) =>
      fail(
        new Error(`agent ${config.role} exited (${code}) before it was ready; see ${config.dir}/${config.role}.log`),
      ),
    );
  });
}

async function startAgent(config: AgentConfig): Promise<AgentProcess> {
  let current = await launch(config);
  stopOnInterrupt(async () => void current.child.kill('SIGKILL'));
  const gone = (child: ChildProcess) =>
    child.exitCode !== null || child.signalCode !== null
      ? Promise.resolve()
      : new Promise<void>((done) => child.once('exit', () => done()));
  return {
    role: config.role,
    url: `http://127.0.0.1:${config.port}/`,
    ...(current.ready.agentId ? { agentId: current.ready.agentId } : {}),
    pid: () => current.child.pid,
    async kill() {
      current.child.kill('SIGKILL');
      await gone(current.child);
    },
    async start() {
      current = await launch(config);
    },
    async stop() {
      current.child.kill('SIGTERM');
      await gone(current.child);
    },
  };
}

/** Starts the pipeline from its last role backwards, so each agent knows where to send its next hop. */
export async function startPipeline(
  base: Omit<AgentConfig, 'role' | 'port' | 'name' | 'nextUrl' | 'nextAgentId'>,
  runTag: string,
): Promise<PipelineAgents> {
  const agents = {} as PipelineAgents;
  let next: AgentProcess | undefined;
  for (const role of [...PIPELINE].reverse()) {
    const config: AgentConfig = {
      ...base,
      role,
      port: await freePort(),
      name: `bench-${role}-${runTag}`,
      ...(next && base.mode === 'direct' ? { nextUrl: next.url } : {}),
      ...(next?.agentId ? { nextAgentId: next.agentId } : {}),
    };
    next = agents[role] = await startAgent(config);
  }
  return agents;
}

export async function stopPipeline(agents: PipelineAgents): Promise<void> {
  await Promise.all(Object.values(agents).map((agent) => agent.stop()));
}
