/**
 * The chains' mapping language: JSON Pointers (RFC 6901) into the document a step reads,
 * `{"input": <the chain's input>, "steps": {"<id>": {"result": …}}}`. A template is any JSON value; every object
 * of exactly one key `$ref` in it is replaced by the value its pointer names. Pure: safe in workflows.
 */

/** The reference tokens of a pointer ("" is the whole document), or undefined when it is not a pointer. */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  const tokens = pointer.slice(1).split('/');
  // `~` must be followed by 0 or 1 (RFC 6901 §3).
  if (tokens.some((t) => /~(?![01])/.test(t))) return undefined;
  return tokens.map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

export function pointerOf(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

const MISSING = Symbol('missing');

/** The value at `tokens` in `document`, or MISSING. */
function valueAt(document: unknown, tokens: readonly string[]): unknown {
  let here = document;
  for (const token of tokens) {
    if (Array.isArray(here)) {
      if (!/^(0|[1-9][0-9]*)$/.test(token) || Number(token) >= here.length) return MISSING;
      here = here[Number(token)];
    } else if (here !== null && typeof here === 'object' && Object.prototype.hasOwnProperty.call(here, token)) {
      here = (here as Record<string, unknown>)[token];
    } else {
      return MISSING;
    }
  }
  return here;
}

export type Resolved = { ok: true; value: unknown } | { ok: false; pointer: string };

/** The value `pointer` names in `document`. */
export function resolvePointer(document: unknown, pointer: string): Resolved {
  const tokens = pointerTokens(pointer);
  const value = tokens ? valueAt(document, tokens) : MISSING;
  return value === MISSING ? { ok: false, pointer } : { ok: true, value };
}

/** The pointer of a `{"$ref": …}` object, or undefined for any other value. */
export function refOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const keys = Object.keys(value);
  const ref = (value as Record<string, unknown>).$ref;
  return keys.length === 1 && typeof ref === 'string' ? ref : undefined;
}

/** A reference in a template, and where in the built value it lands (pointer tokens). */
export interface TemplateRef {
  ref: string;
  at: string[];
}

/** Every `$ref` of a template, with where it lands. */
export function refsIn(template: unknown, at: string[] = []): TemplateRef[] {
  const ref = refOf(template);
  if (ref !== undefined) return [{ ref, at }];
  if (Array.isArray(template)) return template.flatMap((item, i) => refsIn(item, [...at, String(i)]));
  if (template !== null && typeof template === 'object')
    return Object.entries(template).flatMap(([k, v]) => refsIn(v, [...at, k]));
  return [];
}

export type Built = { ok: true; value: unknown } | { ok: false; pointer: string };

/** The template with every `$ref` replaced by its value in `document`; the first pointer that names nothing fails it. */
export function buildFromTemplate(template: unknown, document: unknown): Built {
  const ref = refOf(template);
  if (ref !== undefined) return resolvePointer(document, ref);
  if (Array.isArray(template)) {
    const items: unknown[] = [];
    for (const item of template) {
      const built = buildFromTemplate(item, document);
      if (!built.ok) return built;
      items.push(built.value);
    }
    return { ok: true, value: items };
  }
  if (template !== null && typeof template === 'object') {
    const entries: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(template)) {
      const built = buildFromTemplate(item, document);
      if (!built.ok) return built;
      entries[key] = built.value;
    }
    return { ok: true, value: entries };
  }
  return { ok: true, value: template };
}

/** A step's source of data, from a pointer's first tokens: the chain input, or a step's result. */
export type RefSource =
  { kind: 'input'; rest: string[] } | { kind: 'step'; step: string; rest: string[] } | { kind: 'invalid' };

export function sourceOf(pointer: string): RefSource {
  const tokens = pointerTokens(pointer);
  if (!tokens) return { kind: 'invalid' };
  if (tokens[0] === 'input') return { kind: 'input', rest: tokens.slice(1) };
  if (tokens[0] === 'steps' && tokens.length >= 3 && tokens[2] === 'result')
    return { kind: 'step', step: tokens[1]!, rest: tokens.slice(3) };
  return { kind: 'invalid' };
}

/** Whether two JSON values are equal (object key order aside): `when`'s `equals`. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b))
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  const aKeys = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bKeys = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return (
    aKeys.length === bKeys.length &&
    aKeys.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}
