/**
 * The mapping's type check, before a chain runs: where a step's input reads a pointer and the destination
 * capability declares `parameters`, the pointer must resolve (in the chain input, or in the source capability's
 * `returns`) and the JSON types must agree. Pure: the capabilities' schemas are looked up beforehand.
 */
import type { StepAddress } from './chain';
import type { PlanIssue, PlannedStep } from './plan';
import { pointerOf, refsIn, resolvePointer, sourceOf } from './pointer';

/** A capability's declared schemas (JSON Schema objects), as the catalogue keeps them. */
export interface CapabilitySchemas {
  parameters?: Record<string, unknown>;
  returns?: Record<string, unknown>;
}

/** The schemas of `agent_id/capability`, or undefined when the catalogue does not know it. */
export type SchemaLookup = (target: { agent_id: string; capability: string }) => CapabilitySchemas | undefined;

type JsonType = 'string' | 'number' | 'integer' | 'boolean' | 'object' | 'array' | 'null';

export function jsonTypeOf(value: unknown): JsonType {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value as JsonType;
}

/** The types a schema admits, or undefined when it does not say. */
function typesOf(schema: unknown): JsonType[] | undefined {
  if (schema === null || typeof schema !== 'object') return undefined;
  const type = (schema as { type?: unknown }).type;
  if (typeof type === 'string') return [type as JsonType];
  if (Array.isArray(type) && type.every((t) => typeof t === 'string')) return type as JsonType[];
  return undefined;
}

/**
 * The sub-schema at `tokens`: 'unknown' when the schema does not describe it, 'absent' when it lists its properties
 * and not this one (unless `additionalProperties` gives a schema for the others): a pointer must name a declared field.
 */
export function schemaAt(schema: unknown, tokens: readonly string[]): Record<string, unknown> | 'unknown' | 'absent' {
  let here = schema;
  for (const token of tokens) {
    if (here === null || typeof here !== 'object') return 'unknown';
    const node = here as { properties?: Record<string, unknown>; items?: unknown; additionalProperties?: unknown };
    if (node.properties && typeof node.properties === 'object') {
      if (Object.prototype.hasOwnProperty.call(node.properties, token)) here = node.properties[token];
      else if (node.additionalProperties !== null && typeof node.additionalProperties === 'object')
        here = node.additionalProperties;
      else return 'absent';
    } else if (node.items && typeof node.items === 'object') {
      here = node.items;
    } else {
      return 'unknown';
    }
  }
  return here !== null && typeof here === 'object' ? (here as Record<string, unknown>) : 'unknown';
}

function agree(source: readonly JsonType[], destination: readonly JsonType[]): boolean {
  const widened = (types: readonly JsonType[]) =>
    new Set<JsonType>(types.flatMap((t) => (t === 'integer' || t === 'number' ? ['integer', 'number'] : [t])));
  const wanted = widened(destination);
  return [...widened(source)].some((t) => wanted.has(t));
}

/** The types a pointer gives: from the chain input's value, or the source step's declared `returns`. */
function sourceTypes(
  ref: string,
  chainInput: unknown,
  steps: ReadonlyMap<string, PlannedStep>,
  lookup: SchemaLookup,
): { types?: JsonType[] } | { issue: string } {
  const source = sourceOf(ref);
  if (source.kind === 'input') {
    const found = resolvePointer({ input: chainInput }, ref);
    return found.ok ? { types: [jsonTypeOf(found.value)] } : { issue: `${ref} names nothing in the chain's input` };
  }
  if (source.kind !== 'step') return {};
  const target = steps.get(source.step)?.target;
  const returns = target && lookup(target)?.returns;
  if (!returns) return {};
  const at = schemaAt(returns, source.rest);
  if (at === 'absent')
    return { issue: `${ref}: ${target.capability} of step ${source.step} returns no ${pointerOf(source.rest)}` };
  return at === 'unknown' ? {} : { types: typesOf(at) };
}

/** Checks one address (a step or its compensation) against its capability's `parameters`. */
function addressIssue(
  stepId: string,
  where: string,
  address: StepAddress,
  chainInput: unknown,
  steps: ReadonlyMap<string, PlannedStep>,
  lookup: SchemaLookup,
): PlanIssue | undefined {
  const parameters = address.target && lookup(address.target)?.parameters;
  if (!parameters) return undefined;
  // Literal parameters (no pointer in them) are checked as they are.
  const input = address.input;
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    const literals = Object.fromEntries(Object.entries(input).filter(([, value]) => refsIn(value).length === 0));
    const misfit = paramsMisfit(parameters, literals);
    if (misfit) return { step: stepId, code: 'mapping_type_error', message: `${where}/${misfit}` };
  }
  for (const { ref, at } of refsIn(address.input)) {
    const destination = schemaAt(parameters, at);
    const name = `${where}${pointerOf(at) || ' (the whole input)'}`;
    if (destination === 'absent')
      return {
        step: stepId,
        code: 'mapping_type_error',
        message: `${name}: ${address.target!.capability} takes no such parameter`,
      };
    const given = sourceTypes(ref, chainInput, steps, lookup);
    if ('issue' in given) return { step: stepId, code: 'mapping_type_error', message: `${name}: ${given.issue}` };
    const wanted = destination === 'unknown' ? undefined : typesOf(destination);
    if (given.types && wanted && !agree(given.types, wanted)) {
      return {
        step: stepId,
        code: 'mapping_type_error',
        message: `${name}: ${ref} gives ${given.types.join('|')}, ${address.target!.capability} wants ${wanted.join('|')}`,
      };
    }
  }
  return undefined;
}

/** The first mapping whose types do not agree, naming its step. */
export function typeCheck(
  steps: readonly PlannedStep[],
  chainInput: unknown,
  lookup: SchemaLookup,
): PlanIssue | undefined {
  const byId = new Map(steps.map((s) => [s.id, s]));
  for (const step of steps) {
    const issue =
      addressIssue(step.id, 'input', step, chainInput, byId, lookup) ??
      (step.compensate
        ? addressIssue(step.id, 'compensate.input', step.compensate, chainInput, byId, lookup)
        : undefined);
    if (issue) return issue;
  }
  return undefined;
}

/** Whether `params` fit the top-level types `parameters` declares (intent steps, after routing); the first misfit. */
export function paramsMisfit(
  parameters: Record<string, unknown> | undefined,
  params: Record<string, unknown>,
): string | undefined {
  if (!parameters) return undefined;
  for (const [name, value] of Object.entries(params)) {
    const at = schemaAt(parameters, [name]);
    if (at === 'absent') return `${name}: no such parameter`;
    const wanted = at === 'unknown' ? undefined : typesOf(at);
    if (wanted && !agree([jsonTypeOf(value)], wanted))
      return `${name}: ${jsonTypeOf(value)} given, ${wanted.join('|')} wanted`;
  }
  return undefined;
}
