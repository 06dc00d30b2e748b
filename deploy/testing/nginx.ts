/**
 * Just enough of nginx's configuration syntax to read our proxy config in a test:
 * directives (`name args…;`) and blocks (`name args… { … }`), `#` comments, quoted
 * arguments. Not a validator — nginx itself is that, where a daemon exists.
 */
export interface NginxDirective {
  readonly name: string;
  readonly args: readonly string[];
  /** The block's directives; null for a simple directive. */
  readonly block: readonly NginxDirective[] | null;
}

function tokens(text: string): string[] {
  const out: string[] = [];
  const re = /#[^\n]*|"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([{};])|([^\s{};"'#]+)/g;
  for (const m of text.matchAll(re)) {
    if (m[0].startsWith('#')) continue;
    out.push(m[1] ?? m[2] ?? m[3] ?? m[4]!);
  }
  return out;
}

export function parseNginx(text: string): NginxDirective[] {
  const list = tokens(text);
  let i = 0;
  const parseBlock = (): NginxDirective[] => {
    const directives: NginxDirective[] = [];
    while (i < list.length && list[i] !== '}') {
      const words: string[] = [];
      while (i < list.length && list[i] !== ';' && list[i] !== '{') words.push(list[i++]!);
      const [name, ...args] = words;
      if (name === undefined) throw new Error('nginx config: a directive without a name');
      if (list[i] === '{') {
        i++;
        const block = parseBlock();
        if (list[i++] !== '}') throw new Error(`nginx config: block ${name} is not closed`);
        directives.push({ name, args, block });
      } else {
        if (list[i++] !== ';') throw new Error(`nginx config: ${name} is not terminated by ;`);
        directives.push({ name, args, block: null });
      }
    }
    return directives;
  };
  const top = parseBlock();
  if (i < list.length) throw new Error('nginx config: an unmatched }');
  return top;
}

/** Directives named `name` directly inside `within`. */
export const directives = (within: readonly NginxDirective[], name: string) => within.filter((d) => d.name === name);
