/**
 * Routed sub-requests → a chain body: step ids, `after` from how each follows the one before, `when` from its
 * condition, and the `$ref`s that carry values — a value the request names (or the caller gives) goes into the
 * chain input once and every step that declares a parameter of that name reads it from there; an identifier a
 * step needs and an earlier step returns under the same name (`refund_id`, `invoice_id`, `after_sales_id`…) is read
 * from that step's result. Pure: what it cannot plan (a refusal, a condition it cannot read, a required parameter
 * no one gives) is listed beside the plan.
 */
import { isDeepStrictEqual } from 'node:util';
import type { SubRequest } from './split';
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

export function connect(parts: readonly RoutedSubRequest[], given: Record<string, unknown> = {}): Connected {
  const input: Record<string, unknown> = { ...given };
  const steps: ConnectedStep[] = [];
  const unplanned: Unplanned[] = [];
  const afterOf = new Map<string, string[]>();
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
    afterOf.set(id, after);

    for (const [name, value] of Object.entries(part.params)) {
      const key = inputKeyFor(input, name, value, id);
      step.refs[name] = `/input/${pointerToken(key)}`;
    }
    const earlier = [...steps].reverse();
    for (const name of Object.keys(propertiesOf(part.schemas.parameters))) {
      if (step.refs[name]) continue;
      if (name in input) {
        step.refs[name] = `/input/${pointerToken(name)}`;
        step.carried.push(name);
        continue;
      }
      if (!IDENTIFIER.test(name)) continue;
      const source = earlier.find((s) => name in propertiesOf(parts[s.part]!.schemas.returns));
      if (!source) continue;
      step.refs[name] = `/steps/${source.id}/result/${pointerToken(name)}`;
      step.carried.push(name);
      if (!ancestorsOf(id, afterOf).has(source.id)) step.after.push(source.id);
    }

    if (part.sub.condition) {
      const sources: ConditionSource[] = earlier.map((s) => ({
        stepId: s.id,
        ...(parts[s.part]!.schemas.returns ? { returns: parts[s.part]!.schemas.returns } : {}),
      }));
      const when = conditionWhen(part.sub.condition, sources, previous ? parts[previous.part]!.sub.text : undefined);
      if (when) {
        step.when = when;
        const source = /^\/steps\/([^/]+)\//.exec(when.$ref)![1]!;
        if (!ancestorsOf(id, afterOf).has(source)) step.after.push(source);
      } else {
        const said = part.sub.condition.text || '(the step before)';
        unplanned.push({
          code: 'condition_not_understood',
          step: id,
          text: part.sub.text,
          message: `step ${id} runs only ${part.sub.condition.otherwise ? 'unless' : 'if'} "${said}", which no earlier step's declared result can tell: add its when, or remove the step`,
        });
      }
      if (!part.sub.condition.otherwise) lastIf = step;
    }

    step.input = Object.fromEntries(Object.entries(step.refs).map(([name, ref]) => [name, { $ref: ref }]));
    const properties = propertiesOf(part.schemas.parameters);
    const missing = requiredOf(part.schemas.parameters).filter((name) => !step.refs[name]);
    if (missing.length > 0) {
      unplanned.push({
        code: 'input_required',
        step: id,
        text: part.sub.text,
        message: `step ${id} (${part.target.capability}) needs ${missing.join(', ')}: add them to the chain input and plan again`,
        missing,
        schema: {
          type: 'object',
          properties: Object.fromEntries(missing.map((name) => [name, properties[name] ?? {}])),
          required: missing,
        },
      });
    }
    steps.push(step);
  });
  return { input, steps, unplanned };
}
