// An esbuild plugin that loads Node's built-in modules with require() instead of import. An ES
// module import of a built-in reads every one of its exports, lazy ones included: `node:http`
// then loads Node's own undici and http2 (for its WebSocket export) and `node:fs` loads readline
// (for fs.promises), about 4 MiB of RSS the controller never uses. require() hands over the
// exports object and leaves lazy exports unread. Each built-in becomes a small module that
// re-exports the plain values of require(name); its getters stay unread.
import { builtinModules, createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const BUILTIN = new RegExp(`^(node:)?(${builtinModules.map((m) => m.replace(/[/]/g, '\\/')).join('|')})$`);
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** The module text standing in for built-in `name`. */
function standIn(name) {
  const exports = require(name);
  const plain = Object.keys(exports).filter((k) => IDENTIFIER.test(k) && k !== 'default' && !Object.getOwnPropertyDescriptor(exports, k)?.get);
  return `const m = require(${JSON.stringify(name)});\nexport default m;\n${plain.map((k) => `export const ${k} = m.${k};`).join('\n')}\n`;
}

export function builtinsAsRequire() {
  return {
    name: 'builtins-as-require',
    setup(build) {
      build.onResolve({ filter: BUILTIN }, (args) => (args.kind === 'import-statement' ? { path: args.path.replace(/^node:/, ''), namespace: 'builtin' } : undefined));
      build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => ({ contents: standIn(`node:${args.path}`), loader: 'js' }));
    },
  };
}
