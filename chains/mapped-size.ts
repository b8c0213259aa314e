/**
 * The size of a step's message before it is built: the bytes of JSON a template comes to once its `$ref`s are
 * replaced, counted without building it and given up as soon as it passes a cap. A template of a few kilobytes can
 * read a large result thousands of times; building it first would hold all those copies. Pure: safe in workflows.
 */
import { refOf, resolvePointer } from './pointer';

/** Bytes of `text` as UTF-8, without Buffer (absent from the workflow sandbox). */
export function utf8Bytes(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      // A surrogate pair: one code point of four bytes.
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

/** Bytes of a value's JSON (0 for undefined, which JSON leaves out). */
export function jsonSize(value: unknown): number {
  return value === undefined ? 0 : utf8Bytes(JSON.stringify(value));
}

export type MappedSize = { ok: true; bytes: number } | { ok: false; pointer: string } | { ok: false; over: number };

/**
 * Bytes of JSON `template` comes to in `document`, if at most `maxBytes`; else `over` (a count past the cap, not
 * the whole size: the count stops there). The first pointer that names nothing is named.
 */
export function mappedSize(template: unknown, document: unknown, maxBytes: number): MappedSize {
  const seen = new Map<string, number>();
  let total = 0;
  const add = (bytes: number): boolean => {
    total += bytes;
    return total <= maxBytes;
  };
  // Returns false when the count passed the cap, or the pointer that names nothing.
  const visit = (value: unknown): true | false | string => {
    const ref = refOf(value);
    if (ref !== undefined) {
      let bytes = seen.get(ref);
      if (bytes === undefined) {
        const found = resolvePointer(document, ref);
        if (!found.ok) return ref;
        bytes = jsonSize(found.value);
        seen.set(ref, bytes);
      }
      return add(bytes);
    }
    if (Array.isArray(value)) {
      if (!add(2 + Math.max(0, value.length - 1))) return false;
      for (const item of value) {
        const counted = visit(item);
        if (counted !== true) return counted;
      }
      return true;
    }
    if (value !== null && typeof value === 'object') {
      const entries = Object.entries(value);
      if (!add(2 + Math.max(0, entries.length - 1))) return false;
      for (const [key, item] of entries) {
        if (!add(jsonSize(key) + 1)) return false;
        const counted = visit(item);
        if (counted !== true) return counted;
      }
      return true;
    }
    return add(jsonSize(value));
  };
  const counted = visit(template);
  if (typeof counted === 'string') return { ok: false, pointer: counted };
  return counted ? { ok: true, bytes: total } : { ok: false, over: total };
}
