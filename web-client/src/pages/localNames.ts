/** Names for two players on one device. */

/** Two names, never both the same: empty fields become Ivory and Copper. */
export function tidyNames(a: string, b: string): [string, string] {
  const first = a.trim().replace(/\s+/g, ' ').slice(0, 24) || 'Ivory';
  let second = b.trim().replace(/\s+/g, ' ').slice(0, 24) || (first === 'Copper' ? 'Ivory' : 'Copper');
  if (second.toLowerCase() === first.toLowerCase()) second = `${second.slice(0, 22)} 2`;
  return [first, second];
}
