/**
 * Free-text properties (a note, an invoice title) only where the caller labels the value with the property's own
 * term: "备注放前台", "抬头：李娜", "配送备注: 放门卫". Anything less explicit is left to the LLM stage or to
 * `input_required`: a missing note is better than a wrong one.
 */
import { headTerm, type PropertySchema, stringFits, typeOf } from './schema';

/** Terms Chinese writes straight before their value, without a colon ("备注放前台"). */
const JOINED_TERMS = new Set(['备注', '抬头', '留言', '附言', '事由']);
const VALUE_END = /[，,。；;！!？?\n]/;
const CJK_START = /^[\u3400-\u9fff]/;
/** Words that label the next value in a request, whatever the schema: a value never runs into them. */
const LABEL_WORDS = ['税号', '电话', '手机', '邮箱', '订单号', '单号', '地址', '备注', '抬头'];
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

/**
 * The value labelled with the property's own term, up to punctuation, another property's term (`stops`: "抬头北京某某
 * 有限公司 税号…" ends before 税号), or — for a Chinese value — a space.
 */
export function labelledText(text: string, schema: PropertySchema, stops: string[] = []): string | undefined {
  for (const { cue, joined } of cues(schema)) {
    let from = 0;
    for (;;) {
      const at = text.indexOf(cue, from);
      if (at < 0) break;
      from = at + cue.length;
      const rest = text.slice(from);
      const sep = rest.match(/^\s*[:：]\s*|^\s*(?:是|为|写)\s*/);
      if (!sep && !joined) continue;
      const body = rest.slice(sep ? sep[0].length : 0).trimStart();
      const chinese = CJK_START.test(body);
      const ends = [
        body.search(VALUE_END),
        chinese ? body.search(/\s|[A-Za-z0-9]{6}/) : -1,
        ...[...stops, ...LABEL_WORDS].map((t) => body.indexOf(t)),
      ].filter((i) => i >= 0);
      const value = body.slice(0, ends.length > 0 ? Math.min(...ends) : body.length).trim();
      if (value.length >= 2 && !BAD_START.test(value) && !REFERS.test(value) && stringFits(value, schema)) return value;
    }
  }
  return undefined;
}
