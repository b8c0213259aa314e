/**
 * The tests' A2A agents as child processes (test/helpers/a2a-js-agent.ts on `@a2a-js/sdk`, test/helpers/a2a_agent.py
 * on the PyPI `a2a-sdk`): started on a free port, ready when they print their URLs. Used by the A2A delivery test
 * and `npm run bench:a2a`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { python } from './python';

const ROOT = join(__dirname, '../..');
const COMMANDS = {
  js: [join(ROOT, 'node_modules/.bin/tsx'), ['test/helpers/a2a-js-agent.ts']],
  python: [python, ['test/helpers/a2a_agent.py']],
} as const;

export interface A2aAgentProcess {
  url: string;
  cardUrl: string;
  process: ChildProcess;
  /** What the agent received: messages, counts per message id, cancelled task ids. */
  received(): Promise<{
    messages: { message_id: string; text: string; data: unknown; context_id: string; task_id: string; metadata: any }[];
    counts: Record<string, number>;
    cancelled: string[];
  }>;
  stop(): Promise<void>;
}

/** Starts the `kind` agent named `name` (env: A2A_AGENT_WORK_MS, A2A_AGENT_PUSH, A2A_AGENT_REST, …); resolves when it is ready. */
export function startA2aAgentProcess(
  kind: keyof typeof COMMANDS,
  name: string,
  env: Record<string, string> = {},
): Promise<A2aAgentProcess> {
  const [command, args] = COMMANDS[kind];
  const child = spawn(command, [...args], {
    cwd: ROOT,
    env: { ...process.env, A2A_AGENT_NAME: name, A2A_AGENT_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => reject(new Error(`${name} exited ${code} before it was ready:\n${stderr}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => {
      const { url, card_url } = JSON.parse(line) as { url: string; card_url: string };
      resolve({
        url,
        cardUrl: card_url,
        process: child,
        received: async () => (await fetch(`${url}/received`)).json() as never,
        stop: () =>
          new Promise<void>((done) => {
            if (child.exitCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
  });
}
