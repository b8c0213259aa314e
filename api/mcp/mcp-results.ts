/**
 * An agent's result passed on as the MCP result itself, when it has that result's shape: a tool result
 * (`{content: [text | image | audio | resource | resource_link …], structuredContent?, isError?}`), a prompt
 * (`{messages: […]}`) or a resource's contents (`{contents: […]}`), checked against the SDK's schemas. An agent that
 * answers this way chooses what the MCP client sees (images, audio, embedded resources, a tool error of its own);
 * any other result is shown as JSON, as before. The message id rides along in `_meta`. On 2026-07-28, an agent may
 * also answer with an input_required result (input-rounds.ts).
 */
import {
  CallToolResultSchema,
  GetPromptResultSchema,
  ReadResourceResultSchema,
  type CallToolResult,
  type GetPromptResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { Continuation } from './context';

/** Where a passed-on result names the message that produced it. */
export const MESSAGE_ID_META = 'agent-reach/message_id';

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function parsed<T>(schema: z.ZodType<T>, key: string, value: unknown, messageId: string): T | undefined {
  if (!isObject(value) || !Array.isArray(value[key])) return undefined;
  const result = schema.safeParse(value);
  if (!result.success) return undefined;
  const meta = isObject(value._meta) ? value._meta : {};
  return { ...value, _meta: { ...meta, [MESSAGE_ID_META]: messageId } } as T;
}

/** An agent asking the MCP client for input (2026-07-28, input-rounds.ts). */
export interface AgentInputRequired {
  resultType: 'input_required';
  inputRequests?: Record<string, unknown>;
  requestState?: string;
  /** The gateway's own question instead (asking.ts): the message the answer continues, sealed into the requestState. */
  continues?: Continuation;
  /** The gateway's question for a task's missing parameters (task-parameters.ts), sealed into the requestState. */
  asksParameters?: true;
}

export function asInputRequired(value: unknown): AgentInputRequired | undefined {
  if (!isObject(value) || value.resultType !== 'input_required') return undefined;
  const { inputRequests, requestState } = value;
  if (inputRequests !== undefined && !isObject(inputRequests)) return undefined;
  if (requestState !== undefined && typeof requestState !== 'string') return undefined;
  if (inputRequests === undefined && requestState === undefined) return undefined;
  return {
    resultType: 'input_required',
    ...(inputRequests ? { inputRequests } : {}),
    ...(requestState !== undefined ? { requestState } : {}),
  };
}

export function isInputRequired(value: unknown): value is AgentInputRequired {
  return isObject(value) && value.resultType === 'input_required';
}

export function asToolResult(value: unknown, messageId: string): CallToolResult | undefined {
  return parsed(CallToolResultSchema as unknown as z.ZodType<CallToolResult>, 'content', value, messageId);
}

export function asPromptResult(value: unknown, messageId: string): GetPromptResult | undefined {
  return parsed(GetPromptResultSchema as unknown as z.ZodType<GetPromptResult>, 'messages', value, messageId);
}

export function asResourceResult(value: unknown, messageId: string): ReadResourceResult | undefined {
  return parsed(ReadResourceResultSchema as unknown as z.ZodType<ReadResourceResult>, 'contents', value, messageId);
}
