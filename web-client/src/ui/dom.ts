/** Tiny DOM helpers for the panels. */

/** An element with attributes (`text` sets its text) and children. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  ...children: (Node | string)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === 'text') node.textContent = v;
    else node.setAttribute(k, v);
  }
  node.append(...children);
  return node;
}

/** A button with a label and, optionally, the key that does the same. */
export function button(label: string, cls: string, key?: string): HTMLButtonElement {
  const b = h('button', { type: 'button', class: cls });
  b.append(h('span', { class: 'lbl', text: label }));
  if (key) {
    b.append(h('kbd', { text: key }));
    b.setAttribute('aria-keyshortcuts', key === '⇧D' ? 'Shift+D' : key);
  }
  return b;
}
