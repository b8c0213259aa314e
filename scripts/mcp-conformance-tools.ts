/** `npm run mcp-conformance`: installs the MCP conformance suite and Node 22 (test/runner/mcp-conformance-tools.ts); `.ci/run` runs it. */
import { ensureConformanceTools } from '../test/runner/mcp-conformance-tools';

ensureConformanceTools((line) => console.log(`[mcp-conformance] ${line}`)).then(
  (tools) => console.log(`[mcp-conformance] ready: ${tools.node} ${tools.cli}`),
  (error: unknown) => {
    console.error(`[mcp-conformance] ${(error as Error).message}`);
    process.exit(1);
  },
);
