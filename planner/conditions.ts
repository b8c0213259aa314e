/**
 * A condition as a request says it ("如果还没发货", "if it was rejected") → a step's `when` on an earlier step's result,
 * read through that capability's declared `returns`: a small lexicon of what results say (shipped, delivered,
 * credited, rejected, eligible, raining, unhealthy air, an alert…) names a field and the values that mean it; the
 * values are kept only where the field's `enum` has them, and a negation ("没", "not") takes the rest of the enum.
 * Pure. A condition the lexicon cannot read against any earlier result is left unread: the planner says so.
 */

export type When =
  { $ref: string; equals: unknown } | { $ref: string; not_equals: unknown } | { $ref: string; in: unknown[] };

interface FieldSchema {
  type?: unknown;
  enum?: unknown[];
}

/** An earlier step whose result a condition may read: its id and its capability's declared `returns`. */
export interface ConditionSource {
  stepId: string;
  returns?: Record<string, unknown>;
}

interface Reading {
  pattern: RegExp;
  field: string;
  /** The values that mean it; `present`: a non-empty list means it (an alert is there). */
  values?: unknown[];
  present?: true;
}

/** Most specific first: the first reading a source's `returns` can hold wins. */
const READINGS: Reading[] = [
  { pattern: /符合|可以退|能退|合格|够格|有资格|eligible|qualif|allowed/i, field: 'eligible', values: [true] },
  {
    pattern: /到账|退回来|退到|credited|refunded|paid out|completed|went through/i,
    field: 'status',
    values: ['completed'],
  },
  { pattern: /签收|送达|到货|收到货|delivered|arrived|received/i, field: 'status', values: ['delivered'] },
  {
    pattern: /发货|发出|出库|寄出|shipped|dispatched|sent out|on its way/i,
    field: 'status',
    values: ['shipped', 'in_transit', 'out_for_delivery', 'delivered'],
  },
  { pattern: /异常|出问题|exception|problem|abnormal|stuck/i, field: 'status', values: ['exception'] },
  { pattern: /拒绝|驳回|没通过|不通过|rejected|denied|declined|refused/i, field: 'status', values: ['rejected'] },
  { pattern: /通过|同意|批准|approved/i, field: 'status', values: ['approved', 'completed'] },
  { pattern: /开(?:了|好|过|出|票)|已开|没开|未开|issued/i, field: 'status', values: ['issued', 'already_issued'] },
  { pattern: /免打扰|拦截|blocked|do-not-call/i, field: 'status', values: ['blocked_dnd'] },
  { pattern: /成功|succeed|success|worked|went well/i, field: 'success', values: [true] },
  { pattern: /失败|fail/i, field: 'success', values: [false] },
  { pattern: /下雨|有雨|雨|rain/i, field: 'condition', values: ['rain'] },
  { pattern: /下雪|雪|snow/i, field: 'condition', values: ['snow'] },
  {
    pattern: /污染|空气不好|空气差|雾霾|严重|unhealthy|poor|bad|polluted|hazardous/i,
    field: 'level',
    values: ['unhealthy_sensitive', 'unhealthy', 'very_unhealthy', 'hazardous'],
  },
  { pattern: /预警|警报|警告|台风|暴雨|warning|alert|typhoon|storm/i, field: 'alerts', present: true },
];

/** Question forms are no negation: 能不能, 是不是, whether … or not. */
const QUESTION_FORMS = /能不能|是不是|有没有|是否|可不可以|会不会|whether|or not/gi;
const NEGATION = /没|未|不|无|\bnot\b|n't|\bno\b|\bnever\b/i;

export function isNegated(text: string): boolean {
  return NEGATION.test(text.replace(QUESTION_FORMS, ''));
}

function fieldOf(source: ConditionSource, field: string): FieldSchema | undefined {
  const properties = (source.returns as { properties?: Record<string, FieldSchema> } | undefined)?.properties;
  const schema = properties?.[field];
  return schema && typeof schema === 'object' ? schema : undefined;
}

function whenOf(ref: string, reading: Reading, schema: FieldSchema, negated: boolean): When | undefined {
  if (reading.present) return negated ? { $ref: ref, equals: [] } : { $ref: ref, not_equals: [] };
  const wanted = reading.values!;
  if (Array.isArray(schema.enum)) {
    const holds = schema.enum.filter((v) => wanted.includes(v));
    if (holds.length === 0) return undefined;
    const values = negated ? schema.enum.filter((v) => !holds.includes(v)) : holds;
    return values.length === 1 ? { $ref: ref, equals: values[0] } : { $ref: ref, in: values };
  }
  if (schema.type === 'boolean' && typeof wanted[0] === 'boolean')
    return { $ref: ref, equals: negated ? !wanted[0] : wanted[0] };
  if (schema.type === 'boolean' || typeof wanted[0] === 'boolean') return undefined;
  return negated
    ? { $ref: ref, not_equals: wanted[0] }
    : wanted.length === 1
      ? { $ref: ref, equals: wanted[0] }
      : { $ref: ref, in: wanted };
}

function readAgainst(words: string, sources: readonly ConditionSource[], negated: boolean): When | undefined {
  for (const source of sources) {
    for (const reading of READINGS) {
      if (!reading.pattern.test(words)) continue;
      const schema = fieldOf(source, reading.field);
      const when = schema && whenOf(`/steps/${source.stepId}/result/${reading.field}`, reading, schema, negated);
      if (when) return when;
    }
  }
  return undefined;
}

/**
 * The `when` of a condition, read against the earlier steps' results (`sources`, nearest first). A condition that
 * only points back ("if so", "如果可以", "if not") is read in the words of the request it follows (`previous`);
 * `otherwise` turns it around.
 */
export function conditionWhen(
  condition: { text: string; otherwise: boolean },
  sources: readonly ConditionSource[],
  previous?: string,
): When | undefined {
  const negated = isNegated(condition.text) !== condition.otherwise;
  return (
    readAgainst(condition.text, sources, negated) ??
    (previous === undefined ? undefined : readAgainst(previous, sources, negated))
  );
}
