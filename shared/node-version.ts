// The oldest Node.js Skiff's programs run on (package.json's engines). On an older one they failed
// deep inside a dependency or a missing Node API: the plugin and the certs tool when undici 8
// (loaded with client-node) reaches for Node 22's zlib, with a TypeError that named neither Node
// nor its version; the webhook reading its certificate's dates, as if its files were missing.
export const MIN_NODE = [22, 19] as const;

/** Why Node `version` (process.versions.node) cannot run `program`, or undefined when it can. */
export function nodeVersionProblem(program: string, version: string, execPath: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  if (major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1])) return undefined;
  return `${program} needs Node.js ${MIN_NODE.join('.')} or newer, and ${execPath} is ${version}: put a newer node first on PATH, or run npm ci in the project (it brings its own, node_modules/.bin/node)`;
}
