/**
 * The question a language model answers when the heuristic extraction leaves required parameters empty: the
 * capability, the fields wanted with their schema, the request. The answer's shape is forced by a grammar
 * (fill-schema.ts), so the prompt only has to say where the values come from.
 */
import { describe, type CapabilityCandidate } from '../candidates';
import { MAX_INTENT_CHARS } from './schema';

export interface FillRequest {
  intent: string;
  candidate: CapabilityCandidate;
  /** The capability's parameters (JSON Schema). */
  schema: unknown;
  /** The top-level properties to fill. */
  fields: string[];
  /** Today, in the caller's terms, for relative dates ("tomorrow"). */
  today: string;
}

export const FILL_SYSTEM_PROMPT =
  "You fill in the parameters of a service call from a user's request. Answer with one JSON object. Copy values " +
  'from the request, in its own words and language; use null for every field the request does not state. Never ' +
  'invent a value.';

/** A field as the model reads it: name, type and description, and an object's own fields indented below. */
function fieldLines(name: string, schema: unknown, indent = ''): string[] {
  const s = (schema ?? {}) as {
    type?: unknown;
    description?: unknown;
    enum?: unknown[];
    properties?: Record<string, unknown>;
  };
  const type = Array.isArray(s.enum)
    ? `one of ${s.enum.map((v) => JSON.stringify(v)).join(', ')}`
    : String(s.type ?? 'string');
  const line = `${indent}- ${name} (${type})${typeof s.description === 'string' ? `: ${s.description}` : ''}`;
  const inner = s.properties ? Object.entries(s.properties).flatMap(([k, v]) => fieldLines(k, v, `${indent}  `)) : [];
  return [line, ...inner];
}

export function fillUserPrompt(request: FillRequest): string {
  const properties = (request.schema as { properties?: Record<string, unknown> }).properties ?? {};
  return [
    `Service: ${describe(request.candidate)}`,
    `Today: ${request.today}`,
    'Fields:',
    ...request.fields.flatMap((name) => fieldLines(name, properties[name])),
    '',
    `Request: ${request.intent.slice(0, MAX_INTENT_CHARS)}`,
  ].join('\n');
}
