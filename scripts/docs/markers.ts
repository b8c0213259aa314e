/** Generated parts of a Markdown file live between a begin and an end marker; the rest is written by hand. */

const begin = (name: string) => `<!-- generated:${name} begin (npm run docs; do not edit by hand) -->`;
const end = (name: string) => `<!-- generated:${name} end -->`;

/** `text` with what lies between the markers named `name` replaced by `content`. Throws when the markers are missing. */
export function replaceBetweenMarkers(text: string, name: string, content: string): string {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from === -1 || to < from) throw new Error(`markers "${name}" not found: add\n${begin(name)}\n${end(name)}`);
  return `${text.slice(0, from + begin(name).length)}\n${content.trimEnd()}\n${text.slice(to)}`;
}

/** Escapes what would break a Markdown table cell. */
export function cell(text: string): string {
  return text.replace(/\s+/g, ' ').replaceAll('|', '\\|').trim();
}
