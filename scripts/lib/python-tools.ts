/**
 * The Python test tools: independent clients from PyPI (MCP, A2A SDK, Schemathesis) in one venv under the cache
 * folder, `<cache>/venv`. `npm test` and `.ci/run` make it the same way (`npm run python-tools`): the venv once, then
 * the pinned packages whenever the pins change (a stamp file in the venv records the pins installed).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../platform/cache-dir';
import { runWithProgress } from './binaries';

/** What the tests use: mcp (test/integration/mcp-python), a2a-sdk + uvicorn (a2a-face, a2a-delivery), Schemathesis. */
export const PYTHON_TOOL_PINS = ['mcp==2.3.0', 'a2a-sdk[http-server]==1.3.0', 'uvicorn==0.54.0', 'schemathesis==4.32.5'];

type Log = (line: string) => void;

export function venvDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'venv');
}

const stampFile = () => join(venvDir(), 'agent-reach-pins.txt');
const pinsText = () => `${PYTHON_TOOL_PINS.join('\n')}\n`;

/** Whether the venv holds exactly the pinned packages (as far as the stamp of the last install tells). */
export function pythonToolsReady(): boolean {
  return existsSync(stampFile()) && readFileSync(stampFile(), 'utf8') === pinsText();
}

/** Makes the venv and installs the pins into it, unless done already. Throws with the step that failed and why. */
export async function ensurePythonTools(log: Log): Promise<string> {
  const python = join(venvDir(), 'bin', 'python');
  if (pythonToolsReady()) return python;
  mkdirSync(cacheDir(), { recursive: true });
  if (!existsSync(python)) {
    const made = spawnSync('python3', ['-m', 'venv', venvDir()], { encoding: 'utf8' });
    if (made.error) throw new Error('python3 not found: install Python 3 (Debian: apt-get install python3-venv)');
    if (made.status !== 0) throw new Error(`python3 -m venv failed (Debian: apt-get install python3-venv): ${made.stderr.trim()}`);
  }
  await runWithProgress(
    `Installing the Python test tools from PyPI (${PYTHON_TOOL_PINS.join(', ')}; about a minute)`,
    python,
    ['-m', 'pip', 'install', '--disable-pip-version-check', ...PYTHON_TOOL_PINS],
    { logFile: join(cacheDir(), 'pip-install.log') },
    log,
  );
  writeFileSync(stampFile(), pinsText());
  return python;
}
