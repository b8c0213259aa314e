/** The `k` items with the highest `score`, best first (a partial selection: k is small, the list may be long). */
export function bestBy<T>(items: readonly T[], k: number, score: (item: T) => number): T[] {
  const top: { item: T; value: number }[] = [];
  for (const item of items) {
    const value = score(item);
    if (top.length === k && value <= top[k - 1]!.value) continue;
    let at = top.length;
    while (at > 0 && top[at - 1]!.value < value) at--;
    top.splice(at, 0, { item, value });
    if (top.length > k) top.pop();
  }
  return top.map((t) => t.item);
}
