/**
 * Free-text properties (a note, an invoice title) only where the caller labels the value with the property's own
 * term: "备注放前台", "抬头：李娜", "配送备注: 放门卫". Anything less explicit is left to the LLM stage or to
 * `input_required`: a missing note is better than a wrong one.
 */
import { headTerm, type PropertySchema, stringFits, typeOf } from './schema';

/** Terms Chinese writes straight before their value, without a colon ("备注放前台"). */
const JOINED_TERMS = new Set(['备注', '抬头', '留言', '附言', '事由']);
const VALUE_END = /[，,。；;！!？?\n]/;
const BAD_START = /^[的了是吗呢吧和与或]/;
/** Values that refer instead of state ("写我名字就行") are not values. */
const REFERS = /[我你他她它]|就行|即可|就可以/;

export function isFreeText(schema: PropertySchema): boolean {
  return typeOf(schema) === 'string' && !schema.enum && !schema.pattern && !schema.format;
}

function cues(schema: PropertySchema): { cue: string; joined: boolean }[] {
  const head = headTerm(schema);
  if (!head || head.length > 12) return [];
  const out = [{ cue: head, joined: true }];
  if (/^[\u4e00-\u9fff]{3,}$/.test(head)) {
    const tail = head.slice(-2);
    out.push({ cue: tail, joined: JOINED_TERMS.has(tail) });
  }
  return out;
}

export function labelledText(text: string, schema: PropertySchema): string | undefined {
  for (const { cue, joined } of cues(schema)) {
    let from = 0;
    for (;;) {
      const at = text.indexOf(cue, from);
      if (at < 0) break;
      from = at + cue.length;
      const rest = text.slice(from);
      const sep = rest.match(/^\s*[:：]\s*|^\s*(?:是|为|写)\s*/);
      if (!sep && !joined) continue;
      const body = rest.slice(sep ? sep[0].length : 0);
      const end = body.search(VALUE_END);
      const value = body.slice(0, end < 0 ? body.length : end).trim();
      if (value.length >= 2 && !BAD_START.test(value) && !REFERS.test(value) && stringFits(value, schema)) return value;
    }
  }
  return undefined;
}
