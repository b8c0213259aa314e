/**
 * The tools every session has: `reach_route`, `reach_send`, `reach_reply` (reply-tool.ts), `reach_plan_and_run`
 * (plan-and-run.ts), `reach_status`,
 * `reach_search_agents`. Each takes
 * the arguments of its REST twin (the same zod schemas, so the same rules and messages) and needs the same scope.
 */
import { z } from 'zod';
import { agentView } from '../../catalogue/views';
import { hasScope } from '../../rules/api-key';
import { requireScope } from '../caller-auth';
import { dryRun } from '../routes/route';
import { messageIdParams, routeBody, searchAgentsQuery, sendMessageBody } from '../schemas';
import { parseInput } from '../validate';
import { inputSchemaOf, type ReachTool } from './reach-tool';
import { planAndRunTool } from './plan-and-run';
import { replyTool } from './reply-tool';
import { sendAndWait, withLinks } from './send-and-wait';
import { toolError, toolValue } from './tool-result';

const { shape: sendShape } = sendMessageBody;
/** `reach_send`: the body of `POST /v1/messages`, and how long to wait for the outcome. */
function sendArguments(maxWaitMs: number) {
  return z.strictObject({
    ...sendShape,
    wait_ms: z
      .number()
      .int()
      .min(0)
      .max(maxWaitMs)
      .optional()
      .describe(
        `How long to wait for the message to end, in ms (0 = do not wait; at most and by default ${maxWaitMs})`,
      ),
  });
}

const routeTool: ReachTool = {
  scope: 'send',
  definition: {
    name: 'reach_route',
    title: 'Route an intent (dry run)',
    description:
      'Asks the Agent-Reach router which agent capability would handle an intent, and why (its explanation: candidates, ' +
      'scores, eligibility). Nothing is sent. Give `intent` (any language), optionally `target.agent_id` to choose only ' +
      "among that agent's capabilities, and `params` already known.",
    inputSchema: inputSchemaOf(routeBody),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async run(deps, call, args) {
    const caller = requireScope(call.caller, 'send');
    return toolValue(await dryRun(deps, caller, parseInput(routeBody, args, 'arguments')));
  },
};

function sendTool(maxWaitMs: number): ReachTool {
  const sendArgs = sendArguments(maxWaitMs);
  return {
    scope: 'send',
    definition: {
      name: 'reach_send',
      title: 'Send a message to an agent',
      description:
        'Sends a message through Agent-Reach, delivered durably (retried, at most once in effect per message_id). Either ' +
        '`target: {agent_id, capability}` names the capability, or `intent` (any language) lets the router choose one. ' +
        '`params` are the capability parameters, `payload` any JSON. Waits up to `wait_ms` for the agent to finish and ' +
        'returns the final status with its `result`; if it is still running then, returns the `message_id` to read ' +
        'later with reach_status. Sending the same `message_id` again never does the work twice.',
      inputSchema: inputSchemaOf(sendArgs),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: true },
    },
    async run(deps, call, args) {
      const { wait_ms, ...rest } = parseInput(sendArgs, args, 'arguments');
      const body = parseInput(sendMessageBody, rest, 'arguments');
      return sendAndWait(deps, call, body, wait_ms ?? maxWaitMs);
    },
  };
}

const statusTool: ReachTool = {
  scope: 'read',
  definition: {
    name: 'reach_status',
    title: 'Read a message',
    description:
      "A message's status (a read: it succeeds whatever the message's outcome): state (accepted, routing, delivering, delivered, processed, or failed, rejected, cancelled, " +
      'expired), its result or reason, the agent and every delivery attempt.',
    inputSchema: inputSchemaOf(messageIdParams),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async run(deps, call, args) {
    const { tenant } = requireScope(call.caller, 'read');
    const { message_id } = parseInput(messageIdParams, args, 'arguments');
    const status = await deps.messages.get(tenant, message_id);
    if (!status) return toolError('message_not_found', `No message ${message_id}`);
    return toolValue(withLinks(deps, status));
  },
};

const searchAgentsTool: ReachTool = {
  scope: 'read',
  definition: {
    name: 'reach_search_agents',
    title: 'Search the agent catalogue',
    description:
      'Searches the agents registered in Agent-Reach: free text `q` (any language, over names, descriptions, tags, ' +
      'capabilities and examples), `tag`, `capability` name, `state` (online, offline, healthy, busy, draining). ' +
      'Returns agent cards with their capabilities (parameter schemas included) and instances; page with `cursor`.',
    inputSchema: inputSchemaOf(searchAgentsQuery),
    annotations: { readOnlyHint: true, openWorldHint: false },
  },
  async run(deps, call, args) {
    const { tenant } = requireScope(call.caller, 'read');
    const query = parseInput(searchAgentsQuery, args ?? {}, 'arguments');
    const { index, policy, now } = deps.catalogue;
    await index.ensureCurrent(deps.logger);
    const at = now();
    const page = index.search(tenant, query, at, policy);
    return toolValue({
      items: page.items.map((item) => agentView(item, at, policy)),
      ...(page.next_cursor ? { next_cursor: page.next_cursor } : {}),
    });
  },
};

export function reachTools(maxWaitMs: number): ReachTool[] {
  return [
    routeTool,
    sendTool(maxWaitMs),
    replyTool(maxWaitMs),
    planAndRunTool(maxWaitMs),
    statusTool,
    searchAgentsTool,
  ];
}

export { inputSchemaOf, type ReachTool } from './reach-tool';

/** The tools of `reachTools` the caller's key may use. */
export function visibleReachTools(tools: ReachTool[], caller: { scopes: readonly string[] }): ReachTool[] {
  return tools.filter((tool) => hasScope(caller, tool.scope));
}
