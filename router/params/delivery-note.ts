/**
 * A delivery note said without its label: where to leave the parcel ("放丰巢柜", "门卫代收", "leave it in the parcel
 * locker"). Only for a property that is a delivery note by its name or description, and only an instruction that
 * names a place to leave it: the words as written, the clause's softeners ("就行", "please") left out.
 */
import { type PropertySchema, stringFits } from './schema';

const NOTE_PROPERTY = /(?:配送|派送|送货|收货|快递)(?:备注|说明)|delivery[\s_-]*(?:note|instruction)s?/i;
/** "放前台", "放在门卫室", "放丰巢柜": leaving it at a place (the place ends in a word for one). */
const ZH_LEAVE_AT =
  /放(?:在|到)?[\u4e00-\u9fff]{0,6}?(?:柜|前台|门卫室?|门口|物业|驿站|传达室|收发室|保安室|楼下|邻居家)/;
/** "门卫代收", "物业代收". */
const ZH_RECEIVED_BY = /[\u4e00-\u9fff]{1,4}代收/;
const ZH_CLAUSE_END = /[，,。；;！!？?\n]/;
const ZH_SOFTENER = /(?:就行|就好|就可以|即可|吧|哈|啊|哦|谢谢)+$/;
const EN_LEAVE_AT =
  /\b(?:leave|put|drop)\s+(?:it|them|the\s+(?:package|parcel|box|order))\s+(?:at|in|inside|with|by|outside|on)\b[^,.;!?\n]*/i;

export function isDeliveryNote(name: string, schema: PropertySchema): boolean {
  return (
    NOTE_PROPERTY.test(name) || NOTE_PROPERTY.test(schema.description ?? '') || NOTE_PROPERTY.test(schema.title ?? '')
  );
}

function chineseNote(text: string): string | undefined {
  const found = ZH_LEAVE_AT.exec(text) ?? ZH_RECEIVED_BY.exec(text);
  if (!found) return undefined;
  const rest = text.slice(found.index);
  const end = rest.search(ZH_CLAUSE_END);
  return (end < 0 ? rest : rest.slice(0, end)).trim().replace(ZH_SOFTENER, '');
}

/** An instruction, not a sentence with its own subject ("I'll put it in my calendar"). */
function englishNote(text: string): string | undefined {
  const found = EN_LEAVE_AT.exec(text);
  if (
    !found ||
    /\b(?:i|i'll|i'd|we|we'll|you|they|he|she)\s+(?:will\s+|can\s+|could\s+)?$/i.test(text.slice(0, found.index))
  )
    return undefined;
  return found[0].trim();
}

/** The note, or undefined when the request names no place to leave the parcel. */
export function deliveryNote(text: string, name: string, schema: PropertySchema): string | undefined {
  if (!isDeliveryNote(name, schema)) return undefined;
  const value = englishNote(text) ?? chineseNote(text);
  return value && stringFits(value, schema) ? value : undefined;
}
