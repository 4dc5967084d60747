// The ACP SDK builds all of its ~180 zod validators (and the elicitation guards composed from them) when
// it is imported: 14–16 ms and ~13 MB before the first request can be dispatched (measured in a compiled
// probe), though a session uses a handful. This rewrites the SDK's generated schema modules so each
// validator is built on first use; the exports keep their names and behave as the real schemas (a proxy
// builds the schema when first touched). Applied as a Bun plugin to the compiled binary (scripts/build.ts),
// `bun run start` and the tests (lazy-schemas-preload.ts), so the shipped code path is the tested one.
import type { BunPlugin } from "bun";

/** The generated schema and guard files of the ACP SDK's v1 bindings (stable and unstable). */
export const SCHEMA_FILE = /@agentclientprotocol[\\/]sdk[\\/]dist[\\/]v1[\\/](unstable[\\/])?schema[\\/](zod|guards)\.gen\.js$/;

const DECLARATION = /^(export )?const (z\w+) = /gm;

/** Index of the `;` that ends the statement starting at `from` (brackets and strings skipped). */
function statementEnd(source: string, from: number): number {
  let depth = 0;
  for (let i = from; i < source.length; i++) {
    const c = source[i]!;
    if (c === '"' || c === "'" || c === "`") {
      for (i++; i < source.length && source[i] !== c; i++) if (source[i] === "\\") i++;
    } else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (c === ";" && depth === 0) return i;
  }
  throw new Error("lazy-schemas: unterminated declaration; the SDK's generated schema files changed shape");
}

/**
 * The module with every top-level `const zX = …;` turned into a getter that builds it once; references
 * to it become getter calls, and an exported one is exported as a lazy stand-in under the same name.
 */
export function lazySchemaModule(source: string): string {
  const code = source.replace(/\/\*\*[\s\S]*?\*\//g, "");
  const found = [...code.matchAll(DECLARATION)];
  if (found.length === 0) throw new Error("lazy-schemas: no `const z…` declarations found; the SDK's generated schema files changed shape");
  const names = new Set(found.map((m) => m[2]!));
  // Generated schema names never occur inside strings; a property access (`validate.zX`) is another module's.
  const references = (text: string) => text.replace(/(?<![.\w$])z[A-Z]\w*(?![\w$])/g, (id) => (names.has(id) ? `${id}$()` : id));
  const out: string[] = [];
  let at = 0;
  for (const m of found) {
    const name = m[2]!;
    const end = statementEnd(code, m.index + m[0].length);
    out.push(references(code.slice(at, m.index)));
    const expression = references(code.slice(m.index + m[0].length, end)).trim();
    out.push(`let ${name}$v;\nfunction ${name}$() { return ${name}$v ??= ${expression}; }`);
    if (m[1]) out.push(`\nexport const ${name} = lazySchema(${name}$);`);
    at = end + 1;
  }
  out.push(references(code.slice(at)), LAZY_SCHEMA);
  return out.join("");
}

/** A stand-in that builds the real schema on first touch and forwards everything to it. */
const LAZY_SCHEMA = `
function lazySchema(build) {
  const bound = new Map();
  return new Proxy({}, {
    get(_, key) {
      const real = build();
      const value = Reflect.get(real, key, real);
      if (typeof value !== "function") return value;
      let fn = bound.get(key);
      if (!fn) bound.set(key, (fn = value.bind(real)));
      return fn;
    },
    has: (_, key) => Reflect.has(build(), key),
    ownKeys: () => Reflect.ownKeys(build()),
    getOwnPropertyDescriptor(_, key) {
      const d = Reflect.getOwnPropertyDescriptor(build(), key);
      return d && { ...d, configurable: true };
    },
    getPrototypeOf: () => Reflect.getPrototypeOf(build()),
  });
}
`;

export const lazySchemasPlugin: BunPlugin = {
  name: "acp-lazy-schemas",
  setup(build) {
    build.onLoad({ filter: SCHEMA_FILE }, async ({ path }) => ({
      contents: lazySchemaModule(await Bun.file(path).text()),
      loader: "js",
    }));
  },
};
