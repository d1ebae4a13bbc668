// Message templates: `{name}` placeholders and ICU-style plurals and selects, e.g.
// `{count, plural, =0 {no army} one {# army} other {# armies}}` (`#` is the number, written for
// the reader's language; `=n` matches exactly; otherwise the CLDR category of the language, from
// Intl.PluralRules, then `other`). Pure functions without the DOM, so node can test them.

const cache = new Map();

/** Parses a template into nodes: strings, {arg}, {pound}, {plural|select, cases}. Throws on bad syntax. */
function parseNodes(text, start, inPlural, closing) {
  const nodes = [];
  let literal = '';
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (c === '}' && closing) break;
    if (c === '#' && inPlural) {
      if (literal) nodes.push(literal);
      literal = '';
      nodes.push({ pound: true });
      i += 1;
      continue;
    }
    if (c !== '{') {
      literal += c;
      i += 1;
      continue;
    }
    const end = text.slice(i + 1).search(/[,}]/);
    if (end === -1) throw new Error('unclosed placeholder');
    const name = text.slice(i + 1, i + 1 + end).trim();
    let j = i + 1 + end;
    if (literal) nodes.push(literal);
    literal = '';
    if (text[j] === '}') {
      nodes.push({ arg: name });
      i = j + 1;
      continue;
    }
    // `{name, plural|select, key {text} key {text}}`
    const typeEnd = text.indexOf(',', j + 1);
    const type = typeEnd === -1 ? '' : text.slice(j + 1, typeEnd).trim();
    if (type !== 'plural' && type !== 'select') throw new Error(`unknown placeholder type ${type}`);
    j = typeEnd + 1;
    const cases = {};
    for (;;) {
      while (/\s/.test(text[j] || '')) j += 1;
      if (text[j] === '}') break;
      const open = text.indexOf('{', j);
      if (open === -1) throw new Error('case without text');
      const key = text.slice(j, open).trim();
      if (!key) throw new Error('case without key');
      const [body, after] = parseNodes(text, open + 1, type === 'plural' || inPlural, true);
      if (text[after] !== '}') throw new Error('unclosed case');
      cases[key] = body;
      j = after + 1;
    }
    if (!cases.other) throw new Error('a plural or select needs an `other` case');
    nodes.push({ [type]: name, cases });
    i = j + 1;
  }
  if (literal) nodes.push(literal);
  return [nodes, i];
}

/** The parsed form of a template (cached); a template that does not parse is shown as it is. */
export function parseTemplate(text) {
  if (cache.has(text)) return cache.get(text);
  let nodes;
  try {
    const [parsed, end] = parseNodes(text, 0, false, false);
    nodes = end === text.length ? parsed : [text];
  } catch {
    nodes = [text];
  }
  if (cache.size > 5000) cache.clear();
  cache.set(text, nodes);
  return nodes;
}

/** The plural categories a plural of `template` uses, one list per plural, for checks. */
export function pluralCaseLists(text) {
  const lists = [];
  const walk = (nodes) => {
    for (const node of nodes) {
      if (node && node.cases) {
        if (node.plural !== undefined) lists.push({ name: node.plural, cases: Object.keys(node.cases) });
        for (const body of Object.values(node.cases)) walk(body);
      }
    }
  };
  walk(parseTemplate(text));
  return lists;
}

const rulesCache = new Map();
function pluralRules(lang) {
  if (!rulesCache.has(lang)) rulesCache.set(lang, new Intl.PluralRules(lang));
  return rulesCache.get(lang);
}

/**
 * Formats a template into parts. `arg(name)` gives a placeholder's value as a part (a string or
 * any object the caller renders, such as a seat), or undefined when there is none; `number(name)`
 * gives its numeric value for plurals (or NaN), `choice(name)` its text for selects.
 */
export function formatParts(text, lang, { arg, number, choice = (name) => String(arg(name) ?? '') }) {
  const out = [];
  const run = (nodes, pound) => {
    for (const node of nodes) {
      if (typeof node === 'string') out.push(node);
      else if (node.pound) out.push(pound === undefined ? '#' : pound.toLocaleString(lang));
      else if (node.arg !== undefined) {
        const value = arg(node.arg);
        out.push(value === undefined ? `{${node.arg}}` : value);
      } else if (node.plural !== undefined) {
        const n = number(node.plural);
        const exact = node.cases[`=${n}`];
        const category = Number.isFinite(n) ? pluralRules(lang).select(n) : 'other';
        run(exact || node.cases[category] || node.cases.other, Number.isFinite(n) ? n : undefined);
      } else if (node.select !== undefined) {
        run(node.cases[choice(node.select)] || node.cases.other, pound);
      }
    }
  };
  run(parseTemplate(text));
  // Neighbouring strings joined, so callers see whole runs of text.
  const joined = [];
  for (const part of out) {
    if (typeof part === 'string' && typeof joined[joined.length - 1] === 'string') joined[joined.length - 1] += part;
    else joined.push(part);
  }
  return joined.length ? joined : [''];
}
