/**
 * Routed sub-requests → a chain body: step ids, `after` from how each follows the one before, `when` from its
 * condition, and the `$ref`s that carry values — a value the request names (or the caller gives) goes into the
 * chain input once and every step that declares a parameter of that name reads it from there; an identifier a
 * step needs and an earlier step returns under the same name (`refund_id`, `invoice_id`, `after_sales_id`…) is read
 * from that step's result. Pure: what it cannot plan (a refusal, a condition it cannot read, a required parameter
 * no one gives) is listed beside the plan.
 */
import { isDeepStrictEqual } from 'node:util';
import type { SplitCondition, SubRequest } from './split';
import { conditionWhen, type ConditionSource, type When } from './conditions';

export interface CapabilitySchemas {
  parameters?: Record<string, unknown>;
  returns?: Record<string, unknown>;
}

export interface RoutedSubRequest {
  sub: SubRequest;
  /** Absent when the router refused it (`refusal`). */
  target?: { agent_id: string; capability: string };
  /** What the router extracted from the sub-request's own words. */
  params: Record<string, unknown>;
  schemas: CapabilitySchemas;
  refusal?: { code: string; message: string };
}

export interface ConnectedStep {
  id: string;
  /** The index of its sub-request. */
  part: number;
  target: { agent_id: string; capability: string };
  input: Record<string, { $ref: string }>;
  after: string[];
  when?: When;
  /** The `$ref` of each parameter; `carried`: those the sub-request did not name itself. */
  refs: Record<string, string>;
  carried: string[];
}

export type UnplannedCode = 'refused' | 'condition_not_understood' | 'input_required';

export interface Unplanned {
  code: UnplannedCode;
  /** The sub-request it concerns. */
  text: string;
  step?: string;
  message: string;
  /** `input_required`: the parameters missing, and the JSON Schema of what to add to the chain input. */
  missing?: string[];
  schema?: Record<string, unknown>;
}

export interface Connected {
  input: Record<string, unknown>;
  steps: ConnectedStep[];
  unplanned: Unplanned[];
}

/** Result fields carried from one step to the next by name: identifiers, not prose ("reason", "status"). */
const IDENTIFIER = /(?:_id|_no|_ids|_number)$/;

function propertiesOf(schema: Record<string, unknown> | undefined): Record<string, Record<string, unknown>> {
  const properties = (schema as { properties?: unknown } | undefined)?.properties;
  return properties && typeof properties === 'object' ? (properties as Record<string, Record<string, unknown>>) : {};
}

function requiredOf(schema: Record<string, unknown> | undefined): string[] {
  const required = (schema as { required?: unknown } | undefined)?.required;
  return Array.isArray(required) ? required.filter((r): r is string => typeof r === 'string') : [];
}

/** A step's ancestors: the steps that end before it, through `after`. */
function ancestorsOf(id: string, afterOf: Map<string, string[]>): Set<string> {
  const seen = new Set<string>();
  const stack = [...(afterOf.get(id) ?? [])];
  while (stack.length) {
    const next = stack.pop()!;
    if (seen.has(next)) continue;
    seen.add(next);
    stack.push(...(afterOf.get(next) ?? []));
  }
  return seen;
}

/** The chain input key for a value: its parameter's name, or `<name>_<step>` when that name already holds another value. */
function inputKeyFor(input: Record<string, unknown>, name: string, value: unknown, stepId: string): string {
  if (!(name in input)) input[name] = value;
  if (isDeepStrictEqual(input[name], value)) return name;
  const key = `${name}_${stepId}`;
  input[key] = value;
  return key;
}

const pointerToken = (key: string) => key.replaceAll('~', '~0').replaceAll('/', '~1');

/** The chain being built: its input, the steps so far, what cannot be planned, and each step's `after`. */
interface Building {
  parts: readonly RoutedSubRequest[];
  input: Record<string, unknown>;
  steps: ConnectedStep[];
  unplanned: Unplanned[];
  afterOf: Map<string, string[]>;
  /** Names the plan asks the caller to add to the chain input (`input_required`): later steps read them there too. */
  asked: Set<string>;
}

/**
 * The `$ref` of each parameter: a value the sub-request names goes into the chain input; a declared parameter is read
 * from the chain input when it holds that name or the plan asks the caller for it there, else (an identifier) from the
 * latest earlier step that returns it.
 */
