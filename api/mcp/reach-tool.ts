/** What a reach tool is (reach-tools.ts lists them): its definition, the scope it needs, and how it runs. */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { BuiltInScope } from '../../rules/api-key';
import type { McpDeps, ToolCall } from './context';
import type { ToolAnswer } from './send-and-wait';

export interface ReachTool {
  definition: Tool;
  /** The scope the key needs; tools it lacks are not listed. */
  scope: BuiltInScope;
  run(deps: McpDeps, call: ToolCall, args: unknown): Promise<ToolAnswer>;
}

/** A tool's input schema for `tools/list`: the zod schema as JSON Schema (what a client may send). */
export function inputSchemaOf(schema: z.ZodType): Tool['inputSchema'] {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<
    string,
    unknown
  >;
  return { ...json, type: 'object' };
}
