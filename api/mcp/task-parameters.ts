/**
 * A task's call that lacks required parameters of its capability (2026-07-28: an input_required round composed with
 * the Tasks extension, SEP-2663): the client is asked for them before the message starts — before the task exists —
 * with an input_required result: one elicitation under PARAMETERS_KEY whose requested schema is the capability's JSON
 * Schema of the missing parameters, its state sealed for the tool (input-rounds.ts). The client calls again with the
 * answer: an accepted elicitation's content is merged over the arguments, and with nothing missing the message starts
 * (the CreateTaskResult). Asked only of a client that declared elicitation, and only for parameters a form can hold
 * (strings, numbers, booleans); otherwise the call is refused as before, naming the missing arguments.
 */
import { missingRequired } from '../../router/extraction';
import { elicitationOf, isFlatForm } from './asking';
import type { CapabilityTool } from './capability-tools';
import type { ToolCall } from './context';
import type { AgentInputRequired } from './mcp-results';

/** The key of the gateway's one input request for missing parameters. */
export const PARAMETERS_KEY = 'parameters';

type Arguments = Record<string, unknown> | undefined;

/** The arguments with the client's answer to the gateway's question merged over them (when this round answers it). */
export function answeredArguments(call: ToolCall, args: Arguments): Arguments {
  const response = call.round?.parameters ? call.round.inputResponses?.[PARAMETERS_KEY] : undefined;
  const { action, content } = (response ?? {}) as { action?: unknown; content?: unknown };
  if (action !== 'accept' || typeof content !== 'object' || content === null) return args;
  return { ...args, ...(content as Record<string, unknown>) };
}

/** The question for the required parameters `args` lacks, or undefined (none missing, or the client cannot be asked). */
export function parametersQuestion(
  call: ToolCall,
  tool: CapabilityTool,
  args: Arguments,
): AgentInputRequired | undefined {
  if (!call.round?.clientCapabilities.elicitation || !tool.reachable || !tool.parametersJson) return undefined;
  const parameters = JSON.parse(tool.parametersJson) as { properties?: Record<string, unknown> };
  // Top-level names only: a form cannot hold an object's missing field.
  const missing = missingRequired(parameters, args ?? {}).filter((name) => !name.includes('.'));
  if (missing.length === 0) return undefined;
  const properties = Object.fromEntries(missing.map((key) => [key, parameters.properties?.[key] ?? {}]));
  const schema = { type: 'object', properties, required: missing };
  if (!isFlatForm(schema)) return undefined;
  const question = elicitationOf({ message: `${tool.capability} needs: ${missing.join(', ')}`, schema });
  return { resultType: 'input_required', inputRequests: { [PARAMETERS_KEY]: question }, asksParameters: true };
}