function connectParameters(
  chain: Building,
  step: ConnectedStep,
  part: RoutedSubRequest,
  earlier: ConnectedStep[],
): void {
  for (const [name, value] of Object.entries(part.params)) {
    const key = inputKeyFor(chain.input, name, value, step.id);
    step.refs[name] = `/input/${pointerToken(key)}`;
  }
  for (const name of Object.keys(propertiesOf(part.schemas.parameters))) {
    if (step.refs[name]) continue;
    if (name in chain.input || chain.asked.has(name)) {
      step.refs[name] = `/input/${pointerToken(name)}`;
      step.carried.push(name);
      continue;
    }
    if (!IDENTIFIER.test(name)) continue;
    const source = earlier.find((s) => name in propertiesOf(chain.parts[s.part]!.schemas.returns));
    if (!source) continue;
    step.refs[name] = `/steps/${source.id}/result/${pointerToken(name)}`;
    step.carried.push(name);
    if (!ancestorsOf(step.id, chain.afterOf).has(source.id)) step.after.push(source.id);
  }
}

/** The step's `when` from its sub-request's condition, or an `unplanned` entry when no earlier result can tell it. */
function connectCondition(
  chain: Building,
  step: ConnectedStep,
  condition: SplitCondition,
  earlier: ConnectedStep[],
  previous: ConnectedStep | undefined,
): void {
  const { parts } = chain;
  const sources: ConditionSource[] = earlier.map((s) => ({
    stepId: s.id,
    ...(parts[s.part]!.schemas.returns ? { returns: parts[s.part]!.schemas.returns } : {}),
  }));
  const when = conditionWhen(condition, sources, previous ? parts[previous.part]!.sub.text : undefined);
  if (when) {
    step.when = when;
    const source = /^\/steps\/([^/]+)\//.exec(when.$ref)![1]!;
    if (!ancestorsOf(step.id, chain.afterOf).has(source)) step.after.push(source);
    return;
  }
  const said = condition.text || '(the step before)';
  chain.unplanned.push({
    code: 'condition_not_understood',
    step: step.id,
    text: parts[step.part]!.sub.text,
    message: `step ${step.id} runs only ${condition.otherwise ? 'unless' : 'if'} "${said}", which no earlier step's declared result can tell: add its when, or remove the step`,
  });
}

/**
 * The required parameters no one gives: the step reads each from the chain input under its name, and the plan asks
 * for them (`input_required`, with the JSON Schema of what to add), so the caller adds the values to `input` and posts
 * the plan as it is — or plans again with them given.
 */
function readMissingFromInput(chain: Building, step: ConnectedStep, part: RoutedSubRequest): Unplanned | undefined {
  const properties = propertiesOf(part.schemas.parameters);
  const missing = requiredOf(part.schemas.parameters).filter((name) => !step.refs[name]);
  if (missing.length === 0) return undefined;
  for (const name of missing) {
    step.refs[name] = `/input/${pointerToken(name)}`;
    chain.asked.add(name);
  }
  return {
    code: 'input_required',
    step: step.id,
    text: part.sub.text,
    message: `step ${step.id} (${step.target.capability}) needs ${missing.join(', ')}: add them to the chain input`,
    missing,
    schema: {
      type: 'object',
      properties: Object.fromEntries(missing.map((name) => [name, properties[name] ?? {}])),
      required: missing,
    },
  };
}

export function connect(parts: readonly RoutedSubRequest[], given: Record<string, unknown> = {}): Connected {
  const chain: Building = {
    parts,
    input: { ...given },
    steps: [],
    unplanned: [],
    afterOf: new Map(),
    asked: new Set(),
  };
  const { steps, unplanned } = chain;
  let lastIf: ConnectedStep | undefined;

  parts.forEach((part, index) => {
    if (!part.target) {
      unplanned.push({
        code: 'refused',
        text: part.sub.text,
        message: part.refusal?.message ?? 'the router found no capability for it',
      });
      return;
    }
    const id = `s${steps.length + 1}`;
    const previous = steps[steps.length - 1];
    let after: string[] = previous ? [previous.id] : [];
    if (part.sub.link === 'parallel' && previous) after = [...previous.after];
    if (part.sub.condition?.otherwise && lastIf) after = [...lastIf.after];
    const step: ConnectedStep = { id, part: index, target: part.target, input: {}, after, refs: {}, carried: [] };
    chain.afterOf.set(id, after);
    const earlier = [...steps].reverse();
    connectParameters(chain, step, part, earlier);
    if (part.sub.condition) {
      connectCondition(chain, step, part.sub.condition, earlier, previous);
      if (!part.sub.condition.otherwise) lastIf = step;
    }
    const missing = readMissingFromInput(chain, step, part);
    if (missing) unplanned.push(missing);
    step.input = Object.fromEntries(Object.entries(step.refs).map(([name, ref]) => [name, { $ref: ref }]));
    steps.push(step);
  });
  return { input: chain.input, steps, unplanned };
}
